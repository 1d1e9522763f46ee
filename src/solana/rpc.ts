import { createSolanaRpc, type Rpc, type SolanaRpcApi } from "@solana/kit";
import { upstreamError } from "../errors/catalogue";
import type { Config } from "../config/load-config";

export type SolanaRpc = Rpc<SolanaRpcApi>;

const clients = new Map<string, SolanaRpc>();

/** One kit RPC client per URL and isolate: the transport is stateless, so it can be shared. */
export function solanaRpc(config: Pick<Config, "rpcUrl">): SolanaRpc {
  let rpc = clients.get(config.rpcUrl);
  if (!rpc) {
    rpc = createSolanaRpc(config.rpcUrl);
    clients.set(config.rpcUrl, rpc);
  }
  return rpc;
}

/**
 * Sends one RPC request with the configured timeout; any transport or node failure becomes a 502
 * `FACILITATOR_UPSTREAM` naming the method (never the URL, which may carry credentials).
 */
export async function rpcCall<T>(
  config: Pick<Config, "rpcTimeoutMs">,
  method: string,
  request: { send(options?: { abortSignal?: AbortSignal }): Promise<T> },
): Promise<T> {
  try {
    return await request.send({ abortSignal: AbortSignal.timeout(config.rpcTimeoutMs) });
  } catch (error) {
    throw upstreamError(`Solana RPC ${method} failed: ${describeRpcError(error)}`, error);
  }
}

function describeRpcError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError") return "timed out";
    // kit errors carry a readable message; strip anything that looks like a URL.
    return error.message.replace(/https?:\/\/\S+/g, "<rpc>").slice(0, 200);
  }
  return "unknown error";
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
