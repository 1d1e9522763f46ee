import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { MANIFESTS_PER_RUN, runProbeJob } from "../../../../src/directory/resources/probe-run";
import type { Env } from "../../../../src/env";
import type { Config } from "../../../../src/platform/config/load-config";
import { FREE_PLAN_PROBES_PER_RUN } from "../../../../src/platform/config/workers-plan";
import { getConfig } from "../../../../src/rails/registry";
import { sellerOrigin, setSellerBehaviour } from "../../../support/workerd/directory-fixtures";

const workerEnv = env as unknown as Env;
const BATCH = 400;

async function insertResources(count: number, pathOf: (i: number) => string): Promise<string> {
  const wallet = (await generateKeyPairSigner()).address;
  await env.DB.prepare(
    `INSERT INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, listing_opt_in, ` +
      `registration_verified_at_ms, updated_at_ms, proven_origin, origin_proven_at_ms)
     VALUES (?, 'native_sol', ?, ?, 1, 1, 1, ?, 1)`,
  )
    // A service origin where nothing listens: the job's manifest harvest finds nothing (and cannot pick up a
    // manifest another test file set on the shared loopback seller); the resources themselves are on that seller,
    // whose origin the wallet proved (issue 22: only proven origins are probed).
    .bind(wallet, wallet, "http://127.0.0.1:9", sellerOrigin())
    .run();
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < count; i++) {
    statements.push(
      env.DB.prepare(
        `INSERT INTO resources (wallet_pubkey, resource_url, title, tags_json, scheme, listing_opt_in, ` +
          `registration_verified_at_ms, updated_at_ms, merchant_origin)
         VALUES (?, ?, ?, '[]', 'exact', 1, 1, 1, ?)`,
      ).bind(wallet, `${sellerOrigin()}${pathOf(i)}`, `Cron ${i}`, sellerOrigin()),
    );
  }
  for (let i = 0; i < statements.length; i += 500) await env.DB.batch(statements.slice(i, i + 500));
  return wallet;
}

async function config(batch: number): Promise<Config> {
  const base = await getConfig(workerEnv);
  return { ...base, probe: { ...base.probe, cronBatchLimit: batch } };
}

describe("probe cron", () => {
  it("covers 10,000 resources in 25 runs of 400, oldest probe first, each run within its subrequest " +
    "budget", async () => {
    const wallet = await insertResources(10_000, (i) => `/cron/${i}`);
    const cfg = await config(BATCH);
    let nowMs = Date.now();
    for (let run = 1; run <= 25; run++) {
      nowMs += 60_000;
      const summary = await runProbeJob(cfg, workerEnv, nowMs);
      // Subrequests: ≤ BATCH probes + ≤ MANIFESTS_PER_RUN manifest fetches (+ a few D1/KV calls).
      expect(summary.probed).toBeLessThanOrEqual(BATCH);
      expect(summary.manifests).toBeLessThanOrEqual(MANIFESTS_PER_RUN);
      const probedThisRun = await env.DB.prepare(
        "SELECT count(*) AS n FROM resources WHERE wallet_pubkey = ? AND last_probe_at_ms = ?",
      )
        .bind(wallet, nowMs)
        .first<{ n: number }>();
      expect(probedThisRun!.n).toBe(BATCH); // never-probed rows go first, so no row is probed twice before all are
    }
    const counts = await env.DB.prepare(
      "SELECT count(*) AS total, sum(last_probe_at_ms IS NOT NULL) AS probed, sum(listed) AS listed FROM resources " +
        "WHERE wallet_pubkey = ?",
    )
      .bind(wallet)
      .first<{ total: number; probed: number; listed: number }>();
    expect(counts).toEqual({ total: 10_000, probed: 10_000, listed: 10_000 });
  }, 240_000);

  it("on Workers Free (SVC_WORKERS_PLAN=free) a run harvests one manifest and probes at most " +
    "FREE_PLAN_PROBES_PER_RUN resources", async () => {
    await env.DB.prepare(
      "UPDATE resources SET last_probe_at_ms = 4102444800000, next_probe_at_ms = 4102444800000",
    ).run(); // only the new rows are due
    for (let i = 0; i < MANIFESTS_PER_RUN; i++) await insertResources(i === 0 ? 50 : 0, (n) => `/free-${n}`);
    const summary = await runProbeJob({ ...(await config(BATCH)), workersPlan: "free" }, workerEnv);
    expect(summary).toMatchObject({ probed: FREE_PLAN_PROBES_PER_RUN, manifests: 1 });
    const paid = await runProbeJob(await config(BATCH), workerEnv);
    // Paid: the whole due set, up to SVC_PROBE_CRON_BATCH_LIMIT
    expect(paid).toMatchObject({ probed: 50, manifests: MANIFESTS_PER_RUN });
  }, 60_000);

  it("a batch with a hanging, a redirecting and a huge target finishes after one probe timeout", async () => {
    const modes = ["hang", "redirect", "huge", "402"];
    const tag = crypto.randomUUID().slice(0, 8);
    for (const mode of modes) await setSellerBehaviour({ path: `/bad-${tag}-${mode}`, mode });
    await env.DB.prepare(
      "UPDATE resources SET last_probe_at_ms = 4102444800000, next_probe_at_ms = 4102444800000",
    ).run(); // only the new rows are due
    const wallet = await insertResources(modes.length, (i) => `/bad-${tag}-${modes[i]}`);
    const started = Date.now();
    const summary = await runProbeJob(await config(modes.length), workerEnv);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(summary).toMatchObject({ probed: 4, passed: 1, failed: 3 });
    const rows = await env.DB.prepare(
      "SELECT resource_url AS url, last_probe_ok AS ok, last_probe_error AS error FROM resources WHERE wallet_pubkey " +
        "= ? ORDER BY id",
    )
      .bind(wallet)
      .all<{ url: string; ok: number; error: string }>();
    expect(rows.results.map((r) => r.ok)).toEqual([0, 0, 0, 1]);
    expect(rows.results[0]!.error).toMatch(/within 5000 ms/);
  }, 60_000);
});
