import type { Env } from "../../env";
import { log } from "./log";

/** One request's outcome, for dashboards and alerting (not for anything that must be exact). */
export interface RequestTelemetry {
  route: string;
  outcome: string;
  reason: string | null;
  scheme: string | null;
  network: string | null;
  latencyMs: number;
}

/**
 * Writes a data point to Workers Analytics Engine (`TELEMETRY` binding). `writeDataPoint` is fire-and-forget
 * and costs no D1 write, so the hot paths and anonymous callers can be measured without being able to fill a
 * database. Blobs: route, outcome, reason, scheme, network; double: latency in ms; index: route.
 * A deployment without the binding simply records nothing.
 */
export function recordRequestTelemetry(env: Env, point: RequestTelemetry): void {
  const dataset = env.TELEMETRY;
  if (!dataset) return;
  try {
    dataset.writeDataPoint({
      indexes: [point.route],
      blobs: [point.route, point.outcome, point.reason ?? "", point.scheme ?? "", point.network ?? ""],
      doubles: [point.latencyMs],
    });
  } catch (error) {
    log("warn", "telemetry_write_failed", { route: point.route, error });
  }
}
