import { env, runInDurableObject } from "cloudflare:test";
import { address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { ledgerObjectName, objectLedger } from "../../../src/settlement/settle-ports";
import { mirrorToD1 } from "../../../src/store/ledger-object-store";
import type { SettlementRow } from "../../../src/store/settlements";
import { fundedBuyer, tokenBalance } from "../../support/workerd/chain";
import { isolatedFacilitator } from "../../support/workerd/isolated-facilitator";
import {
  holderName,
  ledgerNamespace,
  madeUpClaim,
  messageHashOf,
  mirrored,
  stubNamed,
} from "../../support/workerd/ledger-object";
import { USDC, usdcAccountOf } from "../../support/workerd/payment-fixtures";

/**
 * The ledger objects are named after the place a payment is first settled at (the Worker's Cloudflare location) and
 * shared by that place's payments; D1 names the object that holds each payment. A payment settled at several places
 * at once still has one holder, and so one success. Real objects, real D1, the real local chain.
 */
const unique = (prefix: string) => `${prefix}${crypto.randomUUID().slice(0, 8)}`;
const claimOf = (messageHash: string) => madeUpClaim(messageHash);
const heldRows = (name: string, messageHash: string) =>
  runInDurableObject(stubNamed(name), (_instance, state) =>
    state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'settlements'").toArray().length === 0
      ? 0
      : (state.storage.sql.exec("SELECT COUNT(*) AS n FROM settlements WHERE message_hash = ?", messageHash).one()
          .n as number),
  );

describe("one payment claimed at several places at once", () => {
  it("exactly one claim wins; every place's calls reach the one holder, which reports success once", async () => {
    const hash = unique("multi-place-") + "0".repeat(40);
    const places = [unique("SYD"), unique("FRA"), unique("GRU"), unique("IAD")];
    const ledgers = places.map((place) => objectLedger(ledgerNamespace(), place));
    const claims = await Promise.all(ledgers.map((ledger) => ledger.claim(claimOf(hash))));
    expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
    const holder = await holderName(hash);
    expect(places.map((place) => ledgerObjectName(place, hash))).toContain(holder);
    const reports = await Promise.all(
      ledgers.map((ledger, i) => ledger.reportSuccess(hash, `reporter-${i}`, null, Date.now())),
    );
    expect(reports.filter(Boolean)).toHaveLength(1);
    // Only the holder stores the row (with its first change, the report); the other places' objects sent their calls
    // there.
    for (const place of places) {
      const name = ledgerObjectName(place, hash);
      expect(await heldRows(name, hash)).toBe(name === holder ? 1 : 0);
    }
    // A place that never saw the payment finds it through D1 and is answered by the holder.
    expect(await objectLedger(ledgerNamespace(), unique("NRT")).get(hash)).toMatchObject({ state: "confirmed" });
    expect(await mirrored(hash)).toMatchObject({ state: "confirmed" });
  });

  it("a row the D1 ledger wrote is taken over by exactly one object", async () => {
    const hash = unique("d1-row-") + "0".repeat(40);
    await env.DB.prepare(
      `INSERT INTO settlements (message_hash, signature, state, scheme, network, payer, pay_to, asset, amount, ` +
        `lease_id, created_at_ms, updated_at_ms)
       VALUES (?1, ?2, 'pending', 'exact', 'devnet', 'payer', 'payTo', 'asset', '1', 'd1-lease', 1, 1)`,
    )
      .bind(hash, `sig-${hash}`)
      .run();
    const ledgers = [unique("AMS"), unique("LHR"), unique("CDG")].map((place) =>
      objectLedger(ledgerNamespace(), place),
    );
    const claims = await Promise.all(ledgers.map((ledger) => ledger.claim(claimOf(hash))));
    expect(claims.every((claim) => !claim.claimed)).toBe(true);
    expect(await holderName(hash)).toBeDefined();
    const reports = await Promise.all(
      ledgers.map((ledger, i) => ledger.reportSuccess(hash, `reporter-${i}`, null, Date.now())),
    );
    expect(reports.filter(Boolean)).toHaveLength(1);
  });
});

describe("a holder that lost its memory between the claim and the report", () => {
  it(
    "reads the row back from D1 (which names it) and reports once; an object D1 does not name takes " + "nothing",
    async () => {
      const hash = unique("restart-") + "0".repeat(40);
      const place = unique("MAD");
      const ledger = objectLedger(ledgerNamespace(), place);
      expect(await ledger.claim(claimOf(hash))).toEqual({ claimed: true });
      const holder = (await holderName(hash))!;
      // The instance restarts: the claimed row it kept in memory is gone (D1 has it).
      await runInDurableObject(stubNamed(holder), (instance) =>
        (instance as unknown as { claimedInMemory: Map<string, unknown> }).claimedInMemory.clear(),
      );
      const stranger = unique("OSL/0");
      expect(await stubNamed(stranger).reportSuccess(hash, "reporter-x", null, Date.now(), stranger)).toBe(false);
      expect(await heldRows(stranger, hash)).toBe(0);
      expect(await ledger.reportSuccess(hash, "reporter-1", null, Date.now())).toBe(true);
      expect(await heldRows(holder, hash)).toBe(1);
      expect(await ledger.reportSuccess(hash, "reporter-2", null, Date.now())).toBe(false);
    },
  );
});

describe("the mirror writes only what D1 still gives the object", () => {
  const row = (messageHash: string): SettlementRow => ({
    ...claimOf(messageHash),
    state: "confirmed",
    errorReason: null,
    errorMessage: null,
    confirmedAtMs: 5,
    successReportedAtMs: 5,
    successCorrelationId: null,
    paymentId: null,
    createdAtMs: 1,
    updatedAtMs: 5,
  });

  it("a released row is not brought back; another object's row is not overwritten", async () => {
    const released = unique("released-");
    expect(await mirrorToD1(env.DB, row(released), "SYD/1")).toBe(false);
    expect(await env.DB.prepare("SELECT 1 FROM settlements WHERE message_hash = ?").bind(released).first()).toBeNull();

    const taken = unique("taken-") + "0".repeat(40);
    expect(await objectLedger(ledgerNamespace(), unique("FRA")).claim(claimOf(taken))).toEqual({ claimed: true });
    expect(await mirrorToD1(env.DB, row(taken), "SYD/1")).toBe(false);
    expect(await env.DB.prepare("SELECT state FROM settlements WHERE message_hash = ?").bind(taken).first()).toEqual({
      state: "submitting",
    });
    expect(await mirrorToD1(env.DB, row(taken), (await holderName(taken))!)).toBe(true);
    expect(await env.DB.prepare("SELECT state FROM settlements WHERE message_hash = ?").bind(taken).first()).toEqual({
      state: "confirmed",
    });
  });
});

describe("/settle of one payment arriving at several places at once", () => {
  it("exactly one success, one transfer; every other answer is a duplicate or pending", async () => {
    const f = await isolatedFacilitator("ledger-places");
    const buyer = await fundedBuyer(5_000_000);
    const line = await f.line(USDC, "100000");
    expect((await f.post("/settle", await f.signedBody(buyer, line))).body.success).toBe(true);
    const vaultAta = await usdcAccountOf(address(line.payTo));
    const before = await tokenBalance(vaultAta);
    const body = await f.signedBody(buyer, line);
    const places = Array.from({ length: 6 }, (_, i) => unique(`C${i}`));
    const answers = await Promise.all(places.map((place) => f.postAt(place, "/settle", body)));
    const successes = answers.filter((answer) => answer.body.success === true);
    expect(successes, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
    for (const answer of answers)
      if (answer.body.success !== true)
        expect(["duplicate_settlement", "settlement_pending"]).toContain(answer.body.errorReason);
    expect(await tokenBalance(vaultAta)).toBe(before + 100_000n);
    const hash = await messageHashOf(successes[0]!.body.transaction);
    expect(places.map((place) => ledgerObjectName(place, hash))).toContain(await holderName(hash));
  });
});
