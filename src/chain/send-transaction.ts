import { type RpcSettings, rpcAnswer, rpcFailure } from "./rpc";

export type SendOutcome =
  | { kind: "sent"; signature: string }
  /** Preflight simulation rejected the transaction: `err` is the raw TransactionError. */
  | { kind: "rejected"; err: unknown; logs: string[] };

/**
 * sendTransaction with preflight at confirmed commitment. A preflight failure is a JSON-RPC error whose data keeps
 * the raw TransactionError and logs, which settle turns into precise reasons, so it is read here rather than thrown.
 * Transport failures throw a 502; the caller decides whether the transaction may have been delivered.
 */
export async function sendWithPreflight(config: RpcSettings, wireBase64: string): Promise<SendOutcome> {
  const answer = await rpcAnswer<unknown>(config, "sendTransaction", [
    wireBase64,
    { encoding: "base64", skipPreflight: false, preflightCommitment: "confirmed", maxRetries: 3 },
  ]);
  if (answer.ok) {
    if (typeof answer.result === "string" && answer.result !== "") return { kind: "sent", signature: answer.result };
    throw rpcFailure("sendTransaction", "malformed response");
  }
  const data = answer.error.data as { err?: unknown; logs?: string[] | null } | null | undefined;
  if (data && typeof data === "object" && data.err !== undefined && data.err !== null) {
    return { kind: "rejected", err: data.err, logs: data.logs ?? [] };
  }
  // Nodes report some rejections only in the message text.
  const message = answer.error.message ?? "";
  if (/already been processed|AlreadyProcessed/i.test(message))
    return { kind: "rejected", err: "AlreadyProcessed", logs: [] };
  if (/blockhash not found/i.test(message)) return { kind: "rejected", err: "BlockhashNotFound", logs: [] };
  throw rpcFailure("sendTransaction", answer.error);
}
