/**
 * BENCH-ONLY entry (never deployed): the real Worker with its D1 binding held `BENCH_DB_LATENCY_MS` away, as a Worker
 * far from D1's primary sees it (`npm run bench -- --real-timing --db-latency-ms N`). Every call of ours that reaches
 * D1 (a statement's run/all/first/raw, a batch) waits that long before it goes to the database, and is logged with its
 * start and end so the bench can count the D1 round trips inside each settle and place them against the chain's
 * confirmation. `GET /__bench/d1-calls?since=<ms>` answers the log; nothing else differs from src/index.ts.
 *
 * The settle ledger's Durable Object is near the request (created where its first settle arrives), so its binding is
 * not delayed; its own D1 calls (the claim written through, the mirror) are, and logged like the Worker's.
 */

import worker from "../../scripts/lib/local-entry/index";
import type { Env } from "../../src/env";
import { SettleLedgerObject as NearLedgerObject } from "../../src/settlement/settle-ledger-object";

interface BenchEnv extends Env {
  BENCH_DB_LATENCY_MS?: string;
}

/** One D1 round trip: when our code asked for it and when its answer came back (the isolate's clock, ms). */
interface D1Call {
  startMs: number;
  endMs: number;
  what: string;
}

const calls: D1Call[] = [];
const MAX_LOGGED_CALLS = 100_000;
const wrapped = new WeakMap<D1Database, D1Database>();
/** The real statement behind each wrapper, for `batch`, which must be handed the binding's own statements. */
const realStatements = new WeakMap<object, D1PreparedStatement>();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function held<T>(latencyMs: number, what: string, call: () => Promise<T>): Promise<T> {
  const startMs = Date.now();
  try {
    if (latencyMs > 0) await sleep(latencyMs);
    return await call();
  } finally {
    if (calls.length < MAX_LOGGED_CALLS) calls.push({ startMs, endMs: Date.now(), what });
  }
}

function wrapStatement(statement: D1PreparedStatement, latencyMs: number, sql: string): D1PreparedStatement {
  const what = sql.replace(/\s+/g, " ").trim().slice(0, 60);
  const proxy: D1PreparedStatement = new Proxy(statement, {
    get(target, property) {
      if (property === "bind") return (...values: unknown[]) => wrapStatement(target.bind(...values), latencyMs, sql);
      if (property === "run" || property === "all" || property === "first" || property === "raw") {
        const method = target[property] as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => held(latencyMs, what, () => method.apply(target, args));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  realStatements.set(proxy, statement);
  return proxy;
}

function delayedDatabase(db: D1Database, latencyMs: number): D1Database {
  const known = wrapped.get(db);
  if (known) return known;
  const proxy: D1Database = new Proxy(db, {
    get(target, property) {
      if (property === "prepare") return (sql: string) => wrapStatement(target.prepare(sql), latencyMs, sql);
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) =>
          held(latencyMs, `batch of ${statements.length}`, () =>
            target.batch(statements.map((s) => realStatements.get(s) ?? s)),
          );
      }
      if (property === "exec") return (sql: string) => held(latencyMs, "exec", () => target.exec(sql));
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  wrapped.set(db, proxy);
  return proxy;
}

/** One wrapped env per env object: the Worker caches its config per env object (config/load-config.ts). */
const wrappedEnvs = new WeakMap<BenchEnv, Env>();

function withDelayedDb(env: BenchEnv): Env {
  const known = wrappedEnvs.get(env);
  if (known) return known;
  const latencyMs = Number(env.BENCH_DB_LATENCY_MS ?? "0");
  const delayed = { ...env, DB: delayedDatabase(env.DB, Number.isFinite(latencyMs) && latencyMs > 0 ? latencyMs : 0) };
  wrappedEnvs.set(env, delayed);
  return delayed;
}

export default {
  fetch(request: Request, env: BenchEnv, ctx: ExecutionContext) {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/d1-calls") {
      const since = Number(url.searchParams.get("since") ?? "0");
      return Response.json(calls.filter((c) => c.startMs >= since));
    }
    return worker.fetch(request as Parameters<typeof worker.fetch>[0], withDelayedDb(env), ctx);
  },
  scheduled(controller: ScheduledController, env: BenchEnv, ctx: ExecutionContext) {
    return worker.scheduled(controller, withDelayedDb(env), ctx);
  },
} satisfies ExportedHandler<BenchEnv>;

/** The settle ledger's object, with D1 as far from it as from the Worker (wrangler.toml names this class). */
export class SettleLedgerObject extends NearLedgerObject {
  constructor(ctx: DurableObjectState, env: BenchEnv) {
    super(ctx, withDelayedDb(env));
  }
}
