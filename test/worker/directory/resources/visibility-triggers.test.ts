import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { call } from "../../../support/workerd/worker-http";

/**
 * The triggers of 0005_search_rank.sql in the real D1: `visible` (all four listing gates), the full-text rows
 * and the /directory/stats counters must follow every write that can change them, whoever makes it (the
 * registry, the probe job, an operator), with no scan on the read side.
 */
async function newMerchant(): Promise<string> {
  const wallet = (await generateKeyPairSigner()).address;
  await env.DB.prepare(
    `INSERT INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, listing_opt_in, ` +
      `registration_verified_at_ms, updated_at_ms)
     VALUES (?, 'native_sol', ?, 'https://vis.example', 1, 1, 1)`,
  )
    .bind(wallet, wallet)
    .run();
  return wallet;
}

async function insertResource(
  wallet: string,
  fields: { title: string; scheme?: string; category?: string; tags?: string[]; listed?: number },
): Promise<number> {
  const row = await env.DB.prepare(
    `INSERT INTO resources (wallet_pubkey, resource_url, title, category, tags_json, scheme, listing_opt_in, ` +
      `last_probe_ok, registration_verified_at_ms, updated_at_ms, listed)
     VALUES (?, ?, ?, ?, ?, ?, 1, 1, 1, ?, ?) RETURNING id`,
  )
    .bind(
      wallet,
      `https://vis.example/${crypto.randomUUID()}`,
      fields.title,
      fields.category ?? null,
      JSON.stringify(fields.tags ?? []),
      fields.scheme ?? "exact",
      Date.now(),
      fields.listed ?? 1,
    )
    .first<{ id: number }>();
  return row!.id;
}

const run = (sql: string, ...binds: unknown[]) =>
  env.DB.prepare(sql)
    .bind(...binds)
    .run();
const searchIds = async (query: string) =>
  ((await call(`/resources?${query}`)).body.entries as { id: number }[]).map((e) => e.id);
const byScheme = async () => (await call("/directory/stats")).body.resources.byScheme as Record<string, number>;

/** The maintained state equals a recomputation from the source tables. */
async function expectDerivedStateConsistent(): Promise<void> {
  const gates =
    "r.listed = 1 AND EXISTS (SELECT 1 FROM providers p WHERE p.wallet_pubkey = r.wallet_pubkey AND p.retired_at_ms " +
    "IS NULL)";
  const wrongVisible = await env.DB.prepare(
    `SELECT count(*) AS n FROM resources r WHERE r.visible IS NOT (${gates})`,
  ).first<{ n: number }>();
  expect(wrongVisible!.n).toBe(0);
  const ftsMismatch = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM (SELECT rowid FROM resources_fts EXCEPT SELECT id FROM resources WHERE visible = 1))
          + (SELECT count(*) FROM (SELECT id FROM resources WHERE visible = 1 EXCEPT SELECT rowid FROM ` +
      `resources_fts)) AS n`,
  ).first<{ n: number }>();
  expect(ftsMismatch!.n).toBe(0);
  const tagRows = "SELECT tag, updated_at_ms, resource_id FROM resource_tags";
  const tagRecount =
    "SELECT DISTINCT j.value, r.updated_at_ms, r.id FROM resources r, json_each(r.tags_json) j WHERE r.visible = 1";
  const tagMismatch = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM ` +
      `(${tagRows} EXCEPT ${tagRecount})) + (SELECT count(*) FROM (${tagRecount} EXCEPT ${tagRows})) AS n`,
  ).first<{ n: number }>();
  expect(tagMismatch!.n).toBe(0);
  const recount = await env.DB.prepare(
    `SELECT r.scheme AS scheme, count(*) AS n FROM resources r WHERE ${gates} GROUP BY r.scheme`,
  ).all<{ scheme: string; n: number }>();
  const expected = Object.fromEntries(recount.results.map((row) => [row.scheme, row.n]));
  expect(await byScheme()).toEqual(expected);
}

describe("listing gates maintained by triggers", () => {
  it(
    "follows `listed`, the merchant's retirement and deletion in search, lists, /resources/{id} and " + "stats",
    async () => {
      const wallet = await newMerchant();
      const word = `vis${Date.now() % 1_000_000}`;
      const shown = await insertResource(wallet, { title: `Shown ${word}`, scheme: "sla-escrow" });
      const hidden = await insertResource(wallet, { title: `Hidden ${word}`, listed: 0 });
      expect(await searchIds(`q=${word}`)).toEqual([shown]);
      expect((await call(`/resources/${hidden}`)).status).toBe(404);
      await expectDerivedStateConsistent();

      // The probe flips `listed` both ways.
      await run("UPDATE resources SET listed = 1 WHERE id = ?", hidden);
      expect((await searchIds(`q=${word}`)).sort()).toEqual([shown, hidden].sort());
      await run("UPDATE resources SET listed = 0 WHERE id = ?", shown);
      expect(await searchIds(`q=${word}`)).toEqual([hidden]);
      expect((await call(`/resources/${shown}`)).status).toBe(404);
      await expectDerivedStateConsistent();

      // Gate 1: retiring the merchant hides all its resources; coming back shows the listed ones again.
      await run("UPDATE providers SET retired_at_ms = 1 WHERE wallet_pubkey = ?", wallet);
      expect(await searchIds(`q=${word}`)).toEqual([]);
      expect(await searchIds("limit=100")).not.toContain(hidden);
      await expectDerivedStateConsistent();
      await run("UPDATE providers SET retired_at_ms = NULL WHERE wallet_pubkey = ?", wallet);
      expect(await searchIds(`q=${word}`)).toEqual([hidden]);
      await expectDerivedStateConsistent();

      await run("DELETE FROM resources WHERE id = ?", hidden);
      expect(await searchIds(`q=${word}`)).toEqual([]);
      await run("DELETE FROM resources WHERE wallet_pubkey = ?", wallet);
      await run("DELETE FROM providers WHERE wallet_pubkey = ?", wallet);
      await expectDerivedStateConsistent();
    },
  );

  it("a resource of a merchant registered later becomes visible then; a deleted merchant hides it", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const word = `late${Date.now() % 1_000_000}`;
    const id = await insertResource(wallet, { title: `Early ${word}` });
    expect(await searchIds(`q=${word}`)).toEqual([]);
    await run(
      `INSERT INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, listing_opt_in, ` +
        `registration_verified_at_ms, updated_at_ms)
       VALUES (?, 'native_sol', ?, 'https://vis.example', 1, 1, 1)`,
      wallet,
      wallet,
    );
    expect(await searchIds(`q=${word}`)).toEqual([id]);
    await run("DELETE FROM providers WHERE wallet_pubkey = ?", wallet);
    expect(await searchIds(`q=${word}`)).toEqual([]);
    await expectDerivedStateConsistent();
  });

  it(
    "re-indexes changed text and moves the stats count when the scheme changes; no-op writes change " + "nothing",
    async () => {
      const wallet = await newMerchant();
      const before = (await byScheme())["sla-escrow"] ?? 0;
      const id = await insertResource(wallet, { title: `Oldname${Date.now()}`, scheme: "exact" });
      const renamed = `Newname${Date.now()}`;
      await run("UPDATE resources SET title = ? WHERE id = ?", renamed, id);
      expect(await searchIds(`q=${renamed}`)).toEqual([id]);
      expect(await searchIds("q=oldname")).not.toContain(id);
      await run("UPDATE resources SET scheme = 'sla-escrow' WHERE id = ?", id);
      expect((await byScheme())["sla-escrow"]).toBe(before + 1);
      // The probe job rewrites `listed` with its unchanged value on every pass.
      await run("UPDATE resources SET listed = 1, title = title WHERE id = ?", id);
      expect((await byScheme())["sla-escrow"]).toBe(before + 1);
      expect(await searchIds(`q=${renamed}`)).toEqual([id]);
      await expectDerivedStateConsistent();
    },
  );

  it(
    "lists by tag from the maintained tag rows: new tags, a bump of updatedAt and unlisting show at " + "once",
    async () => {
      const wallet = await newMerchant();
      const tag = `t${Date.now() % 1_000_000}`;
      const older = await insertResource(wallet, { title: "Older", tags: [tag] });
      const newer = await insertResource(wallet, { title: "Newer", tags: ["other"] });
      await run("UPDATE resources SET updated_at_ms = updated_at_ms - 10 WHERE id = ?", older);
      expect(await searchIds(`tag=${tag}`)).toEqual([older]);
      await run("UPDATE resources SET tags_json = ? WHERE id = ?", JSON.stringify(["other", tag]), newer);
      expect(await searchIds(`tag=${tag}`)).toEqual([newer, older]);
      await run("UPDATE resources SET updated_at_ms = updated_at_ms + 1000 WHERE id = ?", older);
      expect(await searchIds(`tag=${tag}`)).toEqual([older, newer]);
      expect(await searchIds(`tag=${tag}&limit=1`)).toEqual([older]);
      await run("UPDATE resources SET listed = 0 WHERE id = ?", older);
      expect(await searchIds(`tag=${tag}`)).toEqual([newer]);
      expect(await searchIds(`tag=never-used-${tag}`)).toEqual([]);
      await expectDerivedStateConsistent();
    },
  );

  it(
    "applies category, scheme and tag exactly even where the full-text prefilter cannot tell values " + "apart",
    async () => {
      const wallet = await newMerchant();
      const word = `cat${Date.now() % 1_000_000}`;
      // Porter stems "news" and "new" alike; "a-b" is a phrase that "a-b-c" also contains.
      const news = await insertResource(wallet, { title: `${word} one`, category: "news", tags: ["a-b"] });
      const neu = await insertResource(wallet, {
        title: `${word} two`,
        category: "new",
        tags: ["a-b-c"],
        scheme: "sla-escrow",
      });
      // The indexed category token spells '-' as 'z': "a-b" and "azb" share it.
      const azb = await insertResource(wallet, { title: `${word} three`, category: "azb" });
      const aDashB = await insertResource(wallet, { title: `${word} four`, category: "a-b" });
      expect(await searchIds(`q=${word}&category=azb`)).toEqual([azb]);
      expect(await searchIds(`q=${word}&category=a-b`)).toEqual([aDashB]);
      expect(await searchIds(`q=${word}&category=news`)).toEqual([news]);
      expect(await searchIds(`q=${word}&category=new`)).toEqual([neu]);
      expect(await searchIds(`q=${word}&tag=a-b`)).toEqual([news]);
      expect(await searchIds(`q=${word}&tag=a-b-c`)).toEqual([neu]);
      expect(await searchIds(`q=${word}&scheme=sla-escrow`)).toEqual([neu]);
      expect(await searchIds(`category=new&limit=100`)).toEqual([neu]);
    },
  );
});
