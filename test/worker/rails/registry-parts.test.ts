import { describe, expect, it } from "vitest";
import { SELLER_PREVIEW_SCHEMES } from "../../../src/directory/sellers/seller-inputs";
import { RAILS, REJECTION_REASONS } from "../../../src/rails/registry";
import { CORE_REJECTION_REASONS, FEE_PAYER_BUDGET_REJECTION_REASONS } from "../../../src/x402/rejection-reasons";

/**
 * What the registry composes from the rails' parts stays consistent with the lists kept outside the modules: the
 * wire list of rejection reasons names each reason once, and the seller preview's documented schemes (its response
 * schema's keys, a constant so the schema stays free of the registry) are the rails that preview.
 */
describe("the rails' parts as the registry composes them", () => {
  it("every rejection reason is listed once: no rail repeats a core reason or another rail's", () => {
    const seen = new Map<string, string>();
    const owners: [string, readonly string[]][] = [
      ["core", CORE_REJECTION_REASONS],
      ["budget", FEE_PAYER_BUDGET_REJECTION_REASONS],
      ...RAILS.map((rail): [string, readonly string[]] => [`${rail.scheme}'s caps`, rail.exposure?.reasons ?? []]),
      ...RAILS.map((rail): [string, readonly string[]] => [rail.scheme, rail.reasons ?? []]),
    ];
    const repeats = owners.flatMap(([owner, reasons]) =>
      reasons.flatMap((reason) => {
        const first = seen.get(reason);
        seen.set(reason, first ?? owner);
        return first ? [`${reason}: ${first} and ${owner}`] : [];
      }),
    );
    expect(repeats).toEqual([]);
    expect(REJECTION_REASONS).toHaveLength(seen.size);
  });

  it("the seller preview documents exactly the rails that preview, in registry order", () => {
    expect(RAILS.filter((rail) => rail.seller?.preview).map((rail) => rail.scheme)).toEqual([
      ...SELLER_PREVIEW_SCHEMES,
    ]);
  });
});
