import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../../src/http/api-routes";
import { paymentRoutes } from "../../../src/http/routes/payments";
import { RAILS } from "../../../src/rails/registry";
import { createSourceProgram, type RouteReach, scanRouteReasons } from "../../support/node/reason-scan";

/**
 * Every reason a route's handler can answer is listed in its OpenAPI `x-reasons` (route-def.ts `reasons`): a static
 * scan of src/ (test/support/node/reason-scan.ts) follows each route's handler through the code it calls, reads the
 * reason of every catalogue error it can reach, and this test compares those with the route's own list. A new
 * `refused("some_reason", …)` deep in a module fails here until each route that reaches it lists the reason.
 *
 * The scan over-approximates (it cannot see that a throw is guarded). The few places where a route reaches a throw
 * that cannot fire on it are named below with the guard that stops it; the test fails if one of them is no longer
 * reached, so the list cannot go stale.
 */
const NEVER_ANSWERED: { keys: string[]; reason: string; why: string }[] = [
  {
    keys: ["health", "supported", "capabilities"],
    reason: "rail_not_enabled",
    why:
      "they read the UniversalSettle facts only when the vault rail is on (src/rails/exact/rail.ts, " +
      "program-health.ts skip a rail without a program id)",
  },
];

let reaches: RouteReach[];
const routes = [...apiRoutes(() => [], RAILS), ...paymentRoutes(RAILS)];

// Ends a hang only: the program and the scan are ~20 s of CPU, which took 124 s of wall time at load 14.
beforeAll(() => {
  reaches = scanRouteReasons(createSourceProgram());
}, 600_000);

function reachedReasons(key: string): Map<string, string[]> {
  const byReason = new Map<string, string[]>();
  for (const reach of reaches.filter((r) => r.key === key)) {
    for (const site of reach.sites) {
      for (const reason of site.reasons)
        (byReason.get(reason) ?? byReason.set(reason, []).get(reason)!).push(`${site.file}:${site.line}`);
    }
  }
  return byReason;
}

describe("OpenAPI x-reasons list every reason a route's handler can answer (static scan of src/)", () => {
  it("scans every mounted route (each route() call of src/ is found, with its key)", () => {
    const scanned = new Set(reaches.map((r) => r.key));
    expect(routes.map((r) => r.key).filter((key) => !scanned.has(key))).toEqual([]);
  });

  it("finds the throws deep in handlers (the scan is not vacuous)", () => {
    expect([...reachedReasons("resourceRegister").keys()]).toEqual(
      expect.arrayContaining(["origin_not_proven", "resource_limit_reached", "forbidden", "unauthorized"]),
    );
    expect([...reachedReasons("sellerRegister").keys()]).toContain("conflict");
    expect([...reachedReasons("buildUptoDepositTx").keys()]).toEqual(
      expect.arrayContaining([
        "invalid_upto_svm_payload_mint_extension_not_allowed",
        "invalid_upto_svm_withdraw_delay_out_of_bounds",
        "payer_account_unusable",
      ]),
    );
    // A call through an interface reaches each implementation: /verify reaches every rail's verify.
    expect([...reachedReasons("verify").keys()].length).toBeGreaterThan(0);
  });

  it("reads every reason as a literal or a short union of literals (none typed as 'any reason')", () => {
    const unbounded = reaches.flatMap((r) =>
      r.sites.filter((s) => s.unbounded).map((s) => `${r.key}: ${s.file}:${s.line}`),
    );
    expect([...new Set(unbounded)]).toEqual([]);
  });

  it("every reached reason is in the route's x-reasons", () => {
    const missing: string[] = [];
    for (const route of routes) {
      const declared = new Set<string>(route.reasons ?? []);
      for (const [reason, sites] of reachedReasons(route.key)) {
        if (declared.has(reason)) continue;
        if (NEVER_ANSWERED.some((n) => n.keys.includes(route.key) && n.reason === reason)) continue;
        missing.push(`${route.key}: ${reason} (${[...new Set(sites)].slice(0, 3).join(", ")})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("each exemption is still reached (remove it when its throw is gone)", () => {
    for (const exemption of NEVER_ANSWERED) {
      for (const key of exemption.keys)
        expect(reachedReasons(key).has(exemption.reason), `${key} ${exemption.reason}`).toBe(true);
    }
  });
});
