/**
 * A repeat of a settled `exact` payment after its blockhash expired is answered by the ledger's row, the same in both
 * payTo forms: /settle and /verify say duplicate_settlement naming the settlement's transaction (the seller's own retry
 * of its success, with its correlation id, hears that success again), and nothing is sent or booked. A payment never
 * settled whose blockhash expired is blockhash_expired. The cluster's view after ~150 blocks comes from the fault proxy
 * (simulate, send's preflight and isBlockhashValid answer as the cluster does then: the shared chain cannot be moved on
 * without expiring other files' payments); the chain, workerd, D1 and the ledger objects are real.
 */
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { chainRpc, fundedBuyer, lamportsOf } from "../../../support/workerd/chain";
import { faultScenario } from "../../../support/workerd/fault-scenario";
import { isolatedFacilitator } from "../../../support/workerd/isolated-facilitator";
import { createUsdcAccount, DEVNET, USDC } from "../../../support/workerd/payment-fixtures";

/** At least the stand-in program's provisioning recovery target (1 USDC), so a vault is worth fronting. */
const WORTH_A_VAULT = "1000000";

/** A facilitator of its own behind a fault scenario of its own. */
async function facilitatorBehindProxy(label: string) {
  const faults = faultScenario();
  const f = await isolatedFacilitator(label, { SOLANA_RPC_URL: faults.rpcUrl });
  return { ...faults, f };
}

/** A seller's wallet with its USDC account: the wallet form's payTo. */
async function walletSeller() {
  const seller = await generateKeyPairSigner();
  await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
  await createUsdcAccount(seller.address, seller);
  return seller.address;
}

const walletLine = (payTo: string, feePayer: string) => ({
  scheme: "exact",
  network: DEVNET,
  asset: USDC,
  amount: WORTH_A_VAULT,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { feePayer },
});

describe("a repeat of a settled exact payment past its blockhash: the ledger's row answers, in either form", () => {
  const forms = {
    // A seller that never activated: the first payment's settle creates its vault (just in time).
    "vault (created just in time)": async (s: Awaited<ReturnType<typeof facilitatorBehindProxy>>) =>
      s.f.line(USDC, WORTH_A_VAULT, (await generateKeyPairSigner()).address),
    // A seller that activated its vault first.
    "vault (activated)": async (s: Awaited<ReturnType<typeof facilitatorBehindProxy>>) => s.f.line(USDC, WORTH_A_VAULT),
    wallet: async (s: Awaited<ReturnType<typeof facilitatorBehindProxy>>) =>
      walletLine(await walletSeller(), s.f.feePayer),
  };
  for (const [form, lineOf] of Object.entries(forms)) {
    it(`${form}: duplicate_settlement naming the transaction at /settle and /verify; nothing sent`, async () => {
      const s = await facilitatorBehindProxy(`repeat-expired-${form.split(" ")[0]}`);
      const buyer = await fundedBuyer(5_000_000);
      const line = await lineOf(s);
      const body = await s.f.signedBody(buyer, line);
      const sellerCall = { "X-Correlation-ID": `seller-${crypto.randomUUID()}` };
      const settled = await s.f.post("/settle", body, sellerCall);
      expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
      const never = await s.f.signedBody(buyer, line);

      await s.setFaults({ blockhashExpired: true });
      const sendsBefore = (await s.calls()).sendTransaction ?? 0;
      const feePayerBefore = await lamportsOf(s.f.feePayer);
      const again = await s.f.post("/settle", body);
      expect(again.body, JSON.stringify(again.body)).toMatchObject({
        success: false,
        errorReason: "duplicate_settlement",
      });
      expect(again.body.errorMessage).toContain(settled.body.transaction);
      const retried = await s.f.post("/settle", body, sellerCall);
      expect(retried.body, JSON.stringify(retried.body)).toMatchObject({
        success: true,
        transaction: settled.body.transaction,
      });
      const verified = await s.f.post("/verify", body);
      expect(verified.body, JSON.stringify(verified.body)).toMatchObject({
        isValid: false,
        invalidReason: "duplicate_settlement",
      });
      expect(verified.body.invalidMessage).toContain(settled.body.transaction);

      // A payment of the same buyer and line that was never settled: its blockhash is gone, so it is refused as such.
      const stale = await s.f.post("/settle", never);
      expect(stale.body, JSON.stringify(stale.body)).toMatchObject({
        success: false,
        errorReason: "blockhash_expired",
      });
      expect((await s.f.post("/verify", never)).body).toMatchObject({ invalidReason: "blockhash_expired" });
      expect((await s.calls()).sendTransaction ?? 0).toBeLessThanOrEqual(sendsBefore + 1);
      expect(await lamportsOf(s.f.feePayer)).toBe(feePayerBefore);
    });
  }
});
