import type { Signature } from "@solana/kit";
import type { Config } from "../config/load-config";
import { rpcCall, solanaRpc } from "./rpc";

export type ConfirmationOutcome =
  | { kind: "confirmed" }
  | { kind: "failed"; err: unknown }
  | { kind: "timeout" };

const POLL_INTERVAL_MS = 300;

/** Polls getSignatureStatuses until the signature is confirmed (or finalized), failed, or the budget runs out. */
export async function confirmSignature(config: Config, signature: string, budgetMs: number): Promise<ConfirmationOutcome> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const status = await signatureStatus(config, signature);
    if (status.kind !== "not_found" && status.kind !== "processing") return status;
    if (Date.now() + POLL_INTERVAL_MS > deadline) return { kind: "timeout" };
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** One status read, including transaction history (a retried settle may ask long after landing). */
export type SignatureStatus = { kind: "confirmed" } | { kind: "failed"; err: unknown } | { kind: "not_found" } | { kind: "processing" };

export async function signatureStatus(config: Config, signature: string): Promise<SignatureStatus> {
  const { value } = await rpcCall(
    config,
    "getSignatureStatuses",
    solanaRpc(config).getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }),
  );
  const status = value[0];
  if (!status) return { kind: "not_found" };
  if (status.err) return { kind: "failed", err: status.err };
  if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") return { kind: "confirmed" };
  return { kind: "processing" };
}
