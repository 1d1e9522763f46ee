/**
 * `npm run bench:search`: resource search latency at 100,000 resources in workerd's local D1 (the real Worker
 * under wrangler's local runtime, bench/directory-search-worker.ts entry). For each query shape it reports the
 * D1 search time measured inside the Worker (the handler's search function) and the HTTP round trip of the real
 * `GET /resources` route. Numbers on a shared machine are noisy; compare medians across runs.
 */

import { startLocalnet } from "../localnet/server";
import { randomKeypair } from "../scripts/lib/keypair";
import { startWorker } from "../scripts/lib/run-worker";
import { fmt, formatTable, median, percentile } from "./measure";

const TOTAL = Number(process.env.BENCH_RESOURCES ?? 100_000);
const SEED_CHUNK = 1_000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);

/** Cursors of pages 2..31 of the common-word search (filled before sampling; page 26+ is in its second window). */
const commonWordCursors: string[] = [];

const QUERIES: [string, (i: number) => string][] = [
  ["newest page (no q)", () => "limit=50"],
  [
    "deep cursor page",
    (i) => {
      const updatedAt = new Date(1_700_000_000_000 + 10_000 + i).toISOString().replace("Z", "000Z");
      return `limit=50&cursor=${encodeURIComponent(updatedAt)}~999999`;
    },
  ],
  ["category + scheme filter", () => "category=maps&scheme=exact&limit=50"],
  ["tag filter", () => "tag=vision&limit=50"],
  ["q: one common word", () => "q=weather&limit=20"],
  ["q: two words", () => "q=forecast%20vision&limit=20"],
  ["q: rare term (an id)", (i) => `q=${(i * 487) % TOTAL}&limit=20`],
  [
    "q: common word, pages 2..31",
    (i) => `q=weather&limit=20&cursor=${encodeURIComponent(commonWordCursors[i % commonWordCursors.length]!)}`,
  ],
  ["q + category (5% of rows)", () => "q=news&category=maps&limit=20"],
  ["q: prefix + filter", () => "q=trans&category=news&limit=20"],
  ["/directory/stats", () => "stats"],
];

/** Walks the first pages of the common-word search once, keeping each nextCursor. */
async function collectCursors(base: string): Promise<void> {
  let cursor: string | null = null;
  for (let page = 0; page < 30; page++) {
    const next = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const url: string = `${base}/api/v1/facilitator/resources?q=weather&limit=20${next}`;
    cursor = ((await (await fetch(url)).json()) as { nextCursor: string | null }).nextCursor;
    if (cursor === null) throw new Error(`common-word search ended after ${page + 1} pages`);
    commonWordCursors.push(cursor);
  }
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error("bench:search: overall deadline (15 min) reached");
    process.exit(2);
  }, 15 * 60_000);
  // only for the Worker's health check: search never calls RPC
  const chain = await startLocalnet({ port: 0, quiet: true });
  const worker = await startWorker({
    rpcUrl: chain.url,
    feePayerSecretKeyBase58: randomKeypair().secretKeyBase58,
    entrypoint: "bench/directory-search-worker.ts",
  });
  try {
    const base = worker.url;
    console.log(`seeding ${TOTAL} resources (90% listed, FTS5 index via triggers)…`);
    const seedStart = performance.now();
    for (let from = 0; from < TOTAL; from += SEED_CHUNK) {
      const response = await fetch(`${base}/__bench/seed?from=${from}&count=${Math.min(SEED_CHUNK, TOTAL - from)}`, {
        method: "POST",
      });
      if (!response.ok) throw new Error(`seed failed: ${response.status} ${await response.text()}`);
    }
    console.log(`seeded in ${fmt((performance.now() - seedStart) / 1000)} s`);

    await collectCursors(base);
    const rows: string[][] = [];
    for (const [name, query] of QUERIES) {
      for (let i = 0; i < 10; i++) await fetch(`${base}/__bench/search?${query(i)}`).then((r) => r.text()); // warm up
      const inWorker: number[] = [];
      const http: number[] = [];
      let count = 0;
      for (let i = 0; i < SAMPLES; i++) {
        const measured = (await (await fetch(`${base}/__bench/search?${query(i)}`)).json()) as {
          ms: number;
          count: number;
          error?: string;
        };
        if (typeof measured.ms !== "number") throw new Error(`${name}: ${JSON.stringify(measured)}`);
        inWorker.push(measured.ms);
        count = measured.count;
        const started = performance.now();
        const path = query(i) === "stats" ? "directory/stats" : `resources?${query(i)}`;
        const response = await fetch(`${base}/api/v1/facilitator/${path}`);
        await response.text();
        http.push(performance.now() - started);
        if (response.status !== 200) throw new Error(`${name}: HTTP ${response.status}`);
      }
      rows.push([
        name,
        String(count),
        fmt(median(inWorker), 2),
        fmt(percentile(inWorker, 95), 2),
        fmt(percentile(inWorker, 99), 2),
        fmt(median(http), 2),
        fmt(percentile(http, 95), 2),
      ]);
    }
    console.log(`\nsearch latency at ${TOTAL} resources, ${SAMPLES} samples per query, serial (ms)`);
    console.log(formatTable(["query", "rows", "D1 p50", "D1 p95", "D1 p99", "HTTP p50", "HTTP p95"], rows));
  } finally {
    clearTimeout(deadline);
    await worker.stop();
    await chain.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
