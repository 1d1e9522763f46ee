import { address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../src/rails/sla-escrow/cluster-defaults";
import { findBankPda, findEscrowPda, findEscrowSolStoragePda } from "../../../../src/rails/sla-escrow/program/pda";
import { fundedBuyer } from "../../../support/workerd/chain";
import { DEVNET, NATIVE_SOL, RESOURCE, USDC } from "../../../support/workerd/payment-fixtures";
import { call } from "../../../support/workerd/worker-http";

/**
 * The escrow rail as a seller sees it (docs/facilitator-spec.md §2.6, §4.3; docs/wire-notes.md "Sellers"):
 * /sellers/{w}/preview and /sellers/{w}/rails/sla-escrow?asset= for SOL and USDC against the seeded local escrows
 * (docs/facilitator-spec.md §8: 100 bps, a 10-cent minimum on USDC, oracle tip 100 bps), and the same payTo that enrich
 * puts into a 402 line.
 */
const ESCROW_PROGRAM = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);

describe("escrow rail in seller preview and rail lookup", () => {
  it("preview shows the SOL and USDC escrows with their on-chain terms; rails and enrich agree on payTo", async () => {
    const seller = (await fundedBuyer(0)).address;
    const [bank] = await findBankPda(ESCROW_PROGRAM);
    const [usdcEscrow] = await findEscrowPda(ESCROW_PROGRAM, USDC, bank);
    const [solEscrow] = await findEscrowPda(ESCROW_PROGRAM, NATIVE_SOL, bank);
    const [solStorage] = await findEscrowSolStoragePda(ESCROW_PROGRAM, NATIVE_SOL, bank, solEscrow);

    const preview = await call(`/sellers/${seller}/preview`);
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const escrow = preview.body.schemes["sla-escrow"];
    expect(escrow).toMatchObject({
      payTo: usdcEscrow,
      bankPda: bank,
      programId: ESCROW_PROGRAM,
      status: "Active",
      isSovereign: false,
      provisioningStatus: null,
      payToKind: "escrowPda",
      // pr402's SchemeOnboardInfo: feeBps is a decimal string; vaultPda is the SOL escrow (all assets in
      // vaultPdaPreviews).
      feeBps: "100",
      vaultPda: solEscrow,
      beneficiary: seller,
    });
    expect(escrow.assets.USDC).toEqual({
      asset: "USDC",
      mint: USDC,
      escrowPda: usdcEscrow,
      solStoragePda: expect.any(String),
      exists: true,
      feeBps: 100,
      oracleFeeBps: 100,
      minFeeAmount: "100000",
      paused: false,
    });
    expect(escrow.assets.SOL).toMatchObject({
      asset: "SOL",
      mint: NATIVE_SOL,
      escrowPda: solEscrow,
      solStoragePda: solStorage,
      exists: true,
      feeBps: 100,
      oracleFeeBps: 100,
      paused: false,
    });

    for (const [asset, escrowPda] of [
      [USDC, usdcEscrow],
      [NATIVE_SOL, solEscrow],
    ] as const) {
      const rail = await call(`/sellers/${seller}/rails/sla-escrow?asset=${asset}`);
      expect(rail.status, JSON.stringify(rail.body)).toBe(200);
      expect(rail.body).toMatchObject({
        scheme: "sla-escrow",
        payTo: escrowPda,
        bankPda: bank,
        status: "Active",
        assetMint: asset,
        beneficiary: seller,
      });
      const enriched = await call("/payment-required/enrich", {
        method: "POST",
        json: {
          x402Version: 2,
          resource: RESOURCE,
          accepts: [
            {
              scheme: "sla-escrow",
              network: DEVNET,
              asset,
              amount: "2000000",
              payTo: seller,
              maxTimeoutSeconds: 3_600,
            },
          ],
        },
      });
      expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
      expect(enriched.body.accepts[0].payTo).toBe(rail.body.payTo);
      expect(enriched.body.accepts[0].extra.merchantWallet).toBe(seller);
    }
  });

  it(
    "an asset without an escrow on this cluster shows as NotProvisioned, with no payTo (nothing could be paid to " +
      "it)",
    async () => {
      const seller = (await fundedBuyer(0)).address;
      const usdt = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";
      const rail = await call(`/sellers/${seller}/rails/sla-escrow?asset=${usdt}`);
      expect(rail.status, JSON.stringify(rail.body)).toBe(200);
      expect(rail.body.status).toBe("NotProvisioned");
      expect(rail.body.escrow).toMatchObject({ exists: false, feeBps: null, oracleFeeBps: null, minFeeAmount: null });
      expect(rail.body.payTo).toBeNull();
      expect(rail.body.payToResolveNote).toMatch(/^No payTo: the escrow \S+ for \S+ does not exist on this cluster/);
    },
  );
});
