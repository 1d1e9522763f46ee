import { env } from "cloudflare:test";
import { getTransferInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { lamportsOf, sendAs, tokenBalance } from "../../support/workerd/chain";
import { usdcAccountOf } from "../../support/workerd/payment-fixtures";
import { sellerWithVault, settleConcurrently } from "../../support/workerd/vault-seller";
import { call, callWithEnv } from "../../support/workerd/worker-http";

/**
 * Issue 8 item 4: honest answers under RPC and database faults. The RPC faults come from a real proxy in front
 * of the real local chain (test/support/node/rpc-fault-proxy.ts); each test has its own fault scenario. These run the
 * D1 ledger (SVC_SETTLE_LEDGER=d1), whose writes the wrappers below can fail; the same scenarios against the
 * Durable Object ledger are in ledger-object.test.ts.
 */

/**
 * workerd's local D1 cannot be made to fail on demand, so a thin wrapper in front of the real binding fails the first
 * statement that `matches`, once; everything else reaches the real database.
 */
function failingOnce(matches: (sql: string) => boolean, message: string): { db: D1Database; failed: () => boolean } {
  let failuresLeft = 1;
  const db = new Proxy(env.DB, {
    get(target, property) {
      if (property !== "prepare") return Reflect.get(target, property, target);
      return (sql: string) => {
        if (matches(sql) && failuresLeft-- > 0) throw new Error(`D1_ERROR: ${message}`);
        return target.prepare(sql);
      };
    },
  });
  return { db, failed: () => failuresLeft <= 0 };
}

describe("settle under RPC faults: once the cluster may have the transaction, only success or pending", () => {
  it(
    "a dropped sendTransaction answer → 202 settlement_pending with the signature; a retry finds out at " + "once",
    async () => {
      const s = await sellerWithVault("drop-send", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      await s.setFaults({ dropSendAnswer: true });
      const dropped = await s.f.post("/settle", body);
      expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
      expect(dropped.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
      expect(dropped.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

      await s.setFaults({});
      const startedAt = Date.now();
      const retry = await s.f.post("/settle", body);
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body).toMatchObject({ success: true, transaction: dropped.body.transaction });
      // one status call, not a lease wait plus a confirmation budget
      expect(Date.now() - startedAt).toBeLessThan(3_000);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n); // exactly one transfer for this payment
    },
  );

  it("status polling that fails after the send → 202 with the signature (never a failure without one)", async () => {
    const s = await sellerWithVault("status-fail", "d1");
    const body = await s.f.signedBody(s.buyer, s.line);
    await s.setFaults({ failMethods: ["getSignatureStatuses"] });
    const pending = await s.f.post("/settle", body);
    expect(pending.status, JSON.stringify(pending.body)).toBe(202);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    expect(pending.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    // The RPC is now down altogether: a retry still answers pending with the signature, not a bare failure.
    await s.setFaults({ down: true });
    const whileDown = await s.f.post("/settle", body);
    expect(whileDown.status, JSON.stringify(whileDown.body)).toBe(202);
    expect(whileDown.body).toMatchObject({ errorReason: "settlement_pending", transaction: pending.body.transaction });

    await s.setFaults({});
    const recovered = await s.f.post("/settle", body);
    expect(recovered.body, JSON.stringify(recovered.body)).toMatchObject({
      success: true,
      transaction: pending.body.transaction,
    });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });
});

/**
 * Like `failingOnce`, for as long as the fault lasts: every statement that `matches` fails, either before it reaches
 * the real database or after the real database committed it (the answer is lost on the way back), until `heal()`.
 * workerd's local D1 cannot be made to fail by itself; everything else, and the committed writes, are the real D1.
 */
function failingWrites(matches: (sql: string) => boolean, mode: "before-commit" | "after-commit") {
  let healed = false;
  const fault = () => new Error(`D1_ERROR: injected ${mode} failure`);
  const failing = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        if (property === "bind") return (...values: unknown[]) => failing(target.bind(...values));
        if (property !== "run") {
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async () => {
          if (healed) return target.run();
          if (mode === "before-commit") throw fault();
          await target.run();
          throw fault();
        };
      },
    });
  const db = new Proxy(env.DB, {
    get(target, property) {
      if (property !== "prepare") return Reflect.get(target, property, target);
      return (sql: string) => (matches(sql) ? failing(target.prepare(sql)) : target.prepare(sql));
    },
  });
  return {
    db,
    heal: () => {
      healed = true;
    },
  };
}

/** The statement that claims the one success report (store/settlements.ts claimSuccessReport). */
const SUCCESS_REPORT_SQL = (sql: string) => sql.includes("success_reported_at_ms = ?1");
/** That statement and the ledger catch-up after a failed report: every write that would record the confirmation. */
const CONFIRMATION_WRITES_SQL = (sql: string) => /^\s*UPDATE settlements SET state = 'confirmed'/.test(sql);

function settlementRow(signature: string) {
  return env.DB.prepare(
    "SELECT state, success_reported_at_ms, success_correlation_id FROM settlements WHERE signature = ?",
  )
    .bind(signature)
    .first<{ state: string; success_reported_at_ms: number | null; success_correlation_id: string | null }>();
}

describe("issue 36 §0: one success even when the ledger cannot record the success report", () => {
  const SELLER_IDS = Array.from({ length: 10 }, (_, i) => `seller-call-${i}-${crypto.randomUUID()}`);

  it(
    "report writes failing: 10 concurrent settles → all 202 pending, none success; /settlements says confirmed; " +
      "once D1 answers exactly one retry hears success",
    async () => {
      const s = await sellerWithVault("report-fault", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      // Neither the report nor the catch-up after it can be written while the fault lasts.
      const fault = failingWrites(CONFIRMATION_WRITES_SQL, "before-commit");
      s.f.setEnv({ DB: fault.db });
      const whileFailing = await settleConcurrently(s, body, SELLER_IDS);
      expect(whileFailing.filter((r) => r.body.success === true)).toHaveLength(0);
      const signature = whileFailing.find((r) => r.body.transaction)?.body.transaction as string;
      expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      for (const r of whileFailing) {
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        expect(r.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
        if (r.body.transaction) expect(r.body.transaction).toBe(signature);
      }
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n); // the payment landed, once

      // The ledger does not know yet; /settlements tells the truth from the chain.
      expect((await settlementRow(signature))?.state).not.toBe("confirmed");
      const status = await call(`/settlements/${signature}`);
      expect(status.status, JSON.stringify(status.body)).toBe(200);
      expect(status.body).toMatchObject({ signature, state: "confirmed", amount: "100000", settledAt: null });

      fault.heal();
      const recovered = await settleConcurrently(s, body, SELLER_IDS);
      const won = recovered.filter((r) => r.body.success === true);
      expect(won, JSON.stringify(recovered.map((r) => r.body))).toHaveLength(1);
      expect(won[0]!.body.transaction).toBe(signature);
      for (const r of recovered)
        if (r.body.success !== true)
          expect(r.body).toMatchObject({ errorReason: "duplicate_settlement", transaction: signature });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it(
    "report writes that commit and lose their answer, sellers with X-Correlation-ID: none success while it fails; " +
      "the seller whose write committed hears it on its retry, nobody else",
    async () => {
      const s = await sellerWithVault("report-lost-answer", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      const fault = failingWrites(SUCCESS_REPORT_SQL, "after-commit");
      s.f.setEnv({ DB: fault.db });
      const whileFailing = await settleConcurrently(s, body, SELLER_IDS);
      expect(whileFailing.filter((r) => r.body.success === true)).toHaveLength(0);
      for (const r of whileFailing)
        expect(["settlement_pending", "duplicate_settlement"], JSON.stringify(r.body)).toContain(r.body.errorReason);
      const signature = whileFailing.find((r) => r.body.transaction)?.body.transaction as string;
      const committedFor = (await settlementRow(signature))?.success_correlation_id;
      expect(SELLER_IDS).toContain(committedFor);

      fault.heal();
      // the calls' ledger catch-ups run right after their responses
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The committed report stays that seller's: anyone else, first in line, is a duplicate.
      const stranger = await s.f.post("/settle", body, { "X-Correlation-ID": `stranger-${crypto.randomUUID()}` });
      expect(stranger.body, JSON.stringify(stranger.body)).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      const anonymous = await s.f.post("/settle", body);
      expect(anonymous.body, JSON.stringify(anonymous.body)).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      const recovered = await settleConcurrently(s, body, SELLER_IDS);
      const won = recovered.filter((r) => r.body.success === true);
      expect(won, JSON.stringify(recovered.map((r) => r.body))).toHaveLength(1);
      expect(SELLER_IDS[recovered.indexOf(won[0]!)]).toBe(committedFor);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it(
    "report writes that commit and lose their answer, callers without X-Correlation-ID: the unheard report is " +
      "withdrawn, and once D1 answers exactly one retry hears success",
    async () => {
      const s = await sellerWithVault("report-lost-anonymous", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      const fault = failingWrites(SUCCESS_REPORT_SQL, "after-commit");
      s.f.setEnv({ DB: fault.db });
      const anonymous = SELLER_IDS.map(() => null);
      const whileFailing = await settleConcurrently(s, body, anonymous);
      expect(whileFailing.filter((r) => r.body.success === true)).toHaveLength(0);
      const signature = whileFailing.find((r) => r.body.transaction)?.body.transaction as string;

      // After the responses, the catch-up withdraws the report nobody can hear (no correlation id to repeat it to).
      let row = await settlementRow(signature);
      for (let i = 0; i < 20 && row?.success_reported_at_ms !== null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        row = await settlementRow(signature);
      }
      expect(row).toMatchObject({ state: "confirmed", success_reported_at_ms: null });

      fault.heal();
      const recovered = await settleConcurrently(s, body, anonymous);
      expect(
        recovered.filter((r) => r.body.success === true),
        JSON.stringify(recovered.map((r) => r.body)),
      ).toHaveLength(1);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );
});

describe("settle when the ledger claim fails: the claim comes before the send, so nothing is sent", () => {
  it(
    "→ 503 settlement_ledger_unavailable without a signature, the buyer's tokens and the fee payer's lamports " +
      "untouched; a retry settles once",
    async () => {
      const s = await sellerWithVault("claim-fault", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      // The ledger claim (the INSERT into settlements) fails once.
      const claimFault = failingOnce((sql) => /^\s*insert into "?settlements"?\s/i.test(sql), "injected claim failure");
      s.f.setEnv({ DB: claimFault.db });
      const feePayerBefore = await lamportsOf(s.f.feePayer);
      const first = await s.f.post("/settle", body);
      expect(first.status, JSON.stringify(first.body)).toBe(503);
      expect(first.body).toMatchObject({
        success: false,
        errorReason: "settlement_ledger_unavailable",
        transaction: "",
      });
      expect(claimFault.failed()).toBe(true);
      expect(await tokenBalance(s.vaultAta)).toBe(100_000n);
      expect(await lamportsOf(s.f.feePayer)).toBe(feePayerBefore);

      const retry = await s.f.post("/settle", body);
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body).toMatchObject({ success: true });
      const replay = await s.f.post("/settle", body);
      expect(replay.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n); // one transfer for this payment
    },
  );
});

/**
 * The claim's batch (its riders and the INSERT into settlements) reaches the real D1 and commits, once, but its answer
 * is lost on the way back (the caller sees a fault); every other batch, and every later claim, is the real database's.
 */
function claimCommittedAnswerLostOnce(): { db: D1Database; lost: () => boolean } {
  let lost = false;
  const isClaim = (sql: string) => /^\s*insert into "?settlements"?\s/i.test(sql);
  const claims = new WeakSet<D1PreparedStatement>();
  const db = new Proxy(env.DB, {
    get(target, property) {
      if (property === "prepare")
        return (sql: string) => {
          const statement = target.prepare(sql);
          if (!isClaim(sql)) return statement;
          return new Proxy(statement, {
            get(inner, name) {
              if (name !== "bind") return Reflect.get(inner, name, inner);
              return (...values: unknown[]) => {
                const bound = inner.bind(...values);
                claims.add(bound);
                return bound;
              };
            },
          });
        };
      if (property === "batch")
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements);
          if (!lost && statements.some((statement) => claims.has(statement))) {
            lost = true;
            throw new Error("D1_ERROR: injected lost answer after commit");
          }
          return results;
        };
      return Reflect.get(target, property, target);
    },
  });
  return { db, lost: () => lost };
}

describe("settle when the ledger claim commits but its answer is lost", () => {
  it(
    "nothing is sent, the row the call did write is given back after the answer (with what it booked): a retry " +
      "settles at once and hears the one success",
    async () => {
      const s = await sellerWithVault("claim-answer-lost", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      const claimFault = claimCommittedAnswerLostOnce();
      s.f.setEnv({ DB: claimFault.db });
      const first = await s.f.post("/settle", body);
      expect(first.status, JSON.stringify(first.body)).toBe(503);
      expect(first.body).toMatchObject({
        success: false,
        errorReason: "settlement_ledger_unavailable",
        transaction: "",
      });
      expect(claimFault.lost()).toBe(true);
      expect(await tokenBalance(s.vaultAta)).toBe(100_000n);

      // The release after the answer gives the committed row back, and voids the fee it booked.
      const deadline = Date.now() + 3_000;
      let row = await env.DB.prepare("SELECT state FROM settlements WHERE payer = ? AND state = 'submitting'")
        .bind(s.buyer.address)
        .first();
      while (row && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        row = await env.DB.prepare("SELECT state FROM settlements WHERE payer = ? AND state = 'submitting'")
          .bind(s.buyer.address)
          .first();
      }
      expect(row).toBeNull();
      const bookings = await env.DB.prepare(
        "SELECT state FROM fee_payer_exposure WHERE payer = ? AND kind = 'payment_fee'",
      )
        .bind(s.buyer.address)
        .all<{ state: string }>();
      // the vault-creating settle's, and this one's
      expect(bookings.results.map((b) => b.state).sort()).toEqual(["spent", "voided"]);

      // Well inside the first call's 15 s submit lease: the retry claims afresh.
      const retry = await s.f.post("/settle", body);
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body).toMatchObject({ success: true });
      const replay = await s.f.post("/settle", body);
      expect(replay.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n); // one transfer for this payment
    },
  );
});

/** GET /settlements/{signature} through `f`'s bindings, polled until it answers other than `while` (at most ~3 s). */
async function settlementStatus(
  f: { env: Record<string, unknown> },
  signature: string,
  options: { while?: number } = {},
) {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const answer = await callWithEnv(f.env, `/settlements/${signature}`);
    if (answer.status !== options.while || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("GET /settlements/{signature} after a settle the ledger did not follow", () => {
  it(
    "a pending row whose transaction failed on chain shows failed (settlement_failed: it executed, no simulation), " +
      "not pending",
    async () => {
      const s = await sellerWithVault("status-failed-on-chain", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      // The send is held at the RPC front, then forwarded without preflight and its answer dropped: the settle answers
      // pending. While it is held the buyer empties its token account, so the transfer executes and fails on chain
      // (the race an RPC node's simulation cannot see; the local chain simulates and executes in one step).
      await s.setFaults({ delayMs: { sendTransaction: 1_500 }, skipPreflight: true, dropSendAnswer: true });
      const settling = s.f.post("/settle", body);
      const deadline = Date.now() + 10_000;
      while (((await s.calls()).sendTransaction ?? 0) < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const source = await usdcAccountOf(s.buyer.address);
      const held = await tokenBalance(source);
      await sendAs(s.buyer, [
        getTransferInstruction({ source, destination: s.vaultAta, authority: s.buyer, amount: held }),
      ]);
      const pending = await settling;
      await s.setFaults({});
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      const status = await settlementStatus(s.f, pending.body.transaction);
      expect(status.status, JSON.stringify(status.body)).toBe(200);
      expect(status.body).toMatchObject({
        signature: pending.body.transaction,
        state: "failed",
        errorReason: "settlement_failed",
        settledAt: null,
      });
      // Only the buyer's own transfer moved tokens: the payment did not.
      expect(await tokenBalance(s.vaultAta)).toBe(100_000n + held);
    },
  );
});

describe("/verify of a settled payment after its blockhash expired", () => {
  // The shared test chain cannot be moved ~150 blocks forward without expiring other files' payments, so the proxy
  // answers simulateTransaction as the cluster does by then (BlockhashNotFound); everything else is the real chain.
  it("is still duplicate_settlement naming the settlement; an unsettled payment is blockhash_expired", async () => {
    const s = await sellerWithVault("verify-after-expiry", "d1");
    const settledBody = await s.f.signedBody(s.buyer, s.line);
    const settled = await s.f.post("/settle", settledBody);
    expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
    const unsettledBody = await s.f.signedBody(s.buyer, s.line);

    await s.setFaults({ blockhashExpired: true });
    const replay = await s.f.post("/verify", settledBody);
    expect(replay.status, JSON.stringify(replay.body)).toBe(400);
    expect(replay.body).toMatchObject({ isValid: false, invalidReason: "duplicate_settlement" });
    expect(replay.body.invalidMessage).toContain(settled.body.transaction);

    const stale = await s.f.post("/verify", unsettledBody);
    expect(stale.status, JSON.stringify(stale.body)).toBe(400);
    expect(stale.body).toMatchObject({ isValid: false, invalidReason: "blockhash_expired" });
  });
});
