import type { Config } from "../config/load-config";
import { callJsonRpc } from "./json-rpc";

export type ConfirmationOutcome =
  | { kind: "confirmed" }
  | { kind: "failed"; err: unknown }
  | { kind: "timeout" };

/**
 * Waits between status reads: the first read goes out right after the send (a fast cluster or the local chain has
 * already confirmed), then short waits while confirmation is likely (~400-800 ms on mainnet), backing off after.
 */
const POLL_DELAYS_MS = [100, 150, 200, 300, 400];

/** Polls getSignatureStatuses until the signature is confirmed (or finalized), failed, or the budget runs out. */
export async function confirmSignature(config: Config, signature: string, budgetMs: number): Promise<ConfirmationOutcome> {
  const deadline = Date.now() + budgetMs;
  for (let attempt = 0; ; attempt++) {
    const status = await signatureStatus(config, signature);
    if (status.kind !== "not_found" && status.kind !== "processing") return status;
    const delayMs = POLL_DELAYS_MS[Math.min(attempt, POLL_DELAYS_MS.length - 1)]!;
    if (Date.now() + delayMs > deadline) return { kind: "timeout" };
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/** One status read, including transaction history (a retried settle may ask long after landing). */
export type SignatureStatus = { kind: "confirmed" } | { kind: "failed"; err: unknown } | { kind: "not_found" } | { kind: "processing" };

export async function signatureStatus(config: Config, signature: string): Promise<SignatureStatus> {
  // Plain fetch (see callJsonRpc): only err and confirmationStatus are read.
  const { value } = await callJsonRpc<{ value: ({ err: unknown; confirmationStatus?: string | null } | null)[] }>(config, "getSignatureStatuses", [
    [signature],
    { searchTransactionHistory: true },
  ]);
  const status = value[0];
  if (!status) return { kind: "not_found" };
  if (status.err) return { kind: "failed", err: status.err };
  if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") return { kind: "confirmed" };
  return { kind: "processing" };
}
