import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { objectLedger } from "../../../src/settlement/settle-ports";
import { claimSuccessReport, recordFundingsConfirmed } from "../../../src/store/settlements";
import { tokenBalance } from "../../support/workerd/chain";
import {
  d1Row,
  ledgerNamespace,
  madeUpClaim,
  messageHashOf,
  mirrored,
  objectRow,
} from "../../support/workerd/ledger-object";
import { sellerWithVault, type VaultSeller } from "../../support/workerd/vault-seller";

/**
 * What the object ledger does with what D1 learned without it: the keepers' confirmations
 * (store/settlements.ts recordFundingsConfirmed writes D1 only), and the D1 ledger's claims, reports and states while
 * both ledgers serve /settle (a deploy or a switch of SVC_SETTLE_LEDGER; docs/settle-ledger-migration.md). Real
 * objects, real D1, the real local chain behind the RPC fault proxy.
 */

/** A payment whose first settle lost its send answer: claimed, sent, pending in the ledger of `ledger`. */
async function pendingPayment(s: VaultSeller, ledger: "object" | "d1") {
  s.f.setEnv({ SVC_SETTLE_LEDGER: ledger });
  const body = await s.f.signedBody(s.buyer, s.line);
  await s.setFaults({ dropSendAnswer: true });
  const dropped = await s.f.post("/settle", body);
  expect(dropped.status, JSON.stringify(dropped.body)).toBe(202);
  await s.setFaults({});
  return { body, signature: dropped.body.transaction as string, hash: await messageHashOf(dropped.body.transaction) };
}

const ledger = () => objectLedger(ledgerNamespace());
const claimOf = (hash: string) => madeUpClaim(hash, { payTo: "payTo", merchantWallet: "payTo" });

describe("the keepers confirm a payment in D1 while its object holds it pending", () => {
  it("the next settle takes the confirmation from D1 (no status read needed) and hears the one success", async () => {
    const s = await sellerWithVault("handover-keeper-pending", "object");
    const p = await pendingPayment(s, "object");
    expect(await mirrored(p.hash)).toMatchObject({ state: "pending" });
    await recordFundingsConfirmed(env.DB, [p.hash], Date.now());
    expect((await objectRow(p.hash))?.state).toBe("pending");
    // Status reads fail: only D1 can tell the object that the payment landed.
    await s.setFaults({ failMethods: ["getSignatureStatuses"] });
    const retry = await s.f.post("/settle", p.body);
    expect(retry.body, JSON.stringify(retry.body)).toMatchObject({ success: true, transaction: p.signature });
    expect((await s.f.post("/settle", p.body)).body).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
    });
    await s.setFaults({});
    expect(await mirrored(p.hash)).toMatchObject({ state: "confirmed" });
    expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
  });

  it(
    "a failure the object records after that (a lagging status read) never reaches D1, and the next claim takes the " +
      "confirmation",
    async () => {
      const hash = `keeper-then-failure-${crypto.randomUUID()}`;
      expect(await ledger().claim(claimOf(hash))).toEqual({ claimed: true });
      expect(await ledger().update(hash, ["submitting", "pending"], { state: "pending", leaseExpiresAtMs: null })).toBe(
        true,
      );
      await mirrored(hash);
      await recordFundingsConfirmed(env.DB, [hash], Date.now());
      expect(
        await ledger().update(hash, ["submitting", "pending"], {
          state: "failed",
          errorReason: "blockhash_expired",
          errorMessage: "expired",
          leaseExpiresAtMs: null,
        }),
      ).toBe(true);
      await mirrored(hash);
      expect(await d1Row(hash)).toMatchObject({ state: "confirmed" });
      const again = await ledger().claim(claimOf(hash));
      expect(again).toMatchObject({ claimed: false, existing: { state: "confirmed", errorReason: null } });
      expect(await ledger().reportSuccess(hash, "reporter-1", null, Date.now())).toBe(true);
      expect(await ledger().reportSuccess(hash, "reporter-2", null, Date.now())).toBe(false);
    },
  );
});

describe("both ledgers serving /settle (a deploy, or a switch of SVC_SETTLE_LEDGER)", () => {
  it(
    "claimed on the object ledger, reported on the D1 ledger: a later settle on the object ledger is a " + "duplicate",
    async () => {
      const s = await sellerWithVault("handover-object-then-d1", "object");
      const p = await pendingPayment(s, "object");
      await mirrored(p.hash);
      s.f.setEnv({ SVC_SETTLE_LEDGER: "d1" });
      const onD1 = await s.f.post("/settle", p.body, { "X-Correlation-ID": "seller-call-d1" });
      expect(onD1.body, JSON.stringify(onD1.body)).toMatchObject({ success: true, transaction: p.signature });
      s.f.setEnv({ SVC_SETTLE_LEDGER: "object" });
      const onObject = await s.f.post("/settle", p.body);
      expect(onObject.body, JSON.stringify(onObject.body)).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      // The seller's own retry still hears its success; the object now holds the D1 ledger's report.
      expect((await s.f.post("/settle", p.body, { "X-Correlation-ID": "seller-call-d1" })).body).toMatchObject({
        success: true,
        transaction: p.signature,
      });
      expect(await mirrored(p.hash)).toMatchObject({ state: "confirmed", success_correlation_id: "seller-call-d1" });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it(
    "claimed on the D1 ledger, reported on the object ledger: once mirrored, a later settle on the D1 ledger is a " +
      "duplicate",
    async () => {
      const s = await sellerWithVault("handover-d1-then-object", "object");
      const p = await pendingPayment(s, "d1");
      s.f.setEnv({ SVC_SETTLE_LEDGER: "object" });
      const onObject = await s.f.post("/settle", p.body);
      expect(onObject.body, JSON.stringify(onObject.body)).toMatchObject({ success: true, transaction: p.signature });
      await mirrored(p.hash);
      s.f.setEnv({ SVC_SETTLE_LEDGER: "d1" });
      expect((await s.f.post("/settle", p.body)).body).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      expect(await tokenBalance(s.vaultAta)).toBe(200_000n);
    },
  );

  it("the mirror of a later change of the object's never erases a report the D1 ledger wrote", async () => {
    const hash = `d1-report-kept-${crypto.randomUUID()}`;
    expect(await ledger().claim(claimOf(hash))).toEqual({ claimed: true });
    expect(await ledger().update(hash, ["submitting", "pending"], { state: "pending", leaseExpiresAtMs: null })).toBe(
      true,
    );
    await mirrored(hash);
    expect(await claimSuccessReport(env.DB, hash, "d1-ledger-call", "seller-call", Date.now())).toBe(true);
    // The object, not asked through a claim yet, changes its row (a lease taken over): its mirror keeps D1's report.
    expect(await ledger().takeOverLease(hash, "object-call", 15_000)).toBe(true);
    await mirrored(hash);
    expect(await d1Row(hash)).toMatchObject({ state: "confirmed", success_correlation_id: "seller-call" });
    expect(await ledger().claim(claimOf(hash))).toMatchObject({
      claimed: false,
      existing: { successCorrelationId: "seller-call" },
    });
    expect(await ledger().reportSuccess(hash, "object-call", null, Date.now())).toBe(false);
  });
});
