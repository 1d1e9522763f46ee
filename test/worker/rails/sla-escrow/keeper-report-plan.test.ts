/**
 * A keeper run reports the most rows it could take as the deployment's Workers plan bounds it: on Workers Free the
 * escrow keeper's run is smaller (src/platform/config/workers-plan.ts), and its report must say so, not the Paid cap.
 */
import { describe, expect, it } from "vitest";
import { maxPaymentsPerRun } from "../../../../src/rails/sla-escrow/keeper/budget";
import { callWithEnv } from "../../../support/workerd/worker-http";

const BEARER = { Authorization: "Bearer test-operator-token", "Content-Type": "application/json" };

describe("keeper report under the Workers plan", () => {
  it("POST /escrow-keeper reports the Free plan's cap on Workers Free and the Paid cap on Paid", async () => {
    expect(maxPaymentsPerRun("free")).toBeLessThan(maxPaymentsPerRun("paid"));
    for (const plan of ["free", "paid"] as const) {
      const response = await callWithEnv({ SVC_WORKERS_PLAN: plan }, "/escrow-keeper", {
        method: "POST",
        headers: BEARER,
        body: JSON.stringify({ dryRun: true }),
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.maxPaymentsPerRun).toBe(maxPaymentsPerRun(plan));
    }
  });
});
