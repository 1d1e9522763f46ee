import { env, runInDurableObject } from "cloudflare:test";
import { buildApp } from "../../../src/app";
import type { Env } from "../../../src/env";
import { LEDGER_OBJECTS_PER_PLACE } from "../../../src/settlement/settle-ports";
import { stubNamed } from "./ledger-object";
import { API } from "./worker-http";

/**
 * Counts the durable commits one request makes — D1 writes (a `run` or a `batch` holding a write: one transaction
 * each) and the settle ledger objects' storage commits (the writes of one synchronous turn: one commit, as workerd
 * coalesces them) — and which of them the answer waited for.
 *
 * A commit is on the path to the answer ("awaited") when:
 * - a D1 write of the Worker's: it completed before the Worker's handler returned its Response (a write issued for
 *   after the response, the history row say, completes later: it needs a round trip the handler does not wait for);
 * - a D1 write or a storage commit of a ledger object: it happened while one of the object's methods the Worker called
 *   was still running (the output gate holds the method's answer until its commits are durable; the object's own
 *   after-the-answer work, the mirror, completes after its method returned).
 *
 * Real things throughout: the Worker's app with its real D1 binding, the real ledger objects (Miniflare's SQLite-backed
 * Durable Objects, which run in this isolate), the real local chain. What is added is a wrapper that watches them:
 * around the D1 binding the request gets, and — inside each ledger object of the place the calls come from ("local",
 * calls without a Cloudflare location) — around its D1 binding, its storage and its methods. Nothing is faked.
 */

export interface Commit {
  store: "d1" | "object storage";
  /** "worker", or the ledger object's name. */
  by: string;
  /** The first write statement, shortened. */
  what: string;
  awaited: boolean;
}

const WRITE = /^\s*(insert|update|delete|replace|create|drop|alter)\b/i;
const LEDGER_METHODS = [
  "claim",
  "lookup",
  "takeOverLease",
  "update",
  "release",
  "reportSuccess",
  "recordConfirmationAfterFailedReport",
] as const;

interface Watch {
  commits: Commit[];
  /** Set once the Worker's handler returned its Response. */
  answered: boolean;
}

/**
 * A D1 binding that logs each write transaction; `awaitedNow` says whether one completing now is on the path.
 * `answered` runs when any of its calls completes (a new event for the isolate that made it).
 */
function watchedD1(
  real: D1Database,
  by: string,
  watch: Watch,
  awaitedNow: () => boolean,
  answered: () => void = () => {},
): D1Database {
  const sqlOf = new WeakMap<object, { sql: string; real: D1PreparedStatement }>();
  const log = async <T>(sqls: string[], work: () => Promise<T>): Promise<T> => {
    const write = sqls.find((sql) => WRITE.test(sql));
    const result = await work().finally(answered);
    if (write)
      watch.commits.push({
        store: "d1",
        by,
        what: write.trim().slice(0, 60).replace(/\s+/g, " "),
        awaited: awaitedNow(),
      });
    return result;
  };
  const tracked = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, property) {
        if (property === "bind") return (...values: unknown[]) => tracked(target.bind(...values), sql);
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "run" || property === "all" || property === "first" || property === "raw")
          return (...args: unknown[]) =>
            log([sql], () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
        return value.bind(target);
      },
    });
    sqlOf.set(proxy, { sql, real: statement });
    return proxy;
  };
  return new Proxy(real, {
    get(target, property) {
      if (property === "prepare") return (sql: string) => tracked(target.prepare(sql), sql);
      if (property === "batch")
        return (statements: D1PreparedStatement[]) =>
          log(
            statements.map((s) => sqlOf.get(s)?.sql ?? ""),
            () => target.batch(statements.map((s) => sqlOf.get(s)?.real ?? s)),
          );
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The object's storage, the writes of each turn logged as one commit. A turn ends where the object waits on
 * something outside it — a method call arriving, a D1 answer, an asynchronous storage call answering (`newTurn`) — or,
 * failing those, at the next timer.
 */
function watchedStorage(real: DurableObjectStorage, by: string, watch: Watch, inMethod: () => boolean) {
  let turnOpen = false;
  const newTurn = () => {
    turnOpen = false;
  };
  const wrote = (what: string) => {
    if (turnOpen) return;
    turnOpen = true;
    watch.commits.push({ store: "object storage", by, what, awaited: inMethod() });
    setTimeout(newTurn, 0);
  };
  const sql = new Proxy(real.sql, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === "exec")
        return (query: string, ...binds: unknown[]) => {
          if (WRITE.test(query)) wrote(query.trim().slice(0, 60).replace(/\s+/g, " "));
          return (value as SqlStorage["exec"]).call(target, query, ...(binds as SqlStorageValue[]));
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const storage = new Proxy(real, {
    get(target, property) {
      if (property === "sql") return sql;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const writes = ["setAlarm", "deleteAlarm", "deleteAll", "put", "delete"].includes(String(property));
      return (...args: unknown[]) => {
        if (writes) wrote(String(property));
        const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
        return answer instanceof Promise ? answer.finally(newTurn) : answer;
      };
    },
  });
  return { storage, newTurn };
}

/**
 * Runs `request(envOverrides)` — a call of the Worker's app that returns its Response — with every durable write
 * watched; then waits `settleMs` for the work after the answer, and gives back every commit, awaited or not.
 */
export async function durableCommitsOf(
  request: (overrides: Record<string, unknown>) => Promise<Response>,
  settleMs = 500,
): Promise<{ response: Response; commits: Commit[] }> {
  const watch: Watch = { commits: [], answered: false };
  const names = Array.from({ length: LEDGER_OBJECTS_PER_PLACE }, (_, shard) => `local/${shard}`);
  const restore: (() => Promise<void>)[] = [];
  for (const name of names) {
    const undo = await runInDurableObject(stubNamed(name), (instance) => {
      const object = instance as unknown as {
        env: Record<string, unknown>;
        ctx: DurableObjectState;
        __inMethod?: number;
        __newTurn?: () => void;
      };
      const before = { env: object.env, ctx: object.ctx };
      object.__inMethod = 0;
      const inMethod = () => (object.__inMethod ?? 0) > 0;
      const { storage, newTurn } = watchedStorage(before.ctx.storage, name, watch, inMethod);
      object.__newTurn = newTurn;
      object.env = { ...before.env, DB: watchedD1(before.env.DB as D1Database, name, watch, inMethod, newTurn) };
      object.ctx = new Proxy(before.ctx, {
        get(target, property) {
          if (property === "storage") return storage;
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      return () => {
        object.env = before.env;
        object.ctx = before.ctx;
        delete object.__inMethod;
        delete object.__newTurn;
      };
    });
    restore.push(async () => runInDurableObject(stubNamed(name), () => undo()));
  }
  // The methods the Worker calls, on the class itself (RPC calls reach the prototype's methods, not an instance's own).
  const prototype = await runInDurableObject(stubNamed(names[0]!), (instance) => Object.getPrototypeOf(instance));
  for (const method of LEDGER_METHODS) {
    const original = prototype[method] as (...args: unknown[]) => Promise<unknown>;
    prototype[method] = async function (this: { __inMethod?: number; __newTurn?: () => void }, ...args: unknown[]) {
      if (this.__inMethod === undefined) return original.apply(this, args);
      this.__newTurn?.(); // a call arriving is a new event
      this.__inMethod++;
      try {
        return await original.apply(this, args);
      } finally {
        this.__inMethod--;
      }
    };
    restore.push(async () => {
      prototype[method] = original;
    });
  }
  try {
    const response = await request({ DB: watchedD1(env.DB, "worker", watch, () => !watch.answered) });
    watch.answered = true;
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return { response, commits: watch.commits };
  } finally {
    for (const step of restore.reverse()) await step();
  }
}

/** A POST to the Worker's app (as worker-http's callWithEnv does) with the bindings `env` overrides. */
export function postTo(
  overrides: Record<string, unknown>,
  path: string,
  json: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    buildApp().request(
      API + path,
      {
        method: "POST",
        body: JSON.stringify(json),
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID(), ...headers },
      },
      { ...(env as unknown as Env), ...overrides },
    ),
  );
}

/** The commits the answer waited for, as one line each (for a failing assertion's message). */
export function describeCommits(commits: readonly Commit[]): string {
  return commits.map((c) => `${c.awaited ? "awaited" : "after  "} ${c.store} (${c.by}): ${c.what}`).join("\n");
}
