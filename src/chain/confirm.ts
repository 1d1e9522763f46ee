import type { Config } from "../platform/config/load-config";
import { rpcReadMany } from "./rpc";
import type { SignatureWatch } from "./signature-watch";

export type ConfirmationOutcome = { kind: "confirmed" } | { kind: "failed"; err: unknown } | { kind: "timeout" };

/**
 * Waits between status reads when nothing is pushed: the first read goes out right after the send (the local chain
 * has already confirmed), then short waits while confirmation is likely (~400-800 ms on a cluster), backing off after.
 */
const POLL_DELAYS_MS = [100, 150, 200, 300, 400];
/**
 * With a PubSub watch, how long to trust the push before reading the status anyway: a cluster confirms ~400-600 ms
 * after it receives a transaction, so past this the notification was missed (a subscription registered after the
 * confirmation never fires) or the socket went quiet; then reads follow every 400 ms (a slot) while the watch listens
 * on.
 */
const WATCHED_DELAYS_MS = [1_000, 400];

/**
 * Waits until the signature is confirmed (or finalized), failed, or the budget runs out. With a watch (a
 * `signatureSubscribe` opened before the send), the first word normally comes from the push, and a status read is
 * made only when the push is late or the watch failed; without one, getSignatureStatuses is polled.
 */
export async function confirmSignature(
  config: Config,
  signature: string,
  budgetMs: number,
  watch: SignatureWatch | null = null,
): Promise<ConfirmationOutcome> {
  const deadline = Date.now() + budgetMs;
  let watching = watch !== null;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0 || !watching) {
      const status = await signatureStatus(config, signature);
      if (status.kind !== "not_found" && status.kind !== "processing") return status;
    }
    const delays = watching ? WATCHED_DELAYS_MS : POLL_DELAYS_MS;
    const delayMs = Math.min(delays[Math.min(attempt, delays.length - 1)]!, deadline - Date.now());
    if (delayMs <= 0) return { kind: "timeout" };
    if (watching) {
      const pushed = await watch!.landed(delayMs);
      if (pushed === "failed") watching = false;
      else if (pushed !== "timeout") return pushed;
    } else {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** One status read, including transaction history (a retried settle may ask long after landing). */
export type SignatureStatus =
  | { kind: "confirmed" }
  | { kind: "failed"; err: unknown }
  | { kind: "not_found" }
  | { kind: "processing" };

export async function signatureStatus(config: Config, signature: string): Promise<SignatureStatus> {
  const [status] = await readSignatureStatuses(config, [signature], { searchTransactionHistory: true });
  return status!;
}

type StatusAnswer = { err: unknown; confirmationStatus?: string | null } | null;

/**
 * Status reads of many signatures, batched, in their order; `searchTransactionHistory` also finds ones older than the
 * node's recent cache.
 */
export async function readSignatureStatuses(
  config: Config,
  signatures: readonly string[],
  options: { searchTransactionHistory: boolean },
): Promise<SignatureStatus[]> {
  const answers = await rpcReadMany<StatusAnswer>(
    config,
    "getSignatureStatuses",
    signatures,
    options.searchTransactionHistory ? options : undefined,
  );
  return answers.map((status): SignatureStatus => {
    if (!status) return { kind: "not_found" };
    if (status.err) return { kind: "failed", err: status.err };
    if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")
      return { kind: "confirmed" };
    return { kind: "processing" };
  });
}
