/**
 * Benchmark-only Worker entry: the production Worker (src/index.ts) unchanged, wrapped so that each response
 * carries a `Server-Timing` header splitting the handler's wall time into outbound fetch (Solana RPC), D1 and the
 * rest (the facilitator's own work: parsing, rules, signing, hashing, JSON). Never deployed; used by bench/run.ts
 * for its profile phase only (throughput is measured on the unwrapped entry).
 *
 * Experiment switch: with request header `X-Bench-Skip-Audit: 1` the per-request audit row (payment_attempts)
 * is not written, to measure what that write costs. Nothing else changes.
 *
 * Timing uses performance.now(), which advances during execution in local workerd (in production Workers the
 * clock only moves on I/O, so this breakdown is a local-only measurement).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import worker from "../src/index";
import type { Env } from "../src/env";

interface Interval {
  start: number;
  end: number;
}

interface RequestTimings {
  rpc: Interval[];
  d1: Interval[];
  /** Short labels of the D1 statements run ("insert settlements", ...), in order. */
  d1Statements: string[];
  open: boolean;
  /** Experiment switch (request header X-Bench-Skip-Audit: 1): the per-request audit row is not written. */
  skipAudit: boolean;
}

const AUDIT_STATEMENT = "insert payment_attempts";
const SKIPPED_RESULT = { success: true, results: [], meta: { changes: 0, duration: 0, last_row_id: 0, rows_read: 0, rows_written: 0, size_after: 0, changed_db: false } };

const requestTimings = new AsyncLocalStorage<RequestTimings>();

async function timed<T>(kind: "rpc" | "d1", run: () => Promise<T>): Promise<T> {
  const timings = requestTimings.getStore();
  const start = performance.now();
  try {
    return await run();
  } finally {
    if (timings?.open) timings[kind].push({ start, end: performance.now() });
  }
}

// Outbound fetch from this isolate is the Solana RPC (the only upstream of /verify and /settle).
const originalFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => timed("rpc", () => originalFetch(input, init))) as typeof fetch;

const STATEMENT_METHODS = new Set(["first", "run", "all", "raw"]);
/** D1 batch() must receive the real statements, not proxies. */
const realStatements = new WeakMap<object, D1PreparedStatement>();

/** "insert into settlements ..." → "insert settlements". */
function statementLabel(sql: string): string {
  const words = sql.replace(/["`]/g, "").trim().split(/\s+/);
  const verb = (words[0] ?? "?").toLowerCase();
  const table = verb === "insert" ? words[2] : verb === "update" ? words[1] : words[words.findIndex((w) => w.toLowerCase() === "from") + 1];
  return `${verb} ${table ?? "?"}`;
}

function wrapStatement(statement: D1PreparedStatement, sql: string): D1PreparedStatement {
  const proxy = new Proxy(statement, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      if (property === "bind") return (...args: unknown[]) => wrapStatement((value as (...a: unknown[]) => D1PreparedStatement).apply(target, args), sql);
      if (typeof property === "string" && STATEMENT_METHODS.has(property)) {
        return (...args: unknown[]) => {
          const timings = requestTimings.getStore();
          const label = statementLabel(sql);
          if (timings?.skipAudit && label === AUDIT_STATEMENT) {
            return Promise.resolve(property === "raw" ? [] : property === "first" ? null : SKIPPED_RESULT);
          }
          if (timings?.open) timings.d1Statements.push(label);
          return timed("d1", () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  realStatements.set(proxy, statement);
  return proxy;
}

function wrapDatabase(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      if (property === "prepare") {
        return (sql: string) => wrapStatement(target.prepare(sql), sql);
      }
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) => timed("d1", () => target.batch(statements.map((s) => realStatements.get(s) ?? s)));
      }
      if (property === "exec") return (sql: string) => timed("d1", () => target.exec(sql));
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

// The config cache is keyed by the env object: hand the app one stable wrapped env per real env.
const wrappedEnvs = new WeakMap<object, Env>();
function instrumentedEnv(env: Env): Env {
  let wrapped = wrappedEnvs.get(env);
  if (!wrapped) {
    wrapped = { ...env, DB: wrapDatabase(env.DB) } as Env;
    wrappedEnvs.set(env, wrapped);
  }
  return wrapped;
}

function unionMs(intervals: Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let currentStart = -1;
  let currentEnd = -1;
  for (const { start, end } of sorted) {
    if (start > currentEnd) {
      if (currentEnd > currentStart) total += currentEnd - currentStart;
      currentStart = start;
      currentEnd = end;
    } else if (end > currentEnd) currentEnd = end;
  }
  if (currentEnd > currentStart) total += currentEnd - currentStart;
  return total;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const timings: RequestTimings = { rpc: [], d1: [], d1Statements: [], open: true, skipAudit: request.headers.get("X-Bench-Skip-Audit") === "1" };
    const start = performance.now();
    const response = await requestTimings.run(timings, () => worker.fetch!(request as never, instrumentedEnv(env), ctx));
    const total = performance.now() - start;
    timings.open = false; // writes left to waitUntil run after the response and are not part of it
    const rpc = unionMs(timings.rpc);
    const d1 = unionMs(timings.d1);
    const io = unionMs([...timings.rpc, ...timings.d1]);
    const own = Math.max(0, total - io);
    const out = new Response(response.body, response);
    out.headers.set(
      "Server-Timing",
      [
        `total;dur=${total.toFixed(3)}`,
        `rpc;dur=${rpc.toFixed(3)};desc="${timings.rpc.length}"`,
        `d1;dur=${d1.toFixed(3)};desc="${timings.d1.length}"`,
        `own;dur=${own.toFixed(3)}`,
      ].join(", "),
    );
    out.headers.set("X-Bench-D1-Statements", timings.d1Statements.join("; "));
    return out;
  },
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;
