import type { Config } from "../platform/config/load-config";
import { type FacilitatorError, upstreamError } from "../platform/errors/catalogue";

/**
 * The facilitator's one Solana JSON-RPC client: every HTTP request to the RPC node goes through `rpcAnswer` (plain
 * fetch, the configured timeout, one error mapping). It replaces kit's client: kit parses every answer with a
 * BigInt-aware reader and then walks every value to wrap integers (~0.2 ms per call), while the callers read a few
 * fields each. Integers that may exceed 2^53 (lamports, balances) stay exact: see `parseRpcJson`.
 *
 * The failure contract: a transport failure, timeout, HTTP error or unreadable answer is a 502 `FACILITATOR_UPSTREAM`
 * naming the method, never the URL (which may carry credentials); so is a JSON-RPC error, except through
 * `rpcAnswer`, which hands it to callers that read it (sendTransaction's preflight failures).
 */
export type RpcSettings = Pick<Config, "rpcUrl" | "rpcTimeoutMs">;

/** A JSON-RPC error object as the node sent it. */
export interface JsonRpcError {
  code?: number;
  message?: string;
  data?: unknown;
}

/**
 * An integer the node may send beyond 2^53 (lamports): a number, or its decimal digits when it has 16 or more. Read it
 * with BigInt().
 */
export type RpcInteger = number | string;

/** The most keys one call of a batched read takes (the node refuses more). */
export const RPC_KEYS_PER_CALL = { getMultipleAccounts: 100, getSignatureStatuses: 256 } as const;

let nextRequestId = 1;

/**
 * One JSON-RPC request. Returns the result, or the JSON-RPC error the node answered with; throws a 502 for anything
 * else. `timeoutMs` overrides the configured timeout (health reads wait less).
 */
export async function rpcAnswer<T>(
  config: RpcSettings,
  method: string,
  params: readonly unknown[],
  timeoutMs = config.rpcTimeoutMs,
): Promise<{ ok: true; result: T } | { ok: false; error: JsonRpcError }> {
  let response: Response;
  try {
    response = await fetch(config.rpcUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextRequestId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw transportFailure(method, error);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw rpcFailure(method, `HTTP ${response.status}`);
  }
  const body = (await (needsExactIntegers(method, params)
    ? readExactJson(response, method)
    : readJson(response, method))) as {
    result?: T;
    error?: JsonRpcError;
  } | null;
  if (body !== null && typeof body === "object") {
    if (body.error !== undefined && body.error !== null) return { ok: false, error: body.error };
    if ("result" in body) return { ok: true, result: body.result as T };
  }
  throw rpcFailure(method, "malformed response");
}

/**
 * Methods whose answers hold no integer beyond 2^53 (signatures, blockhashes, slots, statuses, simulation logs and
 * errors). Their bodies go straight to the runtime's own JSON parser: in workerd, reading the text and parsing it in
 * JavaScript cost about a sixth of a /verify's CPU (profiled). A simulation that asks for `accounts` returns
 * lamports, so it is read exactly.
 */
const SMALL_INTEGER_METHODS: ReadonlySet<string> = new Set([
  "simulateTransaction",
  "sendTransaction",
  "getSignatureStatuses",
  "getLatestBlockhash",
  "isBlockhashValid",
]);

function needsExactIntegers(method: string, params: readonly unknown[]): boolean {
  if (!SMALL_INTEGER_METHODS.has(method)) return true;
  const options = params[1];
  return method === "simulateTransaction" && typeof options === "object" && options !== null && "accounts" in options;
}

async function readJson(response: Response, method: string): Promise<unknown> {
  try {
    return await response.json();
  } catch (error) {
    throw error instanceof SyntaxError
      ? rpcFailure(method, "malformed response", error)
      : transportFailure(method, error);
  }
}

async function readExactJson(response: Response, method: string): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw transportFailure(method, error);
  }
  try {
    return parseRpcJson(text);
  } catch (error) {
    throw rpcFailure(method, "malformed response", error);
  }
}

/** One JSON-RPC call whose every failure, a JSON-RPC error included, is a 502. */
export async function rpcCall<T>(
  config: RpcSettings,
  method: string,
  params: readonly unknown[],
  timeoutMs?: number,
): Promise<T> {
  const answer = await rpcAnswer<T>(config, method, params, timeoutMs);
  if (!answer.ok) throw rpcFailure(method, answer.error);
  return answer.result;
}

/**
 * A batched read (`[keys, options]` answered by `{ value: [...] }` in key order): as few calls as the method's
 * per-call limit allows, one after another, values in the order of `keys`.
 */
export async function rpcReadMany<V>(
  config: RpcSettings,
  method: keyof typeof RPC_KEYS_PER_CALL,
  keys: readonly string[],
  options?: Record<string, unknown>,
): Promise<V[]> {
  const values: V[] = [];
  const perCall = RPC_KEYS_PER_CALL[method];
  for (let start = 0; start < keys.length; start += perCall) {
    const chunk = keys.slice(start, start + perCall);
    const { value } = await rpcCall<{ value: V[] }>(config, method, options === undefined ? [chunk] : [chunk, options]);
    if (!Array.isArray(value) || value.length !== chunk.length) throw rpcFailure(method, "malformed response");
    values.push(...value);
  }
  return values;
}

/**
 * The 502 for a failed call (or a JSON-RPC error its caller does not handle): the method and what went wrong, never a
 * URL.
 */
export function rpcFailure(method: string, what: string | JsonRpcError, cause?: unknown): FacilitatorError {
  const detail = typeof what === "string" ? what : `${what.message ?? "error"} (code ${what.code ?? "?"})`;
  return upstreamError(`Solana RPC ${method} failed: ${redactUrls(detail).slice(0, 200)}`, cause);
}

function transportFailure(method: string, error: unknown): FacilitatorError {
  const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
  return rpcFailure(method, timedOut ? "timed out" : "unreachable", error);
}

/** Node messages may quote the URL they were reached at (with its key): never repeat one. */
function redactUrls(text: string): string {
  return text.replace(/(?:https?|wss?):\/\/\S+/gi, "<rpc>");
}

/**
 * A member whose value is an integer of 16 or more digits (2^53 has 16), matched only where JSON puts a member: a
 * quote closing a key can only follow a letter outside a string, since a quote inside one is escaped (`\"`).
 */
const LONG_INTEGER_MEMBER = /([A-Za-z]"\s*:\s*)(-?\d{16,})(?=\s*[,}\]])/g;

/** Sixteen digits in a row anywhere: without them no integer can need the rewrite (one quick scan, no copy). */
const SIXTEEN_DIGITS = /\d{16}/;

/** JSON.parse that keeps integers beyond 2^53 exact, as digit strings (`RpcInteger`). */
export function parseRpcJson(text: string): unknown {
  return JSON.parse(SIXTEEN_DIGITS.test(text) ? text.replace(LONG_INTEGER_MEMBER, '$1"$2"') : text);
}

/** Removes credentials from an RPC URL before it is shown anywhere: userinfo, key-like query values, path tokens. */
export function redactRpcUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "<invalid url>";
  }
  if (url.username || url.password) {
    url.username = "redacted";
    url.password = "";
  }
  for (const key of [...url.searchParams.keys()]) {
    if (/key|token|secret|auth|pass|sig/i.test(key)) url.searchParams.set(key, "redacted");
  }
  // Providers put API keys in the path (e.g. /v2/<key>); hide any long opaque segment.
  url.pathname = url.pathname
    .split("/")
    .map((segment) => (/^[A-Za-z0-9_-]{16,}$/.test(segment) ? "redacted" : segment))
    .join("/");
  return url.toString();
}
