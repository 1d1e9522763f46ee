import { isBlockhashStillValid } from "../chain/blockhash";
import { type ConfirmationOutcome, confirmSignature, type SignatureStatus, signatureStatus } from "../chain/confirm";
import { noteFeePayerSpend } from "../chain/fee-payer-balance";
import { settleFloorRefusal } from "../chain/fee-payer-floor";
import { type SendOutcome, sendWithPreflight } from "../chain/send-transaction";
import { type SignatureWatch, watchSignature } from "../chain/signature-watch";
import type { Config } from "../platform/config/load-config";
import type { ClaimRiders } from "../store/claim-riders";
import {
  type ClaimInput,
  claimSettlement,
  claimSuccessReport,
  getSettlement,
  getSettlementState,
  recordConfirmationAfterFailedReport,
  releaseSettlement,
  type SettlementChanges,
  type SettlementClaim,
  type SettlementRow,
  type SettlementState,
  takeOverLease,
  updateSettlement,
} from "../store/settlements";
import type { PaymentRejection } from "../x402/payment-verdict";
import type { HeldElsewhere, SettleLedgerObject } from "./settle-ledger-object";

/**
 * The settle engine's two doors to the outside: the ledger (Durable Objects per place, or D1 `settlements`) and the
 * chain (RPC, PubSub). The engine is a state machine over these; the Worker wires them to the ledger and the cluster
 * (`settlePorts`), unit tests to fakes that script each answer.
 */
export interface SettlePorts {
  ledger: SettleLedger;
  chain: SettleChain;
}

export type ClaimRow = ClaimInput;
export type { SettlementChanges };

/** The exactly-once ledger: one row per payment (keyed by message hash) decides who sends and who reports success. */
export interface SettleLedger {
  /** State and signature only (a cheap read), or undefined when the payment has no row. */
  state(messageHash: string): Promise<Pick<SettlementRow, "state" | "signature"> | undefined>;
  /**
   * `riders` commit with the claim, in its transaction (store/claim-riders.ts): the budget's bookings, a rail's rows.
   */
  claim(row: ClaimRow, riders?: ClaimRiders): Promise<SettlementClaim>;
  get(messageHash: string): Promise<SettlementRow | undefined>;
  takeOverLease(messageHash: string, leaseId: string, leaseMs: number): Promise<boolean>;
  update(messageHash: string, fromStates: SettlementState[], changes: SettlementChanges): Promise<boolean>;
  /** Gives back the row of a transaction the cluster never accepted: only `leaseId`'s, never a reported one. */
  release(messageHash: string, leaseId: string): Promise<void>;
  /**
   * Records the confirmation and claims the single success answer: true for exactly one caller (`reporterId`: the
   * call's lease id).
   */
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
  floorRefusal(
    payer: string,
    defer: (work: Promise<unknown>) => void,
  ): PaymentRejection | null | Promise<PaymentRejection | null>;
  /**
   * Sends the signed bytes with preflight (opening the confirmation watch first, when configured); a send the cluster
   * took lowers the settle floor's balance reading by `feePayerOutlayLamports` (its network fee and any rent it
   * fronts).
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
 * The deployment's settle ledger (SVC_SETTLE_LEDGER): `object`, Durable Objects next to the request
 * (src/settlement/settle-ledger-object.ts), or `d1`, the `settlements` table itself. `place`: where this Worker runs
 * (the request's Cloudflare location, `request.cf.colo`), which names the objects a new payment is claimed in.
 */
export function settleLedgerOf(
  config: Pick<Config, "settleLedger">,
  env: LedgerBindings,
  place?: string,
): SettleLedger {
  if (config.settleLedger === "d1") return d1Ledger(env.DB);
  if (!env.SETTLE_LEDGER)
    throw new Error("SVC_SETTLE_LEDGER=object needs the SETTLE_LEDGER Durable Object binding (wrangler.toml)");
  return objectLedger(env.SETTLE_LEDGER, place);
}

/**
 * How many ledger objects share the payments first settled at one place. Each object is one thread of SQLite
 * (docs/scale.md: ~1,000 requests/s, two per settle), so a place sustains about this many × 500 settles/s. Changing it
 * is safe at any time: D1 names the object that holds each payment, and that object keeps answering for it.
 */
export const LEDGER_OBJECTS_PER_PLACE = 8;
/** The place of a Worker whose requests carry no Cloudflare location (tests calling the ledger directly). */
const UNKNOWN_PLACE = "local";

/** The object a new payment is claimed in: the place's, picked by the message hash's first byte. */
export function ledgerObjectName(place: string | undefined, messageHash: string): string {
  const shard = Number.parseInt(messageHash.slice(0, 2), 16) % LEDGER_OBJECTS_PER_PLACE;
  return `${place && /^[A-Za-z0-9-]{1,16}$/.test(place) ? place : UNKNOWN_PLACE}/${Number.isNaN(shard) ? 0 : shard}`;
}

/** Hops a call may follow from object to object (D1 names one holder; more only when a payment moved meanwhile). */
const MAX_HOLDER_HOPS = 3;

/**
 * The ledger in Durable Objects. A new payment is claimed in its place's object (`ledgerObjectName`), which D1 then
 * names as the payment's holder; a call that reaches an object not holding the payment is answered `heldBy` and sent
 * to the holder. Every call after the claim goes straight to the holder the claim found.
 */
export function objectLedger(namespace: DurableObjectNamespace<SettleLedgerObject>, place?: string): SettleLedger {
  const holders = new Map<string, string>();
  const stubOf = (name: string) => namespace.get(namespace.idFromName(name));
  // The engine claims before it changes anything, so the holder is known; a change without a claim looks it up first.
  const holderOf = async (messageHash: string) => {
    if (!holders.has(messageHash)) await lookup(messageHash);
    const name = holders.get(messageHash)!;
    return { stub: stubOf(name), name };
  };
  async function atHolder<T extends object>(
    messageHash: string,
    call: (stub: DurableObjectStub<SettleLedgerObject>, name: string) => Promise<T | HeldElsewhere>,
  ): Promise<T> {
    let name = holders.get(messageHash) ?? ledgerObjectName(place, messageHash);
    for (let hop = 0; hop <= MAX_HOLDER_HOPS; hop++) {
      const answer = (await call(stubOf(name), name)) as T | HeldElsewhere;
      if (!("heldBy" in answer)) {
        holders.set(messageHash, name);
        return answer;
      }
      name = answer.heldBy;
    }
    throw new Error(`settlement ${messageHash}: its ledger object keeps changing`);
  }
  const lookup = (messageHash: string) =>
    atHolder(
      messageHash,
      (stub, name) => stub.lookup(messageHash, name) as Promise<{ row: SettlementRow | undefined } | HeldElsewhere>,
    );
  return {
    state: async (messageHash) => {
      const { row } = await lookup(messageHash);
      return row ? { state: row.state, signature: row.signature } : undefined;
    },
    claim: (row, riders) =>
      atHolder(
        row.messageHash,
        (stub, name) => stub.claim(row, name, riders) as Promise<SettlementClaim | HeldElsewhere>,
      ),
    get: async (messageHash) => (await lookup(messageHash)).row,
    takeOverLease: async (messageHash, leaseId, leaseMs) => {
      const { stub, name } = await holderOf(messageHash);
      return stub.takeOverLease(messageHash, leaseId, leaseMs, name);
    },
    update: async (messageHash, fromStates, changes) => {
      const { stub, name } = await holderOf(messageHash);
      return stub.update(messageHash, fromStates, changes, name);
    },
    release: async (messageHash, leaseId) => {
      const { stub, name } = await holderOf(messageHash);
      return stub.release(messageHash, leaseId, name);
    },
    reportSuccess: async (messageHash, reporterId, correlationId, nowMs) => {
      const { stub, name } = await holderOf(messageHash);
      return stub.reportSuccess(messageHash, reporterId, correlationId, nowMs, name);
    },
    recordConfirmationAfterFailedReport: async (messageHash, reporterId, nowMs) => {
      const { stub, name } = await holderOf(messageHash);
      return stub.recordConfirmationAfterFailedReport(messageHash, reporterId, nowMs, name);
    },
  };
}

export function d1Ledger(db: D1Database): SettleLedger {
  return {
    state: (messageHash) => getSettlementState(db, messageHash),
    claim: (row, riders) => claimSettlement(db, row, riders),
    get: (messageHash) => getSettlement(db, messageHash),
    takeOverLease: (messageHash, leaseId, leaseMs) => takeOverLease(db, messageHash, leaseId, leaseMs),
    update: (messageHash, fromStates, changes) => updateSettlement(db, messageHash, fromStates, changes),
    release: (messageHash, leaseId) => releaseSettlement(db, messageHash, leaseId),
    reportSuccess: (messageHash, reporterId, correlationId, nowMs) =>
      claimSuccessReport(db, messageHash, reporterId, correlationId, nowMs),
    recordConfirmationAfterFailedReport: (messageHash, reporterId, nowMs) =>
      recordConfirmationAfterFailedReport(db, messageHash, reporterId, nowMs),
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
