/**
 * Benchmark-only Worker entry for `npm run bench:search`: the production Worker unchanged, plus two routes that
 * exist only here. `POST /__bench/seed?from&count` writes generated listed resources straight into the local D1;
 * `GET /__bench/search?<GET /resources query>` (or `?stats`: /directory/stats) runs the same function as the route
 * and answers with its wall time (performance.now() advances during execution in local workerd). Never deployed.
 */

import worker from "../scripts/lib/local-entry/index";
import { directoryStats, searchResources } from "../src/directory/resources/resource-search";
import type { Env } from "../src/env";

const WORDS = [
  "weather",
  "forecast",
  "finance",
  "stock",
  "maps",
  "route",
  "translate",
  "image",
  "vision",
  "audio",
  "news",
  "sports",
  "crypto",
  "price",
  "search",
  "geocode",
  "ocr",
  "summary",
  "llm",
  "embedding",
];
const BENCH_WALLET = "BenchWa11et1111111111111111111111111111111";

async function seed(env: Env, from: number, count: number): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  if (from === 0) {
    statements.push(
      env.DB.prepare(
        `INSERT OR IGNORE INTO providers (wallet_pubkey, settlement_mode, split_vault_pda, service_url, ` +
          `listing_opt_in, registration_verified_at_ms, updated_at_ms)
         VALUES (?1, 'native_sol', ?1, 'https://bench.example', 1, 1, 1)`,
      ).bind(BENCH_WALLET),
    );
  }
  for (let i = from; i < from + count; i++) {
    const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
    statements.push(
      env.DB.prepare(
        `INSERT INTO resources (wallet_pubkey, resource_url, title, description, use_case, category, tags_json, ` +
          `scheme, listing_opt_in, last_probe_ok,
           registration_verified_at_ms, updated_at_ms, listed)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?)`,
      ).bind(
        BENCH_WALLET,
        `https://bench.example/r/${i}`,
        `${w(0)} ${w(1)} api ${i}`,
        `A ${w(2)} service returning ${w(3)} data for agents, item ${i}`,
        `Use it for ${w(4)}`,
        w(5),
        JSON.stringify([w(6), w(7)]),
        i % 5 === 0 ? "sla-escrow" : "exact",
        1_700_000_000_000 + Math.floor(i / 3),
        1_700_000_000_000 + Math.floor(i / 3), // three rows per millisecond: the id tie-breaker is exercised
        i % 10 === 9 ? 0 : 1,
      ),
    );
  }
  for (let i = 0; i < statements.length; i += 100) await env.DB.batch(statements.slice(i, i + 100));
}

export default {
  ...worker,
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/seed" && request.method === "POST") {
      await seed(env, Number(url.searchParams.get("from")), Number(url.searchParams.get("count")));
      return Response.json({ ok: true });
    }
    if (url.pathname === "/__bench/search") {
      const query = Object.fromEntries(url.searchParams) as Record<string, string>;
      if (url.search === "?stats") {
        const started = performance.now();
        const stats = await directoryStats(env.DB, "bench");
        return Response.json({ ms: performance.now() - started, count: stats.resources.total, nextCursor: null });
      }
      const started = performance.now();
      const page = await searchResources(env.DB, {
        ...query,
        limit: query.limit === undefined ? undefined : Number(query.limit),
      });
      return Response.json({
        ms: performance.now() - started,
        count: page.entries.length,
        nextCursor: page.nextCursor,
      });
    }
    return worker.fetch!(request as never, env, ctx);
  },
} satisfies ExportedHandler<Env>;

export { SettleLedgerObject } from "../scripts/lib/local-entry/index";
