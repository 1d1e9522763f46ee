import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { RANK_WINDOW } from "../../../../src/directory/resources/ranked-search";
import { call } from "../../../support/workerd/worker-http";

/**
 * Search, filters and keyset pagination over generated rows written straight into the real D1 (the listing
 * gates are the columns the registry and probe maintain; the lifecycle itself is covered in listing-gates.test.ts).
 */
const COUNT = 1_200;
const SAME_MS = 1_700_000_000_000;
const CATEGORIES = ["weather", "finance", "maps"];
let wallet: string;
let tag: string;

async function insertProvider(address: string, updatedAtMs: number, serviceUrl = "https://gen.example") {
  await env.DB.prepare(
    `INSERT INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, listing_opt_in, ` +
      `registration_verified_at_ms, updated_at_ms)
     VALUES (?, 'native_sol', ?, ?, 1, ?, ?)`,
  )
    .bind(address, address, serviceUrl, updatedAtMs, updatedAtMs)
    .run();
}

beforeAll(async () => {
  wallet = (await generateKeyPairSigner()).address;
  tag = `gen${Date.now() % 100000}`;
  await insertProvider(wallet, SAME_MS);
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < COUNT; i++) {
    // Half of the rows share one millisecond: only the id tie-breaker orders them.
    const updatedAtMs = i % 2 === 0 ? SAME_MS : SAME_MS - 1_000 - i;
    const title = i % 100 === 0 ? `Glacier ${tag} report ${i}` : `Dataset ${i}`;
    const description = i % 100 === 50 ? `mentions glacier ${tag} in passing` : "plain";
    statements.push(
      env.DB.prepare(
        `INSERT INTO resources (wallet_pubkey, resource_url, http_method, title, description, category, tags_json, ` +
          `scheme, listing_opt_in,
           last_probe_ok, registration_verified_at_ms, updated_at_ms, listed)
         VALUES (?, ?, 'GET', ?, ?, ?, ?, ?, 1, 1, ?, ?, ?)`,
      ).bind(
        wallet,
        `https://gen.example/${tag}/${i}`,
        title,
        description,
        CATEGORIES[i % 3],
        JSON.stringify(i % 4 === 0 ? [tag, "x"] : ["x"]),
        i % 5 === 0 ? "sla-escrow" : "exact",
        updatedAtMs,
        updatedAtMs,
        i % 7 === 6 ? 0 : 1,
      ),
    );
  }
  for (let i = 0; i < statements.length; i += 200) await env.DB.batch(statements.slice(i, i + 200));
});

async function pageAll(query: string, limit: number): Promise<{ id: number; updatedAt: string }[]> {
  const seen: { id: number; updatedAt: string }[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const response = await call(
      `/resources?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    seen.push(...response.body.entries);
    cursor = response.body.nextCursor;
    if (cursor === null) return seen;
  }
  throw new Error("pagination did not end");
}

const expectedIds = async (where: string) =>
  (
    await env.DB.prepare(
      `SELECT id FROM resources WHERE wallet_pubkey = ? AND listed = 1 ` +
        `AND ${where} ORDER BY updated_at_ms DESC, id DESC`,
    )
      .bind(wallet)
      .all<{ id: number }>()
  ).results.map((r) => r.id);

describe("resource search over generated resources", () => {
  it(
    "pages every listed row exactly once, newest first, ties broken by id (600 rows share one " + "millisecond)",
    async () => {
      const seen = await pageAll(`tag=${tag}`, 37);
      expect(seen.map((e) => e.id)).toEqual(
        await expectedIds(`EXISTS (SELECT 1 FROM json_each(tags_json) WHERE value = '${tag}')`),
      );
      const all = await pageAll("category=maps", 100);
      const mine = all
        .filter((e) => (e as unknown as { walletPubkey: string }).walletPubkey === wallet)
        .map((e) => e.id);
      expect(mine).toEqual(await expectedIds("category = 'maps'"));
      expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    },
  );

  it("filters exactly by scheme, category and tag together; unlisted rows never appear", async () => {
    const seen = await pageAll(`tag=${tag}&scheme=sla-escrow&category=weather`, 10);
    const ids = await expectedIds(`scheme = 'sla-escrow' AND category = 'weather' AND tags_json LIKE '%${tag}%'`);
    expect(ids.length).toBeGreaterThan(10);
    expect(seen.map((e) => e.id)).toEqual(ids);
    const unlisted = (await env.DB.prepare("SELECT id FROM resources WHERE wallet_pubkey = ? AND listed = 0 LIMIT 1")
      .bind(wallet)
      .first<{ id: number }>())!.id;
    expect((await call(`/resources/${unlisted}`)).status).toBe(404);
  });

  it(
    "ranks title matches above description matches and pages a full-text search without duplicates or " + "gaps",
    async () => {
      const seen = (await pageAll(`q=glacier%20${tag}`, 3)) as unknown as { id: number; title: string }[];
      const expected = await expectedIds(`(title LIKE 'Glacier ${tag}%' OR description LIKE '%glacier ${tag}%')`);
      expect(seen.map((e) => e.id).sort()).toEqual(expected.sort());
      const firstDescriptionOnly = seen.findIndex((e) => !e.title.startsWith("Glacier"));
      expect(firstDescriptionOnly).toBeGreaterThan(0);
      expect(seen.slice(firstDescriptionOnly).every((e) => !e.title.startsWith("Glacier"))).toBe(true);
      // Prefix match and FTS syntax in q are inert words, not operators.
      expect((await call(`/resources?q=glaci%20${tag}`)).body.entries.length).toBeGreaterThan(0);
      expect((await call(`/resources?q=${encodeURIComponent('" OR * NEAR(')}`)).status).toBe(200);
      expect((await call(`/resources?q=${encodeURIComponent('" * (')}`)).status).toBe(400);
      // A one-character word is the word itself, not a prefix of every word starting with it.
      expect((await call(`/resources?q=g%20${tag}`)).body.entries).toEqual([]);
    },
  );

  it(
    `pages a search matching more than one rank window ` +
      `(${RANK_WINDOW}) without duplicates or gaps, title matches first in each`,
    async () => {
      // Every "Dataset i" title matches: about a thousand listed rows, so the walk crosses window boundaries.
      const seen = (await pageAll(`q=dataset`, 47)) as unknown as { id: number; title: string; walletPubkey: string }[];
      const mine = seen.filter((e) => e.walletPubkey === wallet);
      const expected = await expectedIds("title LIKE 'Dataset %'");
      expect(expected.length).toBeGreaterThan(RANK_WINDOW);
      expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
      expect(mine.map((e) => e.id).sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
      // Inside the first window the newest ids come in rank order: equal scores, so shorter titles, then newer ids.
      const firstPage = (await call("/resources?q=dataset&limit=5")).body.entries as { id: number; title: string }[];
      const lengths = firstPage.map((e) => e.title.length);
      expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    },
  );

  it("ranks a title match above a newer description-only match of the same word", async () => {
    const word = `rank${Date.now() % 1_000_000}`;
    const insert = (title: string, description: string) =>
      env.DB.prepare(
        `INSERT INTO resources (wallet_pubkey, resource_url, title, description, tags_json, scheme, listing_opt_in, ` +
          `last_probe_ok, registration_verified_at_ms, updated_at_ms, listed)
         VALUES (?, ?, ?, ?, '[]', 'exact', 1, 1, 1, 1, 1) RETURNING id`,
      )
        .bind(wallet, `https://gen.example/${word}/${title.length}/${description.length}`, title, description)
        .first<{ id: number }>();
    const titled = (await insert(`Weather ${word}`, "plain"))!.id;
    const described = (await insert("Plain", `about ${word}`))!.id;
    expect(described).toBeGreaterThan(titled);
    expect((await call(`/resources?q=${word}`)).body.entries.map((e: { id: number }) => e.id)).toEqual([
      titled,
      described,
    ]);
  });

  it("clamps limit to 1..100 and rejects a forged cursor", async () => {
    expect((await call(`/resources?tag=${tag}&limit=0`)).body.entries).toHaveLength(1);
    expect((await call(`/resources?tag=${tag}&limit=1000`)).body.entries).toHaveLength(100);
    expect((await call("/resources?cursor=yesterday")).status).toBe(400);
    expect((await call("/resources?q=glacier&cursor=2026-01-01T00:00:00.000000Z~5")).status).toBe(400);
    expect((await call(`/resources?q=glacier&cursor=rank~5~${RANK_WINDOW}`)).status).toBe(400);
    expect((await call("/resources?q=glacier&cursor=rank~99999999999999999~0")).status).toBe(400);
    expect((await call("/resources?q=glacier&cursor=rank~-1~0")).status).toBe(400);
  });

  it("counts only listed resources in /directory/stats", async () => {
    const stats = await call("/directory/stats");
    const listed = (await env.DB.prepare(
      "SELECT count(*) AS n FROM resources r WHERE r.listed = 1 AND EXISTS (SELECT 1 FROM providers p WHERE " +
        "p.wallet_pubkey = r.wallet_pubkey AND p.retired_at_ms IS NULL)",
    ).first<{ n: number }>())!.n;
    expect(stats.body.resources.total).toBe(listed);
    expect(stats.body.resources.byScheme["sla-escrow"]).toBeGreaterThan(0);
  });

  it("unlists every resource of a retired merchant (gate 1)", async () => {
    const other = (await generateKeyPairSigner()).address;
    await insertProvider(other, SAME_MS);
    const id = (await env.DB.prepare(
      `INSERT INTO resources (wallet_pubkey, resource_url, title, tags_json, scheme, listing_opt_in, last_probe_ok, ` +
        `registration_verified_at_ms, updated_at_ms, listed)
       VALUES (?, 'https://gen.example/retiring', 'Retiring', '[]', 'exact', 1, 1, 1, 1, 1) RETURNING id`,
    )
      .bind(other)
      .first<{ id: number }>())!.id;
    expect((await call(`/resources/${id}`)).status).toBe(200);
    await env.DB.prepare("UPDATE providers SET retired_at_ms = 1 WHERE wallet_pubkey = ?").bind(other).run();
    expect((await call(`/resources/${id}`)).status).toBe(404);
  });
});

describe("provider directory cursor", () => {
  it("pages providers updated in the same millisecond without duplicates or gaps", async () => {
    const ms = SAME_MS + 10_000_000;
    const wallets: string[] = [];
    for (let i = 0; i < 45; i++) {
      const address = (await generateKeyPairSigner()).address;
      wallets.push(address);
      await insertProvider(address, ms);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await call(`/providers?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      seen.push(...response.body.entries.map((e: { walletPubkey: string }) => e.walletPubkey));
      cursor = response.body.nextCursor;
    } while (cursor !== null && seen.length < 10_000);
    expect(new Set(seen).size).toBe(seen.length);
    for (const address of wallets) expect(seen).toContain(address);
  });
});
