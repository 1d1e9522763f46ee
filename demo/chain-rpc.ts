/**
 * Minimal JSON-RPC helpers for the local chain (demo, e2e tests, bench): one call with a timeout, the local
 * faucet extensions, and a few reads. Plain fetch, no client library, so errors stay readable.
 */

const DEFAULT_TIMEOUT_MS = 10_000;

export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly code?: number,
  ) {
    super(`${method}: ${message}`);
    this.name = "RpcCallError";
  }
}

let nextId = 1;

export async function chainRpc<T = unknown>(
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new RpcCallError(method, `HTTP ${response.status}`);
  const body = (await response.json()) as { result?: T; error?: { code?: number; message?: string } };
  if (body.error) throw new RpcCallError(method, body.error.message ?? "error", body.error.code);
  return body.result as T;
}

/** Local faucet: SOL (requestAirdrop) and, when `usdcRaw` > 0, devnet-USDC (requestTokenAirdrop, creates the ATA). */
export async function fundFromFaucet(
  rpcUrl: string,
  wallet: string,
  lamports: number,
  usdcRaw: bigint | number = 0,
): Promise<void> {
  if (lamports > 0) await chainRpc(rpcUrl, "requestAirdrop", [wallet, lamports]);
  if (BigInt(usdcRaw) > 0n) await chainRpc(rpcUrl, "requestTokenAirdrop", [wallet, Number(usdcRaw)]);
}

/** Raw token balance of a token account; null when the account does not exist. */
export async function tokenAccountBalance(rpcUrl: string, tokenAccount: string): Promise<bigint | null> {
  try {
    const result = await chainRpc<{ value: { amount: string } }>(rpcUrl, "getTokenAccountBalance", [
      tokenAccount,
      { commitment: "confirmed" },
    ]);
    return BigInt(result.value.amount);
  } catch (error) {
    if (error instanceof RpcCallError) return null;
    throw error;
  }
}

export interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  err: unknown;
  confirmationStatus: "processed" | "confirmed" | "finalized" | null;
}

export async function signatureStatus(rpcUrl: string, signature: string): Promise<SignatureStatus | null> {
  const result = await chainRpc<{ value: (SignatureStatus | null)[] }>(rpcUrl, "getSignatureStatuses", [
    [signature],
    { searchTransactionHistory: true },
  ]);
  return result.value[0] ?? null;
}
