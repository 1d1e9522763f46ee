import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type TransactionMessageWithBlockhashLifetime,
} from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { getLatestBlockhash } from "./blockhash";
import { confirmSignature } from "./confirm";
import { sendWithPreflight } from "./send-transaction";
import { watchSignature } from "./signature-watch";
import { classifyTransactionError, describe } from "./transaction-errors";

type Lifetime = TransactionMessageWithBlockhashLifetime["lifetimeConstraint"];

/**
 * Builds, signs (fee payer only), sends and confirms a transaction of the facilitator's own (just-in-time
 * provisioning). Never used for anything a caller supplied. `blockhash`: a live one the caller already holds (a
 * verified payment's), which saves the getLatestBlockhash call; the confirmation is pushed over PubSub like a settle's.
 */
export async function sendFacilitatorTransaction(
  config: Config,
  instructions: Instruction[],
  blockhash?: Lifetime,
): Promise<{ ok: true; signature: string } | { ok: false; message: string }> {
  const lifetime = blockhash ?? (await getLatestBlockhash(config));
  const { wireBase64, signature } = await signFacilitatorTransaction(config, lifetime, instructions);
  const watch = config.settleConfirmation === "subscribe" ? watchSignature(config, signature) : null;
  try {
    const sent = await sendWithPreflight(config, wireBase64);
    if (sent.kind === "rejected" && classifyTransactionError(sent.err).kind !== "already_processed") {
      const failedLog = sent.logs.filter((l) => /failed|error/i.test(l)).at(-1);
      return { ok: false, message: `${describe(sent.err)}${failedLog ? ` (${failedLog.slice(0, 160)})` : ""}` };
    }
    const outcome = await confirmSignature(config, signature, config.limits.settleConfirmTimeoutMs, watch);
    if (outcome.kind === "confirmed") return { ok: true, signature };
    return {
      ok: false,
      message: outcome.kind === "failed" ? describe(outcome.err) : `not confirmed in time (${signature})`,
    };
  } finally {
    watch?.close();
  }
}

/** Signs a transaction of the facilitator's own (fee payer only) with a given blockhash; sweeps share one per run. */
export async function signFacilitatorTransaction(
  config: Config,
  blockhash: Lifetime,
  instructions: Instruction[],
): Promise<{ wireBase64: string; signature: string }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(config.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return { wireBase64: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}
