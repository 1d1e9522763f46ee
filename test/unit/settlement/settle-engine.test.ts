import type { Address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import type { ConfirmationOutcome, SignatureStatus } from "../../../src/chain/confirm";
import type { SendOutcome } from "../../../src/chain/send-transaction";
import { upstreamError } from "../../../src/platform/errors/catalogue";
import {
  type ClaimRider,
  runSettlement,
  type SettleablePayment,
  type Settlement,
  type SignedPayment,
} from "../../../src/settlement/settle-engine";
import type { ClaimRow, SettleChain, SettleLedger, SettlePorts } from "../../../src/settlement/settle-ports";
import type { ClaimRiders, RefusalRows } from "../../../src/store/claim-riders";
import type { SettlementClaim, SettlementRow, SettlementState } from "../../../src/store/settlements";
import { rejection } from "../../../src/x402/payment-verdict";

/**
 * The settle engine's state machine on its own: which answer each ledger row and chain reply leads to, what the
 * ledger row becomes, and when the engine may send.
 *
 * FAKES, on purpose: the ledger below is an in-memory stand-in for the D1 `settlements` table (it keeps the SQL's
 * rules: insert-if-absent, updates only from the given states, one success report) and the chain is a script of
 * replies. They exist so that each branch — a lost claim, a lapsed blockhash, a D1 fault after the chain confirmed
 * (also one that commits and loses its answer), an RPC that lags — can be reached on demand, which the real cluster and
 * D1 cannot be made to do. The real-thing proof stays in the worker tests (test/worker/settlement/ and each rail's
 * verify-settle tests under test/worker/rails/), which run the same engine inside workerd against real D1 and a real
 * local chain.
 */

const PAYER = "Buyer11111111111111111111111111111111111111" as Address;
const SELLER = "Seller1111111111111111111111111111111111111" as Address;
const SIGNATURE = "sig-of-the-fee-payer";
const HASH = "message-hash-1";

function payment(overrides: Partial<SettleablePayment> = {}): SettleablePayment {
  return {
    accepted: {
      scheme: "exact",
      amount: 120_000n,
      requirements: {
        scheme: "exact",
        network: "solana:localnet",
        amount: "120000",
        asset: "Mint111111111111111111111111111111111111111",
        payTo: "Vault11111111111111111111111111111111111111",
        maxTimeoutSeconds: 60,
        extra: { merchantWallet: SELLER },
      },
    },
    messageHash: HASH,
    payer: PAYER,
    merchantWallet: SELLER,
    funds: "token",
    recentBlockhash: "blockhash-1",
    instructionPrograms: ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],
    ...overrides,
  } as SettleablePayment;
}

const SIGNED: SignedPayment = {
  wireBytes: new Uint8Array([1, 2, 3]),
  signature: SIGNATURE,
  feePayerFeeLamports: 10_000n,
};

/**
 * In-memory `settlements` rows with the store's conditional-write rules; `failNext` makes one method throw once;
 * `reportFault` makes every success-report write fail, either before it changes anything or after it committed (the
 * answer is lost), until it is set back to "none" (the store recovered).
 */
class FakeLedger implements SettleLedger {
  rows = new Map<string, SettlementRow>();
  reports = 0;
  failNext = new Set<keyof SettleLedger>();
  reportFault: "none" | "before-commit" | "after-commit" = "none";
  /** The claim commits and its answer is lost (once). */
  claimAnswerLost = false;
  /** What the riders' refusal reads return when a claim with riders is to be refused (null: the riders take). */
  refuseRiders: RefusalRows | null = null;
  /** Each method call in order, with the chain's sends (`events` is shared with the ScriptedChain). */
  events: string[] = [];

  private trip(method: keyof SettleLedger): void {
    if (this.failNext.delete(method)) throw new Error(`D1 fault in ${method}`);
  }
  async state(messageHash: string) {
    this.trip("state");
    const row = this.rows.get(messageHash);
    return row ? { state: row.state, signature: row.signature } : undefined;
  }
  async claim(row: ClaimRow, riders?: ClaimRiders): Promise<SettlementClaim> {
    this.events.push(riders ? "claim+riders" : "claim");
    this.trip("claim");
    const existing = this.rows.get(row.messageHash);
    if (existing) return { claimed: false, existing: { ...existing } };
    if (riders && this.refuseRiders) return { claimed: false, refused: this.refuseRiders };
    if (row.paymentId) {
      const holder = [...this.rows.values()].find((r) => r.payTo === row.payTo && r.paymentId === row.paymentId);
      if (holder) return { claimed: false, paymentIdTakenBy: holder.messageHash };
    }
    this.rows.set(row.messageHash, {
      ...row,
      paymentId: row.paymentId ?? null,
      state: "submitting",
      errorReason: null,
      errorMessage: null,
      confirmedAtMs: null,
      successReportedAtMs: null,
      successCorrelationId: null,
      createdAtMs: Date.now(),
      updatedAtMs: Date.now(),
    });
    if (this.claimAnswerLost) {
      this.claimAnswerLost = false;
      throw new Error("D1_ERROR: network connection lost (the claim committed)");
    }
    return { claimed: true };
  }
  async get(messageHash: string) {
    this.trip("get");
    const row = this.rows.get(messageHash);
    return row ? { ...row } : undefined;
  }
  async takeOverLease(messageHash: string, leaseId: string, leaseMs: number) {
    this.trip("takeOverLease");
    const row = this.rows.get(messageHash);
    const now = Date.now();
    if (
      !row ||
      !["submitting", "pending"].includes(row.state) ||
      (row.leaseExpiresAtMs !== null && row.leaseExpiresAtMs >= now)
    )
      return false;
    Object.assign(row, { leaseId, leaseExpiresAtMs: now + leaseMs });
    return true;
  }
  async update(messageHash: string, fromStates: SettlementState[], changes: Partial<SettlementRow>) {
    this.trip("update");
    const row = this.rows.get(messageHash);
    if (!row || !fromStates.includes(row.state)) return false;
    Object.assign(row, changes);
    return true;
  }
  async release(messageHash: string, leaseId: string) {
    this.events.push("release");
    this.trip("release");
    const row = this.rows.get(messageHash);
    if (
      row &&
      row.leaseId === leaseId &&
      ["submitting", "pending"].includes(row.state) &&
      row.successReportedAtMs === null
    )
      this.rows.delete(messageHash);
  }
  async reportSuccess(messageHash: string, reporterId: string, correlationId: string | null, nowMs: number) {
    this.trip("reportSuccess");
    if (this.reportFault === "before-commit") throw new Error("D1_ERROR: SQLITE_BUSY (report not written)");
    const row = this.rows.get(messageHash);
    const won = row !== undefined && row.successReportedAtMs === null;
    if (won) {
      Object.assign(row, {
        state: "confirmed",
        confirmedAtMs: row.confirmedAtMs ?? nowMs,
        successReportedAtMs: nowMs,
        successCorrelationId: correlationId,
        leaseId: reporterId,
        leaseExpiresAtMs: null,
        errorReason: null,
        errorMessage: null,
      });
      this.reports++;
    }
    if (this.reportFault === "after-commit") throw new Error("D1_ERROR: network connection lost (the write committed)");
    return won;
  }
  async recordConfirmationAfterFailedReport(messageHash: string, reporterId: string, nowMs: number) {
    this.trip("recordConfirmationAfterFailedReport");
    const row = this.rows.get(messageHash);
    if (!row) return;
    const unheardOwnReport = row.leaseId === reporterId && row.successCorrelationId === null;
    Object.assign(row, {
      state: "confirmed",
      confirmedAtMs: row.confirmedAtMs ?? nowMs,
      leaseExpiresAtMs: null,
      errorReason: null,
      errorMessage: null,
      successReportedAtMs: unheardOwnReport ? null : row.successReportedAtMs,
    });
  }
}

/** The cluster as a script: each method answers from its own queue (the last answer repeats); every call is counted. */
class ScriptedChain implements SettleChain {
  sends = 0;
  statusReads = 0;
  closed = false;
  floor: ReturnType<SettleChain["floorRefusal"]> = null;
  constructor(
    private script: {
      send?: (SendOutcome | Error)[];
      confirm?: (ConfirmationOutcome | Error)[];
      status?: (SignatureStatus | Error)[];
      blockhashValid?: boolean;
      /** Runs before confirm answers: e.g. a concurrent call recording the success first. */
      whileConfirming?: () => Promise<unknown>;
      /** Told of each send (e.g. to lay the sends among the ledger's calls). */
      onSend?: () => void;
    } = {},
  ) {}
  private next<T>(queue: (T | Error)[] | undefined, fallback: T): Promise<T> {
    const answer = queue && queue.length > 1 ? queue.shift()! : (queue?.[0] ?? fallback);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }
  floorRefusal() {
    return this.floor;
  }
  send() {
    this.sends++;
    this.script.onSend?.();
    return this.next(this.script.send, { kind: "sent", signature: SIGNATURE } as SendOutcome);
  }
  async confirm() {
    await this.script.whileConfirming?.();
    return this.next(this.script.confirm, { kind: "confirmed" } as ConfirmationOutcome);
  }
  status() {
    this.statusReads++;
    return this.next(this.script.status, { kind: "not_found" } as SignatureStatus);
  }
  async isBlockhashValid() {
    return this.script.blockhashValid ?? true;
  }
  close() {
    this.closed = true;
  }
}

function settle(
  ledger: FakeLedger,
  chain: ScriptedChain,
  options: { payment?: SettleablePayment; correlationId?: string | null; paymentId?: string | null } = {},
) {
  const ports: SettlePorts = { ledger, chain };
  return runSettlement(ports, options.payment ?? payment(), SIGNED, {
    callerCorrelationId: options.correlationId ?? null,
    paymentId: options.paymentId ?? null,
  });
}

describe("settle engine: a fresh payment", () => {
  it("sends once, confirms, reports success once and leaves the row confirmed", async () => {
    const ledger = new FakeLedger();
    const chain = new ScriptedChain();
    const { settlement, afterResponse } = await settle(ledger, chain, { correlationId: "seller-1" });
    expect(settlement).toMatchObject({
      ok: true,
      signature: SIGNATURE,
      payer: PAYER,
      alreadySettled: false,
      amount: "120000",
      merchantWallet: SELLER,
    });
    expect(chain.sends).toBe(1);
    expect(chain.closed).toBe(true);
    expect(ledger.reports).toBe(1);
    expect(ledger.rows.get(HASH)).toMatchObject({
      state: "confirmed",
      successCorrelationId: "seller-1",
      network: "solana:localnet",
      scheme: "exact",
    });
    expect(afterResponse).toHaveLength(0);
  });

  it("runs the rail's first-confirmation hook only for the call that won the report, after the response", async () => {
    const ledger = new FakeLedger();
    const seen: number[] = [];
    const withHook = payment({ onFirstConfirmation: async (nowMs) => void seen.push(nowMs) });
    const first = await settle(ledger, new ScriptedChain(), { payment: withHook, correlationId: "a" });
    expect(first.afterResponse).toHaveLength(1);
    await Promise.all(first.afterResponse);
    const second = await settle(ledger, new ScriptedChain(), { payment: withHook, correlationId: "b" });
    expect(second.afterResponse).toHaveLength(0);
    expect(seen).toHaveLength(1);
  });
});

describe("settle engine: work deferred after the response", () => {
  it(
    "a deferred refresh that fails while the settle still waits on the chain is no unhandled rejection; the route " +
      "still sees it fail",
    async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", onUnhandled);
      try {
        const chain = new ScriptedChain({ whileConfirming: () => new Promise((resolve) => setTimeout(resolve, 20)) });
        const failure = new Error("getBalance: network connection lost");
        chain.floorRefusal = ((_payer: string, defer: (work: Promise<unknown>) => void) => {
          defer(Promise.reject(failure));
          return null;
        }) as ScriptedChain["floorRefusal"];
        const { settlement, afterResponse } = await settle(new FakeLedger(), chain);
        expect(settlement).toMatchObject({ ok: true });
        await new Promise((resolve) => setTimeout(resolve, 10)); // Node reports unhandled rejections after a macrotask
        expect(unhandled).toEqual([]);
        expect(afterResponse).toHaveLength(1);
        await expect(afterResponse[0]).rejects.toBe(failure);
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    },
  );
});

describe("settle engine: repeated calls for one payment", () => {
  it(
    "when two calls both see the confirmation, only the one that records it first hears success (and runs the " +
      "hook)",
    async () => {
      const ledger = new FakeLedger();
      const hookRuns: number[] = [];
      const withHook = payment({ onFirstConfirmation: async (nowMs) => void hookRuns.push(nowMs) });
      // The other call's report lands between this call's confirmation and its own report.
      const chain = new ScriptedChain({
        whileConfirming: () => ledger.reportSuccess(HASH, "other-lease", "other-call", Date.now()),
      });
      const { settlement, afterResponse } = await settle(ledger, chain, {
        payment: withHook,
        correlationId: "this-call",
      });
      expect(settlement).toMatchObject({ ok: false, reason: "duplicate_settlement", signature: SIGNATURE });
      expect(afterResponse).toHaveLength(0);
      expect(ledger.rows.get(HASH)).toMatchObject({ successCorrelationId: "other-call" });
      expect(ledger.reports).toBe(1);
    },
  );

  it(
    "answers success again only to the seller's own retry (same X-Correlation-ID), a duplicate to anyone " + "else",
    async () => {
      const ledger = new FakeLedger();
      await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });

      const retry = await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });
      expect(retry.settlement).toMatchObject({ ok: true, alreadySettled: true, signature: SIGNATURE });

      const replay = await settle(ledger, new ScriptedChain(), { correlationId: "someone-else" });
      expect(replay.settlement).toMatchObject({
        ok: false,
        reason: "duplicate_settlement",
        signature: SIGNATURE,
        payer: PAYER,
      });
      expect((replay.settlement as { message: string }).message).toContain(`GET /settlements/${SIGNATURE}`);

      const anonymous = await settle(ledger, new ScriptedChain(), { correlationId: null });
      expect(anonymous.settlement).toMatchObject({ ok: false, reason: "duplicate_settlement" });
      expect(ledger.reports).toBe(1);
    },
  );

  it("does not repeat success to the same correlation id once maxTimeoutSeconds has passed", async () => {
    const ledger = new FakeLedger();
    await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });
    ledger.rows.get(HASH)!.successReportedAtMs = Date.now() - 61_000;
    const late = await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });
    expect(late.settlement).toMatchObject({ ok: false, reason: "duplicate_settlement" });
  });

  it(
    "hears pending, without sending, while another call holds the lease of a payment the cluster has not " + "seen",
    async () => {
      const ledger = new FakeLedger();
      // Another isolate claimed it and is still within its lease.
      await ledger.claim({ ...claimRowFor(payment()), leaseId: "other", leaseExpiresAtMs: Date.now() + 15_000 });
      const chain = new ScriptedChain({ status: [{ kind: "not_found" }] });
      const { settlement } = await settle(ledger, chain, {
        payment: payment({ beforeFirstSend: async () => ({ ok: true }) }),
      });
      expect(settlement).toMatchObject({ ok: false, pending: true, reason: "settlement_pending" });
      expect(settlement).not.toHaveProperty("signature");
      expect(chain.sends).toBe(0);
      expect(chain.statusReads).toBe(1);
    },
  );

  it("takes over a lapsed lease and re-sends the same bytes while the blockhash lives", async () => {
    const ledger = new FakeLedger();
    await ledger.claim({ ...claimRowFor(payment()), leaseId: "crashed", leaseExpiresAtMs: Date.now() - 1 });
    const chain = new ScriptedChain({ status: [{ kind: "not_found" }] });
    const { settlement } = await settle(ledger, chain, {
      payment: payment({ beforeFirstSend: async () => ({ ok: true }) }),
    });
    expect(settlement).toMatchObject({ ok: true, signature: SIGNATURE });
    expect(chain.sends).toBe(1);
  });

  it("calls a lapsed payment whose blockhash is gone expired (final), after one more status read", async () => {
    const ledger = new FakeLedger();
    await ledger.claim({ ...claimRowFor(payment()), leaseId: "crashed", leaseExpiresAtMs: Date.now() - 1 });
    const chain = new ScriptedChain({ status: [{ kind: "not_found" }], blockhashValid: false });
    const { settlement } = await settle(ledger, chain, {
      payment: payment({ beforeFirstSend: async () => ({ ok: true }) }),
    });
    expect(settlement).toMatchObject({ ok: false, reason: "blockhash_expired", code: "BLOCKHASH_EXPIRED" });
    expect(chain.sends).toBe(0);
    expect(chain.statusReads).toBe(2);
    expect(ledger.rows.get(HASH)).toMatchObject({ state: "failed", errorReason: "blockhash_expired" });
  });

  it("reports a payment another call left pending once the chain says it confirmed", async () => {
    const ledger = new FakeLedger();
    const first = await settle(ledger, new ScriptedChain({ confirm: [{ kind: "timeout" }] }), {
      correlationId: "seller-1",
    });
    expect(first.settlement).toMatchObject({ ok: false, pending: true, signature: SIGNATURE });
    expect(ledger.rows.get(HASH)).toMatchObject({ state: "pending", leaseExpiresAtMs: null });

    const chain = new ScriptedChain({ status: [{ kind: "confirmed" }] });
    const second = await settle(ledger, chain, {
      payment: payment({ beforeFirstSend: async () => ({ ok: true }) }),
      correlationId: "seller-1",
    });
    expect(second.settlement).toMatchObject({ ok: true, alreadySettled: false, signature: SIGNATURE });
    expect(chain.sends).toBe(0);
    expect(ledger.reports).toBe(1);
  });
});

describe("settle engine: refusals", () => {
  it(
    "turns a preflight refusal into the rail-neutral reason and gives the row back (the payment may be tried " +
      "again)",
    async () => {
      const ledger = new FakeLedger();
      const chain = new ScriptedChain({
        send: [{ kind: "rejected", err: { InstructionError: [0, { Custom: 1 }] }, logs: [] }],
      });
      const { settlement } = await settle(ledger, chain);
      expect(settlement).toEqual({
        ok: false,
        reason: "insufficient_funds",
        message: "The buyer does not hold enough tokens for this payment",
        payer: PAYER,
      });
      expect(ledger.rows.has(HASH)).toBe(false);

      const sol = await settle(
        new FakeLedger(),
        new ScriptedChain({ send: [{ kind: "rejected", err: { InstructionError: [0, { Custom: 1 }] }, logs: [] }] }),
        {
          payment: payment({ funds: "sol", instructionPrograms: ["11111111111111111111111111111111"] }),
        },
      );
      expect(sol.settlement).toMatchObject({
        reason: "insufficient_funds",
        message: "The buyer does not hold enough SOL for this payment",
      });
    },
  );

  it(
    "treats BlockhashNotFound on send as expired only when the signature is nowhere, and records it as " + "final",
    async () => {
      const ledger = new FakeLedger();
      const chain = new ScriptedChain({
        send: [{ kind: "rejected", err: "BlockhashNotFound", logs: [] }],
        status: [{ kind: "not_found" }],
      });
      const { settlement } = await settle(ledger, chain);
      expect(settlement).toEqual({
        ok: false,
        reason: "blockhash_expired",
        message:
          "The payment was never confirmed and its blockhash has expired; retry build: rebuild and sign the payment " +
          "again",
        code: "BLOCKHASH_EXPIRED",
        payer: PAYER,
      });
      expect(ledger.rows.get(HASH)).toMatchObject({ state: "failed", errorReason: "blockhash_expired" });

      // A later call repeats the stored failure with its code, without touching the chain.
      const again = new ScriptedChain();
      const repeat = await settle(ledger, again);
      expect(repeat.settlement).toMatchObject({ ok: false, reason: "blockhash_expired", code: "BLOCKHASH_EXPIRED" });
      expect(again.statusReads).toBe(0);
    },
  );

  it("reports a BlockhashNotFound send whose signature did land as the success it is", async () => {
    const ledger = new FakeLedger();
    const chain = new ScriptedChain({
      send: [{ kind: "rejected", err: "BlockhashNotFound", logs: [] }],
      status: [{ kind: "confirmed" }],
    });
    expect((await settle(ledger, chain)).settlement).toMatchObject({ ok: true, signature: SIGNATURE });
  });

  it("answers pending, not expired, when the status after BlockhashNotFound cannot be read", async () => {
    const chain = new ScriptedChain({
      send: [{ kind: "rejected", err: "BlockhashNotFound", logs: [] }],
      status: [upstreamError("rpc down")],
    });
    const { settlement } = await settle(new FakeLedger(), chain);
    expect(settlement).toMatchObject({ ok: false, pending: true });
    expect(settlement).not.toHaveProperty("signature");
  });

  it("reports an on-chain failure with its signature (the fee was paid) and records the row failed", async () => {
    const ledger = new FakeLedger();
    const chain = new ScriptedChain({
      confirm: [{ kind: "failed", err: { InstructionError: [0, { Custom: 6001 }] } }],
    });
    const { settlement } = await settle(ledger, chain);
    // It executed (no simulation refused it): its own reason, and the message says the fee was paid.
    expect(settlement).toMatchObject({ ok: false, reason: "settlement_failed", signature: SIGNATURE, payer: PAYER });
    expect((settlement as { message: string }).message).toMatch(
      /executed and failed on chain \(instruction 0 failed: .*6001.*\); its network fee was paid/,
    );
    expect(ledger.rows.get(HASH)).toMatchObject({ state: "failed", errorReason: "settlement_failed" });
  });

  it("refuses a different payment under a used payment-identifier id with 409, before anything is sent", async () => {
    const ledger = new FakeLedger();
    await settle(ledger, new ScriptedChain(), { paymentId: "order-42" });
    const chain = new ScriptedChain();
    const { settlement } = await settle(ledger, chain, {
      payment: payment({ messageHash: "another-payment" }),
      paymentId: "order-42",
    });
    expect(settlement).toMatchObject({
      ok: false,
      reason: "payment_identifier_conflict",
      code: "CONFLICT",
      payer: PAYER,
    });
    expect(chain.sends).toBe(0);
  });

  it("gives the row back, sending nothing, when the rail's before-send work refuses", async () => {
    const ledger = new FakeLedger();
    const chain = new ScriptedChain();
    const refusing = payment({ beforeFirstSend: async () => rejection("vault_provisioning_failed", "no vault today") });
    const { settlement } = await settle(ledger, chain, { payment: refusing });
    expect(settlement).toMatchObject({ ok: false, reason: "vault_provisioning_failed", payer: PAYER });
    expect(chain.sends).toBe(0);
    expect(ledger.rows.has(HASH)).toBe(false);
  });

  it(
    "below the fee payer's settle floor sends nothing new, but still answers a payment already in the " + "ledger",
    async () => {
      const floorRefusal = rejection("fee_payer_below_settle_floor", "refill me", { code: "SERVICE_UNAVAILABLE" });
      const ledger = new FakeLedger();
      const low = new ScriptedChain();
      low.floor = floorRefusal;
      expect((await settle(ledger, low)).settlement).toBe(floorRefusal);
      expect(low.sends).toBe(0);

      await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });
      const stillLow = new ScriptedChain();
      stillLow.floor = floorRefusal;
      expect((await settle(ledger, stillLow, { correlationId: "seller-1" })).settlement).toMatchObject({
        ok: true,
        alreadySettled: true,
      });
    },
  );
});

describe("settle engine: the claim's commit (riders) and paid-is-paid", () => {
  const rider = (explain: ClaimRider["explain"]): ClaimRider => ({
    writes: [{ sql: "INSERT INTO bookings VALUES (?1)", binds: ["b"] }],
    holds: { sql: "EXISTS (SELECT 1 FROM bookings WHERE id = ?1)", binds: ["b"] },
    undo: [],
    reads: [{ sql: "SELECT 1 AS seen", binds: [] }],
    explain,
  });

  it("the claim, with its riders, comes before the send", async () => {
    const ledger = new FakeLedger();
    const chain = new ScriptedChain({ onSend: () => ledger.events.push("send") });
    const { settlement } = await settle(ledger, chain, { payment: payment({ riders: [rider(() => null)] }) });
    expect(settlement).toMatchObject({ ok: true });
    expect(ledger.events.slice(0, 2)).toEqual(["claim+riders", "send"]);
  });

  it("a rider's refusal (a cap) answers in the rider's words, and nothing is sent", async () => {
    const ledger = new FakeLedger();
    ledger.refuseRiders = [{ seen: 1 }, { figures: 2 }];
    const chain = new ScriptedChain();
    const seen: RefusalRows[] = [];
    const first = rider((rows) => {
      seen.push(rows);
      return null; // not this one's doing
    });
    const second = rider((rows) => {
      seen.push(rows);
      return rejection("fee_payer_buyer_spend_per_day_exceeded", "the strangers' pool is spent", {
        code: "SERVICE_UNAVAILABLE",
      });
    });
    const { settlement } = await settle(ledger, chain, { payment: payment({ riders: [first, second] }) });
    expect(settlement).toEqual({
      ok: false,
      reason: "fee_payer_buyer_spend_per_day_exceeded",
      message: "the strangers' pool is spent",
      code: "SERVICE_UNAVAILABLE",
      payer: PAYER,
    });
    // Each rider reads its own slice of the refusal rows.
    expect(seen).toEqual([[{ seen: 1 }], [{ figures: 2 }]]);
    expect(chain.sends).toBe(0);
    expect(ledger.rows.size).toBe(0);
  });

  it("a failure the chain recorded is answered again with its signature; one that expired unseen without", async () => {
    const failed = new FakeLedger();
    await settle(
      failed,
      new ScriptedChain({ confirm: [{ kind: "failed", err: { InstructionError: [0, { Custom: 1 }] } }] }),
    );
    const retry = await settle(failed, new ScriptedChain());
    expect(retry.settlement).toMatchObject({ ok: false, reason: "insufficient_funds", signature: SIGNATURE });

    const expired = new FakeLedger();
    await settle(expired, new ScriptedChain({ send: [{ kind: "rejected", err: "BlockhashNotFound", logs: [] }] }));
    expect(expired.rows.get(HASH)).toMatchObject({ state: "failed", errorReason: "blockhash_expired" });
    const again = await settle(expired, new ScriptedChain());
    expect(again.settlement).toMatchObject({ ok: false, reason: "blockhash_expired" });
    expect(again.settlement).not.toHaveProperty("signature");
  });

  it("a preflight refusal gives back only this call's row: another call's lease is left alone", async () => {
    const ledger = new FakeLedger();
    const preflightRefused = () =>
      new ScriptedChain({ send: [{ kind: "rejected", err: { InstructionError: [0, { Custom: 1 }] }, logs: [] }] });
    await settle(ledger, preflightRefused());
    expect(ledger.rows.has(HASH)).toBe(false);
    // A row another call holds (its lease) is not released by a call that does not hold it.
    await ledger.claim({ ...claimRowFor(payment()), leaseId: "other", leaseExpiresAtMs: Date.now() + 15_000 });
    await ledger.release(HASH, "not-the-holder");
    expect(ledger.rows.get(HASH)).toMatchObject({ leaseId: "other" });
  });
});

describe("settle engine: faults", () => {
  it("sends nothing and answers 503 settlement_ledger_unavailable when the claim cannot be written", async () => {
    const ledger = new FakeLedger();
    ledger.failNext.add("claim");
    const chain = new ScriptedChain();
    const { settlement, afterResponse } = await settle(ledger, chain);
    expect(settlement).toMatchObject({
      ok: false,
      reason: "settlement_ledger_unavailable",
      code: "SERVICE_UNAVAILABLE",
      payer: PAYER,
    });
    expect(settlement).not.toHaveProperty("signature");
    expect(chain.sends).toBe(0);
    await Promise.all(afterResponse);
    expect(ledger.rows.size).toBe(0);
    // A retry claims and settles the payment once.
    expect((await settle(ledger, chain)).settlement).toMatchObject({ ok: true, signature: SIGNATURE });
    expect(chain.sends).toBe(1);
  });

  it(
    "a claim that committed and lost its answer: nothing sent, and its row given back after the answer so a retry " +
      "need not wait for the lease",
    async () => {
      const ledger = new FakeLedger();
      ledger.claimAnswerLost = true;
      const chain = new ScriptedChain();
      const { settlement, afterResponse } = await settle(ledger, chain);
      expect(settlement).toMatchObject({ ok: false, reason: "settlement_ledger_unavailable" });
      expect(chain.sends).toBe(0);
      expect(ledger.events).toEqual(["claim", "release"]); // the committed row goes back under this call's lease
      expect(afterResponse).toHaveLength(1);
      await Promise.all(afterResponse);
      expect(ledger.rows.has(HASH)).toBe(false);
      expect((await settle(ledger, chain)).settlement).toMatchObject({ ok: true });
      expect(chain.sends).toBe(1);
    },
  );

  it(
    "answers pending with the signature when the send was dropped (the cluster may have it), never a " + "failure",
    async () => {
      const ledger = new FakeLedger();
      const { settlement } = await settle(ledger, new ScriptedChain({ send: [upstreamError("socket hang up")] }));
      expect(settlement).toMatchObject({ ok: false, pending: true, signature: SIGNATURE });
      expect(ledger.rows.get(HASH)).toMatchObject({ state: "pending" });
    },
  );
});

describe("settle engine: a success report the ledger cannot record is never answered as success", () => {
  // D1 cannot be made to fail on demand in these tests' worker twin for every interleaving, nor to commit a write and
  // lose its answer at a chosen moment: the fake ledger's `reportFault` does both
  // (test/worker/settlement/faults.test.ts repeats the scenarios against the real D1 through a wrapper around the
  // binding).

  it(
    "answers 202-pending with the signature when the report write fails; the catch-up records the confirmation and " +
      "a retry hears the one success",
    async () => {
      const ledger = new FakeLedger();
      ledger.reportFault = "before-commit";
      const hookRuns: number[] = [];
      const withHook = payment({ onFirstConfirmation: async (nowMs) => void hookRuns.push(nowMs) });
      const { settlement, afterResponse } = await settle(ledger, new ScriptedChain(), {
        payment: withHook,
        correlationId: "seller-1",
      });
      expect(settlement).toMatchObject({
        ok: false,
        pending: true,
        reason: "settlement_pending",
        signature: SIGNATURE,
        payer: PAYER,
      });
      expect((settlement as { message: string }).message).toContain(`Transaction ${SIGNATURE} is confirmed`);
      expect(ledger.rows.get(HASH)).toMatchObject({ state: "submitting", successReportedAtMs: null });

      // After the response: the row learns the confirmation (no success reported), and the rail's hook runs.
      expect(afterResponse).toHaveLength(1);
      await Promise.all(afterResponse);
      expect(ledger.rows.get(HASH)).toMatchObject({
        state: "confirmed",
        successReportedAtMs: null,
        successCorrelationId: null,
      });
      expect(hookRuns).toHaveLength(1);

      ledger.reportFault = "none";
      const chain = new ScriptedChain();
      const retry = await settle(ledger, chain, { payment: withHook, correlationId: "seller-1" });
      expect(retry.settlement).toMatchObject({ ok: true, alreadySettled: false, signature: SIGNATURE });
      expect(chain.statusReads).toBe(0); // the row already says confirmed
      expect(ledger.rows.get(HASH)).toMatchObject({ successCorrelationId: "seller-1" });
    },
  );

  const CASES = [
    { fault: "before-commit", callers: "sellers with their own X-Correlation-ID" },
    { fault: "before-commit", callers: "callers without X-Correlation-ID (the official middleware)" },
    { fault: "after-commit", callers: "sellers with their own X-Correlation-ID" },
    { fault: "after-commit", callers: "callers without X-Correlation-ID (the official middleware)" },
  ] as const;

  for (const { fault, callers } of CASES) {
    it(
      `10 concurrent settles of one payment, report writes ` +
        `failing ${fault}, ${callers}: no success while it fails, exactly one once the store answers`,
      async () => {
        const ledger = new FakeLedger();
        ledger.reportFault = fault;
        const named = callers.startsWith("sellers");
        const ids = Array.from({ length: 10 }, (_, i) => (named ? `seller-call-${i}` : null));

        const whileFailing = await concurrentSettles(ledger, ids);
        expect(successesOf(whileFailing)).toHaveLength(0);
        for (const answer of whileFailing) {
          // Pending with the signature, or (after a committed report) a duplicate naming it: never success.
          expect(answer).toMatchObject({ ok: false, signature: SIGNATURE });
          expect(["settlement_pending", "duplicate_settlement"]).toContain((answer as { reason: string }).reason);
        }
        const committedFor = ledger.rows.get(HASH)!.successCorrelationId;
        if (fault === "before-commit")
          expect(ledger.rows.get(HASH)).toMatchObject({ state: "confirmed", successReportedAtMs: null });
        // one seller's write committed unheard
        if (fault === "after-commit" && named) expect(ids).toContain(committedFor);
        // Nobody can ever hear a committed report without a correlation id: it was withdrawn after the response.
        if (fault === "after-commit" && !named)
          expect(ledger.rows.get(HASH)).toMatchObject({ state: "confirmed", successReportedAtMs: null });

        // The store answers again; every caller retries (same body, same X-Correlation-ID).
        ledger.reportFault = "none";
        const afterRecovery = await concurrentSettles(ledger, ids);
        const won = successesOf(afterRecovery);
        expect(won).toHaveLength(1);
        for (const answer of afterRecovery)
          if (!answer.ok) expect(answer).toMatchObject({ reason: "duplicate_settlement", signature: SIGNATURE });
        // The seller whose lost write did commit is the one that hears it, on its own retry.
        if (fault === "after-commit" && named) expect(ids[afterRecovery.indexOf(won[0]!)]).toBe(committedFor);

        // And a later replay by anyone else is a duplicate.
        const replay = await settle(ledger, new ScriptedChain({ status: [{ kind: "confirmed" }] }), {
          correlationId: "someone-else",
        });
        expect(replay.settlement).toMatchObject({ ok: false, reason: "duplicate_settlement" });
      },
    );
  }

  it(
    "a seller whose committed-but-unanswered report is its own hears success on its retry, only with its own " +
      "X-Correlation-ID",
    async () => {
      const ledger = new FakeLedger();
      ledger.reportFault = "after-commit";
      const first = await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });
      expect(first.settlement).toMatchObject({ ok: false, pending: true, signature: SIGNATURE });
      await Promise.all(first.afterResponse);
      expect(ledger.rows.get(HASH)).toMatchObject({ successCorrelationId: "seller-1" }); // kept for that seller's retry
      ledger.reportFault = "none";
      const other = await settle(ledger, new ScriptedChain(), { correlationId: null });
      expect(other.settlement).toMatchObject({ ok: false, reason: "duplicate_settlement" });
      const retry = await settle(ledger, new ScriptedChain(), { correlationId: "seller-1" });
      expect(retry.settlement).toMatchObject({ ok: true, signature: SIGNATURE });
    },
  );
});

/**
 * Settles one payment from several callers at once and lets each call's after-response work finish (as waitUntil does).
 */
async function concurrentSettles(ledger: FakeLedger, correlationIds: (string | null)[]) {
  const outcomes = await Promise.all(
    correlationIds.map((id) =>
      settle(ledger, new ScriptedChain({ status: [{ kind: "confirmed" }] }), { correlationId: id }),
    ),
  );
  await Promise.all(outcomes.flatMap((outcome) => outcome.afterResponse));
  return outcomes.map((outcome) => outcome.settlement);
}

function successesOf(settlements: Settlement[]): Settlement[] {
  return settlements.filter((settlement) => settlement.ok);
}

function claimRowFor(p: SettleablePayment): ClaimRow {
  return {
    messageHash: p.messageHash,
    signature: SIGNATURE,
    scheme: p.accepted.scheme,
    network: p.accepted.requirements.network,
    payer: p.payer,
    payTo: p.accepted.requirements.payTo,
    merchantWallet: p.merchantWallet,
    asset: p.accepted.requirements.asset,
    amount: p.accepted.amount.toString(),
    lastValidBlockHeight: null,
    maxTimeoutSeconds: p.accepted.requirements.maxTimeoutSeconds,
    leaseId: "x",
    leaseExpiresAtMs: null,
  };
}
