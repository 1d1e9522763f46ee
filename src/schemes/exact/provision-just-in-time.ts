import { getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import type { Instruction } from "@solana/kit";
import type { Config } from "../../config/load-config";
import type { Env } from "../../env";
import { getCreateVaultInstruction } from "../../programs/universal-settle/instructions";
import { sendFacilitatorTransaction } from "../../solana/facilitator-transaction";
import { fetchAccounts } from "../../solana/accounts";
import { claimJitProvision, recordJitSignature, releaseJitProvision } from "../../store/jit-provisions";
import { log } from "../../observability/log";
import { rejection, type PaymentRejection } from "../../x402/payment-verdict";
import { rememberExists } from "./chain-cache";
import { vaultSolStorageOf } from "./vault-addresses";
import type { VerifiedExactPayment } from "./verify";

/** How long a settle waits for a concurrent settle that is provisioning the same vault. */
const WAIT_FOR_OTHER_PROVISIONER_MS = 10_000;

/**
 * Just-in-time provisioning (spec §3.1 row 3, §3.2): when a fully verified payment targets a vault (or vault
 * token account) that does not exist yet, the facilitator creates it in a transaction of its own, paying the
 * rent. The vault is then not sovereign: the program recovers the cost from the seller's revenue at sweep time.
 * Limited by SVC_JIT_PROVISIONING_DAILY_CAP per UTC day; only ever called after every payment rule passed.
 */
export async function provisionVaultJustInTime(config: Config, env: Env, payment: VerifiedExactPayment): Promise<{ ok: true } | PaymentRejection> {
  const seller = payment.merchantWallet;
  const asset = payment.accepted.requirements.asset;
  const claim = await claimJitProvision(env.DB, { sellerWallet: seller, asset, dailyCap: config.limits.jitProvisioningDailyCap, nowMs: Date.now() });
  if (claim === "cap_reached") {
    return rejection(
      "vault_not_provisioned",
      `The seller's vault ${payment.vault} is not activated and today's just-in-time provisioning budget is used; the seller can activate it with POST /sellers/provision-tx`,
      { payer: payment.payer },
    );
  }
  if (claim === "already_claimed") return waitForVault(config, payment);

  const instructions: Instruction[] = [];
  const accounts = await fetchAccounts(config, [payment.vault]);
  if (!accounts.get(payment.vault)) {
    instructions.push(
      getCreateVaultInstruction({
        programId: config.programs.universalSettle,
        payer: config.feePayer,
        vault: payment.vault,
        solStorage: await vaultSolStorageOf(config.programs.universalSettle, payment.vault),
        seller,
      }),
    );
  }
  if (payment.mint) {
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer: config.feePayer,
        ata: payment.destination,
        owner: payment.vault,
        mint: payment.mint.address,
        tokenProgram: payment.mint.tokenProgram,
      }),
    );
  }
  const sent = await sendFacilitatorTransaction(config, instructions);
  if (!sent.ok) {
    await releaseJitProvision(env.DB, seller, asset);
    log("warn", "jit_provisioning_failed", { seller, asset, vault: payment.vault, message: sent.message });
    return rejection("vault_provisioning_failed", `Creating the seller's vault failed: ${sent.message}`, { payer: payment.payer });
  }
  await recordJitSignature(env.DB, seller, asset, sent.signature);
  log("info", "jit_provisioned", { seller, asset, vault: payment.vault, signature: sent.signature });
  rememberExists(payment.vault);
  rememberExists(payment.destination);
  return { ok: true };
}

async function waitForVault(config: Config, payment: VerifiedExactPayment): Promise<{ ok: true } | PaymentRejection> {
  const deadline = Date.now() + WAIT_FOR_OTHER_PROVISIONER_MS;
  while (Date.now() < deadline) {
    const accounts = await fetchAccounts(config, [payment.vault, payment.destination]);
    if (accounts.get(payment.vault) && accounts.get(payment.destination)) return { ok: true };
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  return rejection("vault_not_provisioned", `The seller's vault ${payment.vault} is still being provisioned; retry settle shortly`, { payer: payment.payer });
}
