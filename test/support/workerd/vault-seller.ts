import { address } from "@solana/kit";
import { expect } from "vitest";
import { fundedBuyer } from "./chain";
import { faultScenario } from "./fault-scenario";
import { isolatedFacilitator } from "./isolated-facilitator";
import { USDC, usdcAccountOf } from "./payment-fixtures";

/**
 * The start of a settle-under-faults test: a facilitator of its own (fee payer, config) on the settle ledger `ledger`,
 * its RPC behind a fault scenario of its own; a seller whose vault exists (one payment already settled through the
 * still healthy proxy, so the vault holds 100,000 units); a buyer with funds and a USDC line of 100,000 to that seller.
 */
export async function sellerWithVault(label: string, ledger: "object" | "d1") {
  const faults = faultScenario();
  const f = await isolatedFacilitator(label, {
    SOLANA_RPC_URL: faults.rpcUrl,
    SVC_SETTLE_CONFIRM_TIMEOUT_MS: "2000",
    SVC_SETTLE_LEDGER: ledger,
  });
  const buyer = await fundedBuyer(5_000_000);
  const line = await f.line(USDC, "100000");
  expect((await f.post("/settle", await f.signedBody(buyer, line))).body.success).toBe(true);
  return { ...faults, f, buyer, line, vaultAta: await usdcAccountOf(address(line.payTo)) };
}

export type VaultSeller = Awaited<ReturnType<typeof sellerWithVault>>;

/**
 * Concurrent settles of one body, one per id, each caller with its own X-Correlation-ID (none where the id is null).
 */
export function settleConcurrently(s: VaultSeller, body: unknown, ids: (string | null)[]) {
  return Promise.all(ids.map((id) => s.f.post("/settle", body, id === null ? {} : { "X-Correlation-ID": id })));
}
