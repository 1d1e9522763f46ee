import type { Instruction, TransactionMessageWithBlockhashLifetime } from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { signFacilitatorTransaction } from "./facilitator-transaction";
import { sendWithPreflight } from "./send-transaction";
import { describe } from "./transaction-errors";

/**
 * One keeper step: the fee payer alone signs `instructions` on the run's blockhash and sends them with preflight.
 * `refused`: preflight said no, nothing reached the cluster (no fee). `sent`: the cluster has (or, after a transport
 * failure, may have) the transaction — its signature goes to the run's status polls, which decide the outcome.
 */
export async function sendKeeperStep(
  config: Config,
  blockhash: TransactionMessageWithBlockhashLifetime["lifetimeConstraint"],
  instructions: Instruction[],
): Promise<{ kind: "sent"; signature: string } | { kind: "refused"; why: string }> {
  const { wireBase64, signature } = await signFacilitatorTransaction(config, blockhash, instructions);
  try {
    const result = await sendWithPreflight(config, wireBase64);
    if (result.kind === "rejected") return { kind: "refused", why: `preflight refused: ${describe(result.err)}` };
  } catch {
    // Transport failure: the step may have reached the cluster; the status poll finds out.
  }
  return { kind: "sent", signature };
}
