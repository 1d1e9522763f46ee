import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { runProbeJob } from "../../../../src/directory/resources/probe-run";
import type { Env } from "../../../../src/env";
import type { Config } from "../../../../src/platform/config/load-config";
import { getConfig } from "../../../../src/rails/registry";
import { PROBE_GIVE_UP_AFTER_MS } from "../../../../src/store/resources";
import { sellerOrigin, setSellerBehaviour } from "../../../support/workerd/directory-fixtures";

/**
 * Issue 22 §1: resources that keep failing back off and leave the probe queue after PROBE_GIVE_UP_AFTER_MS (7 days),
 * so a flood of dead entries cannot take the re-probing slots of live listings. Real probes against the loopback
 * seller.
 */
const workerEnv = env as unknown as Env;

async function config(batch: number): Promise<Config> {
  const base = await getConfig(workerEnv);
  return { ...base, probe: { ...base.probe, cronBatchLimit: batch } };
}

describe("probe queue", () => {
  it("dead resources back off and drop out; every run keeps re-probing the live ones", async () => {
    // Nothing else in this file's database is due.
    await env.DB.prepare("UPDATE resources SET next_probe_at_ms = NULL").run();
    const wallet = (await generateKeyPairSigner()).address;
    await env.DB.prepare(
      `INSERT INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, listing_opt_in, ` +
        `registration_verified_at_ms, updated_at_ms, proven_origin, origin_proven_at_ms)
       VALUES (?, 'native_sol', ?, 'http://127.0.0.1:9', 1, 1, 1, ?, 1)`,
    )
      .bind(wallet, wallet, sellerOrigin())
      .run();
    const tag = crypto.randomUUID().slice(0, 8);
    const DEAD = 40;
    const LIVE = 4;
    for (let i = 0; i < DEAD; i++) await setSellerBehaviour({ path: `/dead-${tag}-${i}`, mode: "404" });
    // Dead rows first by id, so never-probed order puts them ahead of the live ones.
    const paths = [
      ...Array.from({ length: DEAD }, (_, i) => `/dead-${tag}-${i}`),
      ...Array.from({ length: LIVE }, (_, i) => `/live-${tag}-${i}`),
    ];
    await env.DB.batch(
      paths.map((path) =>
        env.DB.prepare(
          `INSERT INTO resources (wallet_pubkey, resource_url, title, tags_json, scheme, listing_opt_in, ` +
            `registration_verified_at_ms, updated_at_ms, merchant_origin)
           VALUES (?, ?, 'Queue', '[]', 'exact', 1, 1, 1, ?)`,
        ).bind(wallet, `${sellerOrigin()}${path}`, sellerOrigin()),
      ),
    );
    const probedAt = async (nowMs: number) =>
      (
        await env.DB.prepare(
          "SELECT resource_url AS url FROM resources WHERE wallet_pubkey = ? AND last_probe_at_ms = ?",
        )
          .bind(wallet, nowMs)
          .all<{ url: string }>()
      ).results.map((r) => new URL(r.url).pathname);

    const cfg = await config(10);
    const start = Date.now();
    // Runs one minute apart: the first five take every never-probed row once (10 + 10 + 10 + 10 + 4).
    for (let run = 0; run < 5; run++) await runProbeJob(cfg, workerEnv, start + run * 60_000);
    // The next five, within the dead rows' first back-off (10 min): only the live ones, each in every run.
    for (let run = 5; run < 10; run++) {
      const nowMs = start + run * 60_000;
      await runProbeJob(cfg, workerEnv, nowMs);
      expect((await probedAt(nowMs)).sort()).toEqual(paths.slice(DEAD).sort());
    }

    // Past the give-up time every dead row is probed once more and leaves the queue; live ones stay in it.
    let nowMs = start + PROBE_GIVE_UP_AFTER_MS + 60_000;
    for (let run = 0; run < 6; run++, nowMs += 60_000) await runProbeJob(cfg, workerEnv, nowMs);
    const queue = await env.DB.prepare(
      "SELECT sum(next_probe_at_ms IS NULL) AS parked, sum(listed) AS listed FROM resources WHERE wallet_pubkey = ?",
    )
      .bind(wallet)
      .first<{ parked: number; listed: number }>();
    expect(queue).toEqual({ parked: DEAD, listed: LIVE });
    await runProbeJob(cfg, workerEnv, nowMs);
    expect((await probedAt(nowMs)).sort()).toEqual(paths.slice(DEAD).sort());
  }, 120_000);
});
