import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runScheduled, SWEEP_CRON, PROBE_CRON } from "../../src/jobs/scheduled";
import type { Env } from "../../src/env";

describe("scheduled (Cron Triggers)", () => {
  it("maps the wrangler.toml cron expressions to their jobs", async () => {
    const sweep = await runScheduled(SWEEP_CRON, env as unknown as Env);
    const probe = await runScheduled(PROBE_CRON, env as unknown as Env);
    expect(sweep.job).toBe("sweep");
    expect(probe.job).toBe("probe");
  });

  it("does nothing with an invalid configuration (and says so in the log)", async () => {
    const result = await runScheduled(SWEEP_CRON, { ...(env as unknown as Env), SOLANA_RPC_URL: "not a url" });
    expect(result).toEqual({ job: "none", ran: false });
  });

  it("keeps its cron expressions in sync with wrangler.toml", async () => {
    const toml = await import("../../wrangler.toml?raw").then((m) => m.default as string).catch(() => null);
    if (toml === null) return expect.fail("wrangler.toml could not be read");
    const crons = /\[triggers\]\s*\n(?:#.*\n)*crons = \[(.*)\]/.exec(toml)?.[1];
    expect(crons).toContain(`"${SWEEP_CRON}"`);
    expect(crons).toContain(`"${PROBE_CRON}"`);
  });
});
