import type { Config } from "../config/load-config";
import { upstreamError } from "../errors/catalogue";

let nextRequestId = 1;

/**
 * One Solana JSON-RPC call over plain fetch and JSON.parse, for the calls on the hot path (simulateTransaction
 * in verify, getSignatureStatuses in settle). kit's client parses every response with a BigInt-aware JSON
 * reader and then walks every value to wrap integers (~0.2 ms per call); these callers read a few small fields
 * (errors, statuses), none of which can exceed 2^53, so plain numbers lose nothing.
 *
 * The failure contract is rpcCall's: a transport failure, timeout, HTTP error or JSON-RPC error becomes a 502
 * `FACILITATOR_UPSTREAM` naming the method (never the URL, which may carry credentials).
 */
export async function callJsonRpc<T>(config: Pick<Config, "rpcUrl" | "rpcTimeoutMs">, method: string, params: readonly unknown[]): Promise<T> {
  let response: Response;
  try {
    response = await fetch(config.rpcUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextRequestId++, method, params }),
      signal: AbortSignal.timeout(config.rpcTimeoutMs),
    });
  } catch (error) {
    throw upstreamError(`Solana RPC ${method} failed: ${describeFetchError(error)}`, error);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw upstreamError(`Solana RPC ${method} failed: HTTP ${response.status}`);
  }
  let body: { result?: T; error?: { code?: number; message?: string } };
  try {
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw upstreamError(`Solana RPC ${method} failed: ${describeFetchError(error)}`, error);
  }
  if (body.error !== undefined || !("result" in body)) {
    const detail = body.error ? `${body.error.message ?? "error"} (code ${body.error.code ?? "?"})` : "malformed response";
    throw upstreamError(`Solana RPC ${method} failed: ${detail.replace(/https?:\/\/\S+/g, "<rpc>").slice(0, 200)}`);
  }
  return body.result as T;
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return "timed out";
  if (error instanceof SyntaxError) return "malformed response";
  return "unreachable";
}
