import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { claimDueChannels, OPENING_ROW_GRACE_MS, recordChannelOpen } from "../../../src/rails/upto/store/upto-channels";
import { LEDGER_OBJECT_RETENTION_MS } from "../../../src/settlement/settle-ledger-object";
import { ledgerObjectName, objectLedger } from "../../../src/settlement/settle-ports";
import { fundedBuyer, lamportsOf, tokenBalance } from "../../support/workerd/chain";
import { faultScenario } from "../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../support/workerd/isolated-facilitator";
import {
  d1FailingOn,
  d1Row,
  d1Watching,
  failingLedger,
  ledgerNamespace,
  ledgerStub,
  MIRROR_SQL,
  madeUpClaim,
  messageHashOf,
  mirrored,
  objectRow,
  stubNamed,
  withObjectD1,
} from "../../support/workerd/ledger-object";
import { USDC, usdcAccountOf } from "../../support/workerd/payment-fixtures";
import { madeUpChannelRow } from "../../support/workerd/upto-fixtures";
import { sellerWithVault, settleConcurrently } from "../../support/workerd/vault-seller";

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;

/**
 * The settle ledger in Durable Objects (SVC_SETTLE_LEDGER=object): the same exactly-once answers as the D1 ledger under
 * the same faults, D1 kept as the mirror, and payments whose rows D1 had before the upgrade. Real objects (Miniflare's
 * SQLite-backed Durable Objects), real D1, the real local chain behind the RPC fault proxy.
 */

const IDS = Array.from({ length: 10 }, (_, i) => `seller-call-${i}-${crypto.randomUUID()}`);

describe("the settle ledger in a Durable Object: exactly once", () => {
  it("claims through D1, reports in the object, mirrors to D1 after the answer; a replay is a duplicate", async () => {
    const s = await sellerWithVault("object-basic", "object");
    const body = await s.f.signedBody(s.buyer, s.line);
    const settled = await s.f.post("/settle", body, { "X-Correlation-ID": IDS[0]! });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    const hash = await messageHashOf(settled.body.transaction);
    const local = await mirrored(hash);
    expect(local).toMatchObject({ state: "confirmed", success_correlation_id: IDS[0] });
    expect(await d1Row(hash)).toMatchObject({ state: "confirmed", success_correlation_id: IDS[0] });
    expect((await d1Row(hash))?.success_reported_at_ms).toBe(local.success_reported_at_ms);

    const again = await s.f.post("/settle", body, { "X-Correlation-ID": IDS[0]! });
    expect(again.body).toMatchObject({ success: true, transaction: settled.body.transaction });
    const stranger = await s.f.post("/settle", body);
    expect(stranger.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });

  it("10 concurrent settles of one payment → exactly one success, one transfer", async () => {
    const s = await sellerWithVault("object-concurrent", "object");
    const body = await s.f.signedBody(s.buyer, s.line);
    const answers = await settleConcurrently(s, body, IDS);
    const won = answers.filter((r) => r.body.success === true);
    expect(won, JSON.stringify(answers.map((r) => r.body))).toHaveLength(1);
    for (const r of answers)
      if (r.body.success !== true) expect(["duplicate_settlement", "settlement_pending"]).toContain(r.body.errorReason);
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });

  it("two facilitator instances (their own config and ports) settling one payment at once → one success", async () => {
    const s = await sellerWithVault("object-two-instances", "object");
    const other = await isolatedFacilitator("object-two-instances-b", {
      SOLANA_RPC_URL: s.rpcUrl,
      SVC_SETTLE_LEDGER: "object",
    });
    const body = await s.f.signedBody(s.buyer, s.line);
    const answers = await Promise.all(
      IDS.map((id, i) => (i % 2 === 0 ? s.f : other).post("/settle", body, { "X-Correlation-ID": id })),
    );
    expect(
      answers.filter((r) => r.body.success === true),
      JSON.stringify(answers.map((r) => r.body)),
    ).toHaveLength(1);
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });
});

describe("the object ledger under RPC faults", () => {
  it("a dropped sendTransaction answer → 202 with the signature; a retry hears the one success", async () => {
    const s = await sellerWithVault("object-drop-send", "object");
    const body = await s.f.signedBody(s.buyer, s.line);
    await s.setFaults({ dropSendAnswer: true });
    const dropped = await s.f.post("/settle", body);
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
    expect(dropped.body.transaction).toMatch(SIGNATURE);
    await s.setFaults({});
    const retry = await s.f.post("/settle", body);
    expect(retry.body, JSON.stringify(retry.body)).toMatchObject({
      success: true,
      transaction: dropped.body.transaction,
    });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });

  it(
    "status reads failing, then the RPC down → 202 with the signature each time; once it answers, one " + "success",
    async () => {
      const s = await sellerWithVault("object-status-fail", "object");
      const body = await s.f.signedBody(s.buyer, s.line);
      await s.setFaults({ failMethods: ["getSignatureStatuses"] });
      const pending = await s.f.post("/settle", body);
      expect(pending.status, JSON.stringify(pending.body)).toBe(202);
      expect(pending.body.transaction).toMatch(SIGNATURE);
      await s.setFaults({ down: true });
      const whileDown = await s.f.post("/settle", body);
      expect(whileDown.body).toMatchObject({
        errorReason: "settlement_pending",
        transaction: pending.body.transaction,
      });
      await s.setFaults({});
      const recovered = await settleConcurrently(s, body, IDS.slice(0, 4));
      expect(
        recovered.filter((r) => r.body.success === true),
        JSON.stringify(recovered.map((r) => r.body)),
      ).toHaveLength(1);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );
});

describe("the object ledger when its writes fail", () => {
  it(
    "success reports failing: 10 concurrent settles → all 202 pending, none success; healed → exactly one " + "success",
    async () => {
      const s = await sellerWithVault("object-report-fault", "object");
      const body = await s.f.signedBody(s.buyer, s.line);
      const fault = failingLedger(["reportSuccess", "recordConfirmationAfterFailedReport"], "before-commit");
      s.f.setEnv({ SETTLE_LEDGER: fault.namespace });
      const whileFailing = await settleConcurrently(s, body, IDS);
      expect(whileFailing.filter((r) => r.body.success === true)).toHaveLength(0);
      for (const r of whileFailing)
        expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: false, errorReason: "settlement_pending" });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
      fault.heal();
      const recovered = await settleConcurrently(s, body, IDS);
      expect(
        recovered.filter((r) => r.body.success === true),
        JSON.stringify(recovered.map((r) => r.body)),
      ).toHaveLength(1);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it(
    "reports that commit and lose their answer: none success while it fails; only the seller whose report committed " +
      "hears it",
    async () => {
      const s = await sellerWithVault("object-report-lost", "object");
      const body = await s.f.signedBody(s.buyer, s.line);
      const fault = failingLedger(["reportSuccess"], "after-commit");
      s.f.setEnv({ SETTLE_LEDGER: fault.namespace });
      const whileFailing = await settleConcurrently(s, body, IDS);
      expect(whileFailing.filter((r) => r.body.success === true)).toHaveLength(0);
      const signature = whileFailing.find((r) => r.body.transaction)?.body.transaction as string;
      const committedFor = (await objectRow(await messageHashOf(signature)))?.success_correlation_id;
      expect(IDS).toContain(committedFor);
      fault.heal();
      await new Promise((resolve) => setTimeout(resolve, 300)); // the catch-ups after the responses
      const stranger = await s.f.post("/settle", body, { "X-Correlation-ID": `stranger-${crypto.randomUUID()}` });
      expect(stranger.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
      const recovered = await settleConcurrently(s, body, IDS);
      const won = recovered.filter((r) => r.body.success === true);
      expect(won, JSON.stringify(recovered.map((r) => r.body))).toHaveLength(1);
      expect(IDS[recovered.indexOf(won[0]!)]).toBe(committedFor);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it(
    "a report withdrawn after its answer was lost is not taken back from D1 while D1 still holds it: the next " +
      "caller hears the one success",
    async () => {
      const s = await sellerWithVault("object-withdrawn-report", "object");
      const body = await s.f.signedBody(s.buyer, s.line);
      const fault = failingLedger(["reportSuccess"], "after-commit");
      s.f.setEnv({ SETTLE_LEDGER: fault.namespace });
      const lost = await s.f.post("/settle", body); // no X-Correlation-ID: nobody can claim the report later
      expect(lost.status, JSON.stringify(lost.body)).toBe(202);
      fault.heal();
      await new Promise((resolve) => setTimeout(resolve, 300)); // the catch-up after the response withdraws the report
      const hash = await messageHashOf(lost.body.transaction);
      const withdrawn = await mirrored(hash);
      expect(withdrawn).toMatchObject({ state: "confirmed", success_reported_at_ms: null });
      // The withdrawal's mirror erases the report the report's mirror put in D1 (the same lease holder's), else D1
      // (after the object's retention, or the D1 ledger) would call the payment reported although nobody heard it.
      expect(await d1Row(hash)).toMatchObject({ state: "confirmed", success_reported_at_ms: null });
      // D1 as it is between the report's mirror and the withdrawal's (the withdrawal's mirror late or failing): it
      // holds the report of the object's own lease holder. Written here because the two mirrors cannot be told apart in
      // time.
      await env.DB.prepare("UPDATE settlements SET success_reported_at_ms = updated_at_ms WHERE message_hash = ?")
        .bind(hash)
        .run();

      const next = await s.f.post("/settle", body);
      expect(next.body, JSON.stringify(next.body)).toMatchObject({ success: true, transaction: lost.body.transaction });
      expect((await s.f.post("/settle", body)).body).toMatchObject({ errorReason: "duplicate_settlement" });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  for (const mode of ["before-commit", "after-commit"] as const) {
    it(
      `the claim ` +
        `failing ${mode} → 503 settlement_ledger_unavailable, nothing sent; a retry at once settles it once`,
      async () => {
        const s = await sellerWithVault(`object-claim-fault-${mode}`, "object");
        const body = await s.f.signedBody(s.buyer, s.line);
        const fault = failingLedger(["claim"], mode);
        s.f.setEnv({ SETTLE_LEDGER: fault.namespace });
        const feePayerBefore = await lamportsOf(s.f.feePayer);
        const first = await s.f.post("/settle", body);
        expect(first.status, JSON.stringify(first.body)).toBe(503);
        expect(first.body).toMatchObject({
          success: false,
          errorReason: "settlement_ledger_unavailable",
          transaction: "",
        });
        expect(await tokenBalance(s.vaultAta)).toBe(100_000n);
        expect(await lamportsOf(s.f.feePayer)).toBe(feePayerBefore);
        fault.heal();
        // A claim that committed (its answer lost) is given back after the answer: the retry need not wait for its
        // lease.
        const deadline = Date.now() + 3_000;
        while (
          (await env.DB.prepare("SELECT 1 FROM settlements WHERE payer = ? AND state = 'submitting'")
            .bind(s.buyer.address)
            .first()) &&
          Date.now() < deadline
        )
          await new Promise((resolve) => setTimeout(resolve, 25));
        const retry = await s.f.post("/settle", body);
        expect(retry.body, JSON.stringify(retry.body)).toMatchObject({ success: true });
        expect((await s.f.post("/settle", body)).body).toMatchObject({ errorReason: "duplicate_settlement" });
        expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
      },
    );
  }
});

/**
 * Three made-up payments claimed in one object of a new place (their hashes share the first byte: the same shard). The
 * first one's success is reported and its mirror held in its D1 call (`holdFirstMirror`, for the object's D1); the two
 * others are reported while it is held, then it is let go.
 */
async function reportedWhileAMirrorIsInFlight(label: string, onMirror: (kind: "run" | "batch", rows: number) => void) {
  const place = `${label}${crypto.randomUUID().slice(0, 8)}`;
  const ledger = objectLedger(ledgerNamespace(), place);
  const hashes = [0, 1, 2].map(() => `00${crypto.randomUUID().replaceAll("-", "")}${"0".repeat(30)}`);
  for (const hash of hashes) expect(await ledger.claim(madeUpClaim(hash))).toEqual({ claimed: true });
  let letGo!: () => void;
  const held = new Promise<void>((resolve) => (letGo = resolve));
  let first = true;
  const patched = await withObjectD1(
    hashes[0]!,
    d1Watching(async (kind, sqls) => {
      const mirrors = sqls.filter(MIRROR_SQL).length;
      if (mirrors === 0) return;
      const holding = first;
      first = false;
      onMirror(kind, mirrors);
      if (holding) await held;
    }),
  );
  expect(await ledger.reportSuccess(hashes[0]!, "reporter", null, Date.now())).toBe(true);
  for (const hash of hashes.slice(1)) expect(await ledger.reportSuccess(hash, "reporter", null, Date.now())).toBe(true);
  letGo();
  for (const hash of hashes) await mirrored(hash);
  await patched.restore();
  return { ledger, hashes };
}

describe("the mirror and its repair", () => {
  it("a mirror write that fails leaves the object unmirrored; its alarm writes D1 once D1 answers", async () => {
    const s = await sellerWithVault("object-mirror-repair", "object");
    const body = await s.f.signedBody(s.buyer, s.line);
    // First settle under a dropped send answer: the row exists (claimed) and is pending.
    await s.setFaults({ dropSendAnswer: true });
    const dropped = await s.f.post("/settle", body);
    expect(dropped.status).toBe(202);
    await s.setFaults({});
    const hash = await messageHashOf(dropped.body.transaction);
    await mirrored(hash);
    const mirrorDown = d1FailingOn(MIRROR_SQL);
    const patched = await withObjectD1(hash, mirrorDown.db);
    const settled = await s.f.post("/settle", body);
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
    // The answer did not wait for D1: the object knows, D1 does not yet.
    const local = await objectRow(hash);
    expect(local).toMatchObject({ state: "confirmed" });
    expect(local!.mirrored_version).toBeLessThan(local!.version);
    expect((await d1Row(hash))?.state).not.toBe("confirmed");
    // A retry meanwhile is answered by the object: a duplicate, not a second success.
    expect((await s.f.post("/settle", body)).body).toMatchObject({ errorReason: "duplicate_settlement" });

    mirrorDown.heal();
    await patched.restore();
    expect(await runDurableObjectAlarm(await ledgerStub(hash))).toBe(true);
    const caughtUp = await objectRow(hash);
    expect(caughtUp!.mirrored_version).toBe(caughtUp!.version);
    expect(await d1Row(hash)).toMatchObject({
      state: "confirmed",
      success_reported_at_ms: caughtUp!.success_reported_at_ms,
    });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });

  it(
    "a row past its retention is deleted by the alarm; the object deletes its storage once it holds none; a later " +
      "settle is still a duplicate (D1's row)",
    async () => {
      const s = await sellerWithVault("object-retention", "object");
      const body = await s.f.signedBody(s.buyer, s.line);
      const settled = await s.f.post("/settle", body);
      expect(settled.body.success).toBe(true);
      const hash = await messageHashOf(settled.body.transaction);
      await mirrored(hash);
      const stub = await ledgerStub(hash);
      // Not expired yet: the alarm keeps the row and sets itself for the expiry.
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(await objectRow(hash)).toBeDefined();
      const alarmAt = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
      expect(alarmAt).toBeGreaterThan(Date.now() + LEDGER_OBJECT_RETENTION_MS / 2);
      // Only this payment's row expires; rows of other payments the object holds stay (and keep the storage).
      const othersLeft = await runInDurableObject(stub, (_instance, state) => {
        state.storage.sql.exec(
          "UPDATE settlements SET updated_at_ms = ? WHERE message_hash = ?",
          Date.now() - LEDGER_OBJECT_RETENTION_MS - 1,
          hash,
        );
        return state.storage.sql.exec("SELECT COUNT(*) AS n FROM settlements WHERE message_hash <> ?", hash).one()
          .n as number;
      });
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(await objectRow(hash)).toBeUndefined();
      const alarmAfter = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
      if (othersLeft === 0) expect(alarmAfter).toBeNull();
      else expect(alarmAfter).not.toBeNull();

      const replay = await s.f.post("/settle", body);
      expect(replay.body, JSON.stringify(replay.body)).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it("the changes made while a mirror is in flight reach D1 together, in the next mirror's transaction", async () => {
    const mirrorWrites: string[] = [];
    const { ledger, hashes } = await reportedWhileAMirrorIsInFlight("MIRB", (kind, rows) =>
      mirrorWrites.push(`${kind} of ${rows}`),
    );
    expect(mirrorWrites).toEqual(["run of 1", "batch of 2"]);
    for (const hash of hashes) {
      expect(await d1Row(hash)).toMatchObject({ state: "confirmed" });
      expect(await ledger.state(hash)).toMatchObject({ state: "confirmed" });
    }
  });

  it("a mirror transaction D1 refuses is written again row by row: a row D1 refuses holds back no other", async () => {
    const mirrorWrites: string[] = [];
    const { hashes } = await reportedWhileAMirrorIsInFlight("MIRF", (kind, rows) => {
      mirrorWrites.push(`${kind} of ${rows}`);
      if (kind === "batch") throw new Error("D1_ERROR: injected failure of the mirror's transaction");
    });
    expect(mirrorWrites).toEqual(["run of 1", "batch of 2", "run of 1", "run of 1"]);
    for (const hash of hashes) expect(await d1Row(hash)).toMatchObject({ state: "confirmed" });
  });

  it("an object's expiry deletes each row in its turn, and the storage with the last one", async () => {
    const place = `EXP${crypto.randomUUID().slice(0, 8)}`;
    const ledger = objectLedger(ledgerNamespace(), place);
    // Two payments whose hashes pick the same object of the place (shard of the first byte).
    const hashes = ["00" + "a".repeat(62), "00" + "b".repeat(62)];
    for (const messageHash of hashes) {
      expect(await ledger.claim(madeUpClaim(messageHash))).toEqual({ claimed: true });
      // The object stores a row with its first change (the claim itself lives in D1 and the object's memory).
      expect(await ledger.reportSuccess(messageHash, "reporter", null, Date.now())).toBe(true);
    }
    const stub = stubNamed(ledgerObjectName(place, hashes[0]!));
    await mirrored(hashes[0]!);
    await mirrored(hashes[1]!);
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE settlements SET updated_at_ms = ? WHERE message_hash = ?",
        Date.now() - LEDGER_OBJECT_RETENTION_MS - 1,
        hashes[0],
      );
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await objectRow(hashes[0]!)).toBeUndefined();
    expect(await objectRow(hashes[1]!)).toBeDefined();
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now());
    // D1 keeps the expired row: the ledger still answers for it (through the object, which reads D1).
    expect(await ledger.state(hashes[0]!)).toMatchObject({ state: "confirmed" });

    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE settlements SET updated_at_ms = ?", Date.now() - LEDGER_OBJECT_RETENTION_MS - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(
      await runInDurableObject(stub, (_instance, state) =>
        state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'settlements'").toArray(),
      ),
    ).toEqual([]);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeNull();
  });
});

describe("the upgrade from the D1 ledger: payments whose rows D1 has when the object ledger deploys", () => {
  it(
    "a payment the D1 ledger reported: a retry is a duplicate (the seller's own retry still hears success); nothing " +
      "is paid twice",
    async () => {
      const s = await sellerWithVault("upgrade-reported", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      const before = await s.f.post("/settle", body, { "X-Correlation-ID": IDS[0]! });
      expect(before.body.success, JSON.stringify(before.body)).toBe(true);
      const hash = await messageHashOf(before.body.transaction);
      expect(await objectRow(hash)).toBeUndefined(); // the D1 ledger never touched the object

      s.f.setEnv({ SVC_SETTLE_LEDGER: "object" });
      const answers = await settleConcurrently(s, body, [null, ...IDS.slice(1, 4)]);
      for (const r of answers)
        expect(r.body, JSON.stringify(r.body)).toMatchObject({
          success: false,
          errorReason: "duplicate_settlement",
          transaction: before.body.transaction,
        });
      const sellerRetry = await s.f.post("/settle", body, { "X-Correlation-ID": IDS[0]! });
      expect(sellerRetry.body).toMatchObject({ success: true, transaction: before.body.transaction });
      // The object took D1's row as it was (the first use of the object read it before claiming).
      expect(await objectRow(hash)).toMatchObject({ state: "confirmed", success_correlation_id: IDS[0] });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it(
    "a payment the D1 ledger left pending (its send's answer lost): after the switch exactly one retry hears " +
      "success",
    async () => {
      const s = await sellerWithVault("upgrade-pending", "d1");
      const body = await s.f.signedBody(s.buyer, s.line);
      await s.setFaults({ dropSendAnswer: true });
      const dropped = await s.f.post("/settle", body);
      expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
      await s.setFaults({});
      const hash = await messageHashOf(dropped.body.transaction);
      expect((await d1Row(hash))?.state).toBe("pending");

      s.f.setEnv({ SVC_SETTLE_LEDGER: "object" });
      const answers = await settleConcurrently(s, body, IDS);
      expect(
        answers.filter((r) => r.body.success === true),
        JSON.stringify(answers.map((r) => r.body)),
      ).toHaveLength(1);
      for (const r of answers)
        if (r.body.success !== true)
          expect(["duplicate_settlement", "settlement_pending"]).toContain(r.body.errorReason);
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
      expect(await mirrored(hash)).toMatchObject({ state: "confirmed" });
      expect(await d1Row(hash)).toMatchObject({ state: "confirmed" });
    },
  );
});

describe("reads of a payment the object does not hold", () => {
  it("are answered from D1's row, and leave an object that holds nothing without storage", async () => {
    const place = `READ${crypto.randomUUID().slice(0, 8)}`;
    const ledger = objectLedger(ledgerNamespace(), place);
    const unknown = `never-settled-${crypto.randomUUID()}`;
    expect(await ledger.state(unknown)).toBeUndefined();
    const tables = await runInDurableObject(stubNamed(ledgerObjectName(place, unknown)), (_instance, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables.filter((t) => t.name === "settlements")).toEqual([]);

    const old = `d1-only-${crypto.randomUUID()}`;
    await env.DB.prepare(
      `INSERT INTO settlements (message_hash, signature, state, scheme, network, payer, pay_to, asset, amount, ` +
        `created_at_ms, updated_at_ms)
       VALUES (?1, ?2, 'confirmed', 'exact', 'devnet', 'payer', 'payTo', 'asset', '1', 1, 1)`,
    )
      .bind(old, `sig-${old}`)
      .run();
    expect(await ledger.state(old)).toEqual({ state: "confirmed", signature: `sig-${old}` });
  });
});

describe("load: many payments, each sent twice, shuffled, all at once", () => {
  it("N payments × 2 concurrent settles → exactly N successes, each payTo paid once", async () => {
    const N = 12;
    const faults = faultScenario();
    // One buyer's N payments all in flight at once, within the default in-flight allowance of its failure cap.
    const f = await isolatedFacilitator("object-load", { SOLANA_RPC_URL: faults.rpcUrl, SVC_SETTLE_LEDGER: "object" });
    const buyer = await fundedBuyer(N * 100_000 + 1_000_000);
    const lines = await Promise.all(Array.from({ length: N }, () => f.line(USDC, "100000")));
    const bodies = [];
    for (const line of lines) bodies.push({ line, body: await f.signedBody(buyer, line) });
    const calls = [...bodies, ...bodies].map((b) => ({ ...b, order: Math.random() })).sort((a, b) => a.order - b.order);
    const answers = await Promise.all(calls.map((c) => f.post("/settle", c.body).then((r) => ({ ...c, r }))));
    const won = answers.filter((a) => a.r.body.success === true);
    expect(won, JSON.stringify(answers.map((a) => a.r.body))).toHaveLength(N);
    expect(new Set(won.map((a) => a.line.payTo)).size).toBe(N);
    for (const a of answers)
      if (a.r.body.success !== true)
        expect(["duplicate_settlement", "settlement_pending"]).toContain(a.r.body.errorReason);
    for (const line of lines) {
      expect(await tokenBalance(await usdcAccountOf(address(line.payTo)))).toBe(100_000n);
    }
  });
});

describe("the upto rail's channel rows while D1 trails the object", () => {
  // Each payment in an object of its own place: the test breaks one object's D1 writes, not its neighbours'.
  const ledger = (hash: string) => objectLedger(ledgerNamespace(), `P${hash.slice(-8)}`);
  const claimOf = (hash: string, leaseExpiresAtMs: number) =>
    madeUpClaim(hash, { scheme: "upto", payTo: "payTo", merchantWallet: "payTo", leaseExpiresAtMs });
  /** Not due for years: only the opening grace decides what happens to it. */
  const openingRow = (id: string, hash: string, now: number) => madeUpChannelRow(id, hash, now + 10 * 365 * 86_400_000);
  const channelState = async (id: string) =>
    (await env.DB.prepare("SELECT state FROM upto_channels WHERE channel_id = ?").bind(id).first<{ state: string }>())
      ?.state ?? null;

  it("the D1 mirror is late: the keeper does not delete the row of an Open that landed", async () => {
    const now = Date.now();
    // (a) confirmed in the object while D1 still has the claim's `submitting` (a live lease): the row stays.
    const inFlight = `late-mirror-a-${crypto.randomUUID()}`;
    expect(await ledger(inFlight).claim(claimOf(inFlight, now + 600_000))).toEqual({ claimed: true });
    const mirrorDownA = d1FailingOn(MIRROR_SQL);
    const patchedA = await withObjectD1(inFlight, mirrorDownA.db);
    expect(await ledger(inFlight).reportSuccess(inFlight, "reporter", null, now)).toBe(true);
    expect((await d1Row(inFlight))?.state).toBe("submitting");
    // (b) recorded failed (mirrored), then the chain shows it landed while the mirror is down: D1 hears it first.
    const revived = `late-mirror-b-${crypto.randomUUID()}`;
    expect(await ledger(revived).claim(claimOf(revived, now + 600_000))).toEqual({ claimed: true });
    expect(
      await ledger(revived).update(revived, ["submitting", "pending"], {
        state: "failed",
        errorReason: "blockhash_expired",
        leaseExpiresAtMs: null,
      }),
    ).toBe(true);
    await mirrored(revived);
    expect((await d1Row(revived))?.state).toBe("failed");
    const mirrorDownB = d1FailingOn(MIRROR_SQL);
    const patchedB = await withObjectD1(revived, mirrorDownB.db);
    expect(await ledger(revived).reportSuccess(revived, "reporter", null, now)).toBe(true);
    expect((await objectRow(revived))?.mirrored_version).toBeLessThan((await objectRow(revived))!.version);
    // (c) the control: an Open that failed everywhere is still deleted.
    const dead = `late-mirror-c-${crypto.randomUUID()}`;
    expect(await ledger(dead).claim(claimOf(dead, now + 600_000))).toEqual({ claimed: true });
    expect(
      await ledger(dead).update(dead, ["submitting", "pending"], { state: "failed", leaseExpiresAtMs: null }),
    ).toBe(true);
    await mirrored(dead);

    for (const hash of [inFlight, revived, dead])
      expect(await recordChannelOpen(env.DB, openingRow(`ch-${hash}`, hash, now), now)).toBe(true);
    expect(await claimDueChannels(env.DB, crypto.randomUUID(), now + OPENING_ROW_GRACE_MS, 120_000, 10)).toEqual([]);
    expect(await channelState(`ch-${inFlight}`)).toBe("opening");
    expect(await channelState(`ch-${revived}`)).toBe("open");
    expect(await channelState(`ch-${dead}`)).toBeNull();
    // Another deposit cannot take over the channel of the revived Open either.
    const takeover = { ...openingRow(`ch-${revived}`, `other-${crypto.randomUUID()}`, now) };
    expect(await recordChannelOpen(env.DB, takeover, now)).toBe(false);
    for (const id of [inFlight, revived])
      await env.DB.prepare("DELETE FROM upto_channels WHERE channel_id = ?").bind(`ch-${id}`).run();
    await patchedA.restore();
    await patchedB.restore();
  });
});
