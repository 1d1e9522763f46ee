import type { Config } from "../platform/config/load-config";
import { sendWithPreflight, type SendOutcome } from "../chain/send-transaction";
import { confirmSignature, signatureStatus, type ConfirmationOutcome, type SignatureStatus } from "../chain/confirm";
import { watchSignature, type SignatureWatch } from "../chain/signature-watch";
import { isBlockhashStillValid } from "../chain/blockhash";
import { settleFloorRefusal } from "../chain/fee-payer-floor";
import { noteFeePayerSpend } from "../chain/fee-payer-balance";
import {
  claimSettlement,
  claimSuccessReport,
  getSettlement,
  getSettlementState,
  recordConfirmationAfterFailedReport,
  releaseSettlement,
  takeOverLease,
  updateSettlement,
  type SettlementClaim,
  type SettlementRow,
  type SettlementState,
} from "../store/settlements";
import type { PaymentRejection } from "../x402/payment-verdict";
import type { SettleLedgerObject } from "./settle-ledger-object";

/**
 * The settle engine's two doors to the outside: the ledger (a Durable Object per payment, or D1 `settlements`) and the
 * chain (RPC, PubSub). The engine is a state machine over these; the Worker wires them to the ledger and the cluster
 * (`settlePorts`), unit tests to fakes that script each answer.
 */
export interface SettlePorts {
  ledger: SettleLedger;
  chain: SettleChain;
}

export type ClaimRow = Parameters<typeof claimSettlement>[1];
export type SettlementChanges = Parameters<typeof updateSettlement>[3];

/** The exactly-once ledger: one row per payment (keyed by message hash) decides who sends and who reports success. */
export interface SettleLedger {
  /** State and signature only (a cheap read), or undefined when the payment has no row. */
  state(messageHash: string): Promise<Pick<SettlementRow, "state" | "signature"> | undefined>;
  claim(row: ClaimRow): Promise<SettlementClaim>;
  get(messageHash: string): Promise<SettlementRow | undefined>;
  takeOverLease(messageHash: string, leaseId: string, leaseMs: number): Promise<boolean>;
  update(messageHash: string, fromStates: SettlementState[], changes: SettlementChanges): Promise<boolean>;
  release(messageHash: string): Promise<void>;
  /** Records the confirmation and claims the single success answer: true for exactly one caller (`reporterId`: the call's lease id). */
  reportSuccess(messageHash: string, reporterId: string, correlationId: string | null, nowMs: number): Promise<boolean>;
  /**
   * After `reportSuccess` failed: records the confirmation without reporting success, and withdraws that call's own
   * report if it committed after all and no call can hear it (no correlation id). Idempotent.
   */
  recordConfirmationAfterFailedReport(messageHash: string, reporterId: string, nowMs: number): Promise<void>;
}

/** The cluster, for one settle call (it holds that call's confirmation watch, if any, until `close`). */
export interface SettleChain {
  /**
   * Refuses a new send while the fee payer is below its settle floor (a low reading is read again first, at most every
   * few seconds); `defer` keeps a balance refresh alive after the response.
   */
  floorRefusal(payer: string, defer: (work: Promise<unknown>) => void): PaymentRejection | null | Promise<PaymentRejection | null>;
  /**
   * Sends the signed bytes with preflight (opening the confirmation watch first, when configured); a send the cluster
   * took lowers the settle floor's balance reading by `feePayerOutlayLamports` (its network fee and any rent it fronts).
   */
  send(wireBase64: string, signature: string, feePayerOutlayLamports: bigint): Promise<SendOutcome>;
  /** Waits for confirmation within the settle budget. */
  confirm(signature: string): Promise<ConfirmationOutcome>;
  /** One status read. */
  status(signature: string): Promise<SignatureStatus>;
  isBlockhashValid(blockhash: string): Promise<boolean>;
  close(): void;
}

/** The real ports: the call's ledger (see `settleLedgerOf`) and this deployment's cluster. */
export function settlePorts(config: Config, ledger: SettleLedger): SettlePorts {
  return { ledger, chain: clusterChain(config) };
}

/** What decides which ledger a call uses: the setting, and the bindings it needs. */
export interface LedgerBindings {
  DB: D1Database;
  SETTLE_LEDGER?: DurableObjectNamespace<SettleLedgerObject>;
}

/**
 * The deployment's settle ledger (SVC_SETTLE_LEDGER): `object`, a Durable Object per payment next to the request
 * (src/settlement/settle-ledger-object.ts), or `d1`, the `settlements` table itself.
 */
export function settleLedgerOf(config: Pick<Config, "settleLedger">, env: LedgerBindings): SettleLedger {
  if (config.settleLedger === "d1") return d1Ledger(env.DB);
  if (!env.SETTLE_LEDGER) throw new Error("SVC_SETTLE_LEDGER=object needs the SETTLE_LEDGER Durable Object binding (wrangler.toml)");
  return objectLedger(env.SETTLE_LEDGER);
}

/** The ledger in Durable Objects: each payment's object is named after its message hash, so every caller reaches the same one. */
export function objectLedger(namespace: DurableObjectNamespace<SettleLedgerObject>): SettleLedger {
  const stubs = new Map<string, DurableObjectStub<SettleLedgerObject>>();
  const of = (messageHash: string) => {
    let stub = stubs.get(messageHash);
    if (!stub) stubs.set(messageHash, (stub = namespace.get(namespace.idFromName(messageHash))));
    return stub;
  };
  return {
    state: (messageHash) => of(messageHash).state(messageHash),
    claim: (row) => of(row.messageHash).claim(row),
    get: (messageHash) => of(messageHash).get(messageHash),
    takeOverLease: (messageHash, leaseId, leaseMs) => of(messageHash).takeOverLease(messageHash, leaseId, leaseMs),
    update: (messageHash, fromStates, changes) => of(messageHash).update(messageHash, fromStates, changes),
    release: (messageHash) => of(messageHash).release(messageHash),
    reportSuccess: (messageHash, reporterId, correlationId, nowMs) => of(messageHash).reportSuccess(messageHash, reporterId, correlationId, nowMs),
    recordConfirmationAfterFailedReport: (messageHash, reporterId, nowMs) => of(messageHash).recordConfirmationAfterFailedReport(messageHash, reporterId, nowMs),
  };
}

export function d1Ledger(db: D1Database): SettleLedger {
  return {
    state: (messageHash) => getSettlementState(db, messageHash),
    claim: (row) => claimSettlement(db, row),
    get: (messageHash) => getSettlement(db, messageHash),
    takeOverLease: (messageHash, leaseId, leaseMs) => takeOverLease(db, messageHash, leaseId, leaseMs),
    update: (messageHash, fromStates, changes) => updateSettlement(db, messageHash, fromStates, changes),
    release: (messageHash) => releaseSettlement(db, messageHash),
    reportSuccess: (messageHash, reporterId, correlationId, nowMs) => claimSuccessReport(db, messageHash, reporterId, correlationId, nowMs),
    recordConfirmationAfterFailedReport: (messageHash, reporterId, nowMs) => recordConfirmationAfterFailedReport(db, messageHash, reporterId, nowMs),
  };
}

function clusterChain(config: Config): SettleChain {
  let watch: SignatureWatch | null = null;
  return {
    floorRefusal: (payer, defer) => settleFloorRefusal(config, payer, defer),
    async send(wireBase64, signature, feePayerOutlayLamports) {
      // With `subscribe`, the watch is opened before the send, so it is in place (or nearly) before the cluster can
      // confirm (the signature is known before the send: it is the fee payer's).
      if (config.settleConfirmation === "subscribe" && watch === null) watch = watchSignature(config, signature);
      const outcome = await sendWithPreflight(config, wireBase64);
      // A re-send is counted again: the reading only errs low until its next refresh.
      if (outcome.kind === "sent") noteFeePayerSpend(config, feePayerOutlayLamports);
      return outcome;
    },
    confirm: (signature) => confirmSignature(config, signature, config.limits.settleConfirmTimeoutMs, watch),
    status: (signature) => signatureStatus(config, signature),
    isBlockhashValid: (blockhash) => isBlockhashStillValid(config, blockhash),
    close: () => watch?.close(),
  };
}
