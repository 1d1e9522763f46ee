import { describe, expect, it } from "vitest";
import {
  afterFailedAttempt,
  KEEPER_MAX_ATTEMPTS,
  KEEPER_RETRY_BASE_MS,
  KEEPER_RETRY_MAX_DELAY_MS,
} from "../../../../src/jobs/keeper/backoff";

describe("escrow keeper backoff", () => {
  it("doubles the wait after each failed attempt, never past the ceiling, and gives up at the cap", () => {
    const now = 1_000_000;
    const delays: number[] = [];
    let failures = 0;
    for (;;) {
      const next = afterFailedAttempt(failures, now);
      failures = next.failures;
      if (next.state === "stuck") break;
      delays.push(next.nextCheckAtMs - now);
    }
    expect(failures).toBe(KEEPER_MAX_ATTEMPTS);
    expect(delays).toHaveLength(KEEPER_MAX_ATTEMPTS - 1);
    expect(delays[0]).toBe(KEEPER_RETRY_BASE_MS);
    for (let i = 1; i < delays.length; i++)
      expect(delays[i]).toBe(Math.min(2 * delays[i - 1]!, KEEPER_RETRY_MAX_DELAY_MS));
    expect(Math.max(...delays)).toBeLessThanOrEqual(KEEPER_RETRY_MAX_DELAY_MS);
  });
});
