import { env, runInDurableObject } from "cloudflare:test";
import type { SettleLedgerObject } from "../../../src/settlement/settle-ledger-object";
import { LEDGER_OBJECTS_PER_PLACE } from "../../../src/settlement/settle-ports";
import type { SettlementRow } from "../../../src/store/settlements";

/** The settle ledger's namespace as the tests' Worker has it (wrangler.toml SETTLE_LEDGER). */
export function ledgerNamespace(): DurableObjectNamespace<SettleLedgerObject> {
  const namespace = (env as unknown as { SETTLE_LEDGER?: DurableObjectNamespace<SettleLedgerObject> }).SETTLE_LEDGER;
  if (!namespace) throw new Error("the tests' Worker has no SETTLE_LEDGER binding");
  return namespace;
}

/** The object D1 names as the holder of the payment (its claim wrote the name there); undefined when none does. */
export async function holderName(messageHash: string): Promise<string | undefined> {
  const row = await env.DB.prepare("SELECT ledger_object FROM settlements WHERE message_hash = ?")
    .bind(messageHash)
    .first<{ ledger_object: string | null }>();
  return row?.ledger_object ?? undefined;
}

export function stubNamed(name: string): DurableObjectStub<SettleLedgerObject> {
  const namespace = ledgerNamespace();
  return namespace.get(namespace.idFromName(name));
}

/** The object holding the payment, as D1 names it. */
export async function ledgerStub(messageHash: string): Promise<DurableObjectStub<SettleLedgerObject>> {
  const name = await holderName(messageHash);
  if (!name) throw new Error(`D1 names no ledger object for ${messageHash}`);
  return stubNamed(name);
}

/** A claim of a made-up payment, straight to the ledger (no chain): for the ledger objects' own bookkeeping. */
export function madeUpClaim(messageHash: string, overrides: Partial<ReturnType<typeof baseClaim>> = {}) {
  return { ...baseClaim(messageHash), ...overrides };
}
function baseClaim(messageHash: string) {
  return {
    messageHash,
    signature: `sig-${messageHash}`,
    scheme: "exact",
    network: "devnet",
    payer: "payer",
    payTo: `payTo-${messageHash}`,
    merchantWallet: null as string | null,
    asset: "asset",
    amount: "1",
    lastValidBlockHeight: null,
    maxTimeoutSeconds: 60,
    leaseId: crypto.randomUUID(),
    leaseExpiresAtMs: Date.now() + 600_000,
    paymentId: null,
  };
}

/** The payment's message hash, from D1 (the claim writes its row there before the object holds it). */
export async function messageHashOf(signature: string): Promise<string> {
  const row = await env.DB.prepare("SELECT message_hash FROM settlements WHERE signature = ?")
    .bind(signature)
    .first<{ message_hash: string }>();
  if (!row) throw new Error(`D1 has no settlements row for ${signature}`);
  return row.message_hash;
}

export interface ObjectRow {
  state: string;
  success_reported_at_ms: number | null;
  success_correlation_id: string | null;
  updated_at_ms: number;
  version: number;
  mirrored_version: number;
}

/** The row the payment's holder object has stored (undefined: none), read inside the object. */
export async function objectRow(messageHash: string): Promise<ObjectRow | undefined> {
  const name = await holderName(messageHash);
  if (!name) return undefined; // no object ever held it (the D1 ledger's row, or none)
  return runInDurableObject(stubNamed(name), (_instance, state) => {
    const sql = state.storage.sql;
    // never used, or deleted
    if (sql.exec("SELECT name FROM sqlite_master WHERE name = 'settlements'").toArray().length === 0) return undefined;
    return sql
      .exec<Record<string, SqlStorageValue>>("SELECT * FROM settlements WHERE message_hash = ?", messageHash)
      .toArray()[0] as ObjectRow | undefined;
  });
}

export function d1Row(messageHash: string) {
  return env.DB.prepare(
    "SELECT state, success_reported_at_ms, success_correlation_id, confirmed_at_ms FROM settlements WHERE " +
      "message_hash = ?",
  )
    .bind(messageHash)
    .first<
      Pick<SettlementRow, never> & {
        state: string;
        success_reported_at_ms: number | null;
        success_correlation_id: string | null;
        confirmed_at_ms: number | null;
      }
    >();
}

/**
 * Waits (briefly) until D1's copy caught up with the object's row: the version D1 has, as the object knows it (noted in
 * its storage with its next commit, and in its memory meanwhile: settle-ledger-object.ts `mirroredSince`).
 */
export async function mirrored(messageHash: string, timeoutMs = 3_000): Promise<ObjectRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await objectRow(messageHash);
    if (row && Math.max(row.mirrored_version, await mirroredInMemory(messageHash)) >= row.version) return row;
    if (Date.now() > deadline) throw new Error(`the object of ${messageHash} is not mirrored: ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The version of the payment's row the holder object knows D1 has but has not noted in its storage yet (0: none). */
async function mirroredInMemory(messageHash: string): Promise<number> {
  const name = await holderName(messageHash);
  if (!name) return 0;
  return runInDurableObject(
    stubNamed(name),
    (instance) => (instance as unknown as { mirroredSince: Map<string, number> }).mirroredSince.get(messageHash) ?? 0,
  );
}

/**
 * The object's D1 binding replaced, for the calls that follow, inside the live object (workerd's local D1 cannot be
 * made to fail; this is the one way to fail the object's own writes). Restored by `restore`.
 */
export async function withObjectD1(messageHash: string, db: D1Database): Promise<{ restore: () => Promise<void> }> {
  const stub = await ledgerStub(messageHash);
  const original = await runInDurableObject(stub, (instance) => {
    const holder = instance as unknown as { env: Record<string, unknown> };
    const before = holder.env;
    holder.env = { ...before, DB: db };
    return before.DB as D1Database;
  });
  return {
    restore: () =>
      runInDurableObject(stub, (instance) => {
        const holder = instance as unknown as { env: Record<string, unknown> };
        holder.env = { ...holder.env, DB: original };
      }),
  };
}

/** D1 whose statements matching `matches` fail (before they reach the database) until `heal()`. */
export function d1FailingOn(matches: (sql: string) => boolean) {
  let healed = false;
  const db = new Proxy(env.DB, {
    get(target, property) {
      if (property === "prepare") {
        return (sql: string) => {
          if (!healed && matches(sql)) throw new Error("D1_ERROR: injected failure");
          return target.prepare(sql);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    db,
    heal: () => {
      healed = true;
    },
  };
}

/**
 * The real D1, telling `onCall` the SQL of every call's statements (a statement's `run`, or a `batch`) before it goes
 * on; `onCall` may throw to fail the call before it reaches the database, or hold it until its promise settles.
 */
export function d1Watching(onCall: (kind: "run" | "batch", sqls: string[]) => void | Promise<void>): D1Database {
  const realOf = new WeakMap<object, { statement: D1PreparedStatement; sql: string }>();
  const tracked = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, property) {
        if (property === "bind") return (...values: unknown[]) => tracked(target.bind(...values), sql);
        if (property === "run")
          return async () => {
            await onCall("run", [sql]);
            return target.run();
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    realOf.set(proxy, { statement, sql });
    return proxy;
  };
  return new Proxy(env.DB, {
    get(target, property) {
      if (property === "prepare") return (sql: string) => tracked(target.prepare(sql), sql);
      if (property === "batch")
        return async (statements: D1PreparedStatement[]) => {
          const real = statements.map((statement) => realOf.get(statement)!);
          await onCall(
            "batch",
            real.map((r) => r.sql),
          );
          return target.batch(real.map((r) => r.statement));
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The mirror's update (store/ledger-object-store.ts mirrorRowsToD1). */
export const MIRROR_SQL = (sql: string) => sql.startsWith("UPDATE settlements SET signature = ?2");

type LedgerMethod =
  | "claim"
  | "reportSuccess"
  | "recordConfirmationAfterFailedReport"
  | "update"
  | "takeOverLease"
  | "release"
  | "lookup";

/**
 * The ledger's namespace with some methods of every object failing, before the object runs them or after it ran them
 * (the answer lost on the way back), until `heal()`. The objects themselves are the real ones.
 */
export function failingLedger(methods: LedgerMethod[], mode: "before-commit" | "after-commit") {
  let healed = false;
  const real = ledgerNamespace();
  const fault = () => new Error(`injected ${mode} failure of the settle ledger`);
  const stubOf = (id: DurableObjectId) => {
    const stub = real.get(id) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    return new Proxy(stub, {
      get(target, property) {
        if (typeof property === "string" && (methods as string[]).includes(property)) {
          return async (...args: unknown[]) => {
            if (healed) return target[property]!(...args);
            if (mode === "before-commit") throw fault();
            await target[property]!(...args);
            throw fault();
          };
        }
        return Reflect.get(target, property);
      },
    });
  };
  const namespace = new Proxy(real, {
    get(target, property) {
      if (property === "get") return (id: DurableObjectId) => stubOf(id);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    namespace,
    heal: () => {
      healed = true;
    },
  };
}

/**
 * Holds the first D1 batch of any of the place's ledger objects (the place of calls without a Cloudflare location:
 * "local") in which a statement matches `matches`, until `open()`; `reached` resolves when one is held. Every other
 * batch, and every later one, reaches the real database. For a race on a claim's commit, which the object writes.
 */
export async function holdFirstObjectBatch(matches: (sql: string) => boolean) {
  let open!: () => void;
  let arrived!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  let holding = false;
  // Each statement handed out, by the SQL it was prepared from and the real statement it stands for.
  const sqlOf = new WeakMap<object, { sql: string; real: D1PreparedStatement }>();
  const tracked = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, property) {
        if (property === "bind") return (...values: unknown[]) => tracked(target.bind(...values), sql);
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    sqlOf.set(proxy, { sql, real: statement });
    return proxy;
  };
  const gated = (real: D1Database) =>
    new Proxy(real, {
      get(target, property) {
        if (property === "prepare") return (sql: string) => tracked(target.prepare(sql), sql);
        if (property === "batch")
          return async (statements: D1PreparedStatement[]) => {
            if (!holding && statements.some((s) => matches(sqlOf.get(s)?.sql ?? ""))) {
              holding = true;
              arrived();
              await opened;
            }
            return target.batch(statements.map((s) => sqlOf.get(s)?.real ?? s));
          };
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const names = Array.from({ length: LEDGER_OBJECTS_PER_PLACE }, (_, shard) => `local/${shard}`);
  const originals = await Promise.all(
    names.map((name) =>
      runInDurableObject(stubNamed(name), (instance) => {
        const holder = instance as unknown as { env: Record<string, unknown> };
        const before = holder.env.DB as D1Database;
        holder.env = { ...holder.env, DB: gated(before) };
        return before;
      }),
    ),
  );
  return {
    reached,
    open,
    restore: () =>
      Promise.all(
        names.map((name, i) =>
          runInDurableObject(stubNamed(name), (instance) => {
            const holder = instance as unknown as { env: Record<string, unknown> };
            holder.env = { ...holder.env, DB: originals[i] };
          }),
        ),
      ),
  };
}
