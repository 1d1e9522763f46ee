import { env } from "cloudflare:test";
import type { Env } from "../../../src/env";

/**
 * The Worker's bindings wrapped so that every call leaving the isolate is counted, by `BINDING.method`: a D1 statement
 * run (`DB.first`, `DB.all`, `DB.run`, `DB.raw`; `DB.batch` is one round trip), a KV call, a call on a settle ledger
 * object's stub (`SETTLE_LEDGER.<method>`; `idFromName` and `get` stay local and are not counted), a rate limiter's
 * `limit`, an Analytics Engine data point. The real bindings answer: nothing is faked, only observed.
 *
 * `bindings` goes into the env of the requests to count; `counts()` answers what was called since the last `reset()`.
 */
export function countingBindings(names: readonly (keyof Env & string)[] = BOUND) {
  let counted: Record<string, number> = {};
  const count = (what: string) => {
    counted[what] = (counted[what] ?? 0) + 1;
  };
  const real = env as unknown as Env;
  const bindings: Record<string, unknown> = {};
  for (const name of names) {
    const binding = real[name];
    if (binding !== undefined && binding !== null)
      bindings[name] = counting(name, binding as object, LOCAL_STEPS[name] ?? NONE, count);
  }
  return {
    bindings,
    counts: (): Record<string, number> => ({ ...counted }),
    reset: () => {
      counted = {};
    },
  };
}

/** Every binding of wrangler.toml the Worker's code calls. */
const BOUND = [
  "DB",
  "KV",
  "SETTLE_LEDGER",
  "TELEMETRY",
  "RATE_LIMIT_BUILD",
  "RATE_LIMIT_PAYMENT_CLIENT",
  "RATE_LIMIT_PAYMENT_PAYER",
  "RATE_LIMIT_READ",
] as const;

/** Per binding, the local steps that reach nothing: a statement prepared or bound, an object's id or stub made. */
const LOCAL_STEPS: Record<string, ReadonlySet<string>> = {
  DB: new Set(["prepare", "bind"]),
  SETTLE_LEDGER: new Set(["idFromName", "idFromString", "newUniqueId", "get", "getByName", "jurisdiction"]),
};
const NONE: ReadonlySet<string> = new Set();

/**
 * `target` with its methods counted under `name.method`. A local step's result (a statement, an id, a stub) is
 * wrapped the same way, so the statement's run or the stub's call is what counts. Methods are called on the real
 * object (native bindings refuse another `this`).
 */
function counting<T extends object>(
  name: string,
  target: T,
  local: ReadonlySet<string>,
  count: (what: string) => void,
): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (!local.has(property)) {
          count(`${name}.${property}`);
          return result;
        }
        return typeof result === "object" && result !== null ? counting(name, result, local, count) : result;
      };
    },
  });
}
