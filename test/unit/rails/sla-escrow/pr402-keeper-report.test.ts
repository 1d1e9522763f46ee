import { describe, expect, it } from "vitest";
import { toPr402KeeperResponse } from "../../../../src/rails/sla-escrow/keeper/pr402-keeper-report";
import type { KeeperItem, KeeperReport } from "../../../../src/rails/sla-escrow/keeper/run-keeper";

/**
 * pr402's counters over our keeper's report (pure): `failed` counts the items by their outcome value, never by the
 * words of their detail, so a payout given up after the attempt cap still counts and a dropped funding whose words
 * say "failed" does not.
 */
const item = (
  outcome: KeeperItem["outcome"],
  detail: string,
  action: KeeperItem["action"] = "release",
): KeeperItem => ({
  paymentPda: `pda-${outcome}-${detail.length}`,
  decision: "release",
  action,
  signature: null,
  outcome,
  detail,
});

describe("pr402's keeper counters", () => {
  it("count failed payouts by outcome value: refused at preflight or failed on chain", () => {
    const items = [
      item("landed", "released"),
      item("refused", "preflight refused: insufficient funds"),
      item("failed", "gave up after 8 attempts: failed on chain: custom program error 0x1"),
      item("dropped", "funding sig failed on chain: custom program error 0x1", "none"),
      item("skipped", "recipient token account x does not exist yet; its owner must create it"),
      item("held", "fee_payer_below_minimum"),
      item("waiting", "delivered; the oracle may rule until expiry", "none"),
    ];
    const report: KeeperReport = {
      dryRun: false,
      maxPaymentsPerRun: 10,
      scanned: items.length,
      released: 1,
      refunded: 0,
      closed: 0,
      items,
    };
    expect(toPr402KeeperResponse(report, {})).toMatchObject({
      considered: 7,
      succeeded: 1,
      failed: 2,
      skipped: 4,
      ignored: [],
    });
  });
});
