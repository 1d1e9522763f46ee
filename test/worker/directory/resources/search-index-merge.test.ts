import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { mergeSearchIndex } from "../../../../src/directory/resources/search-index-merge";
import { CORE_JOBS_CRON, jobsByCron } from "../../../../src/jobs/scheduled";
import { searchIndexMergeJob } from "../../../../src/jobs/search-index-merge-job";
import { RAILS } from "../../../../src/rails/registry";
import { call } from "../../../support/workerd/worker-http";

/** The FTS5 merge job in the real D1: it shrinks an index churned by listing and unlisting, and loses nothing. */
describe("search index merge job", () => {
  it("merges the segments that single-row writes leave behind; the index stays intact and searchable", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    await env.DB.prepare(
      `INSERT INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, listing_opt_in, ` +
        `registration_verified_at_ms, updated_at_ms)
       VALUES (?, 'native_sol', ?, 'https://merge.example', 1, 1, 1)`,
    )
      .bind(wallet, wallet)
      .run();
    const word = `churn${Date.now() % 1_000_000}`;
    let kept = 0;
    // Each D1 statement is its own transaction, so each listing or unlisting flushes a small segment.
    for (let i = 0; i < 40; i++) {
      const row = await env.DB.prepare(
        `INSERT INTO resources (wallet_pubkey, resource_url, title, tags_json, scheme, listing_opt_in, ` +
          `last_probe_ok, registration_verified_at_ms, updated_at_ms, listed)
         VALUES (?, ?, ?, '[]', 'exact', 1, 1, 1, 1, 1) RETURNING id`,
      )
        .bind(wallet, `https://merge.example/${i}`, `${word} item ${i}`)
        .first<{ id: number }>();
      if (i % 4 === 0) kept = row!.id;
      else await env.DB.prepare("UPDATE resources SET listed = 0 WHERE id = ?").bind(row!.id).run();
    }
    const dataRows = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM resources_fts_data").first<{ n: number }>())!.n;
    const before = await dataRows();
    await mergeSearchIndex(env.DB);
    expect(await dataRows()).toBeLessThan(before);
    await env.DB.prepare("INSERT INTO resources_fts (resources_fts) VALUES ('integrity-check')").run();
    const found = (await call(`/resources?q=${word}&limit=100`)).body.entries.map((e: { id: number }) => e.id);
    expect(found).toHaveLength(10);
    expect(found).toContain(kept);
  });

  it("runs on the probe trigger after the probe job", () => {
    const jobs = jobsByCron(RAILS)[CORE_JOBS_CRON]!.map((job) => job.name);
    expect(jobs).toContain(searchIndexMergeJob.name);
    expect(jobs.indexOf(searchIndexMergeJob.name)).toBeGreaterThan(jobs.indexOf("probe-resources"));
  });
});
