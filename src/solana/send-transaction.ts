import type { Config } from "../config/load-config";
import { upstreamError } from "../errors/catalogue";

export type SendOutcome =
  | { kind: "sent"; signature: string }
  /** Preflight simulation rejected the transaction: `err` is the raw TransactionError. */
  | { kind: "rejected"; err: unknown; logs: string[] };

/**
 * sendTransaction with preflight at confirmed commitment. Called over raw JSON-RPC (not through kit's client)
 * so that a preflight failure keeps its raw TransactionError and logs, which settle turns into precise reasons.
 * Transport failures throw a 502; the caller decides whether the transaction may have been delivered.
 */
export async function sendWithPreflight(config: Config, wireBase64: string): Promise<SendOutcome> {
  let response: Response;
  try {
    response = await fetch(config.rpcUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "sendTransaction",
        params: [wireBase64, { encoding: "base64", skipPreflight: false, preflightCommitment: "confirmed", maxRetries: 3 }],
      }),
      signal: AbortSignal.timeout(config.rpcTimeoutMs),
    });
  } catch (error) {
    throw upstreamError(`Solana RPC sendTransaction failed: ${(error as Error).name === "TimeoutError" ? "timed out" : "unreachable"}`, error);
  }
  if (!response.ok) throw upstreamError(`Solana RPC sendTransaction failed: HTTP ${response.status}`);
  const body = (await response.json().catch(() => null)) as {
    result?: string;
    error?: { code?: number; message?: string; data?: { err?: unknown; logs?: string[] | null } };
  } | null;
  if (body?.result && typeof body.result === "string") return { kind: "sent", signature: body.result };
  const error = body?.error;
  if (error?.data && "err" in error.data && error.data.err !== undefined && error.data.err !== null) {
    return { kind: "rejected", err: error.data.err, logs: error.data.logs ?? [] };
  }
  // Nodes report some rejections only in the message text.
  const message = error?.message ?? "malformed response";
  if (/already been processed|AlreadyProcessed/i.test(message)) return { kind: "rejected", err: "AlreadyProcessed", logs: [] };
  if (/blockhash not found/i.test(message)) return { kind: "rejected", err: "BlockhashNotFound", logs: [] };
  throw upstreamError(`Solana RPC sendTransaction failed: ${message.slice(0, 200)}`);
}
