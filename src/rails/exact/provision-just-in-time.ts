import type { Blockhash, Instruction } from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { fetchAccounts } from "../../chain/accounts";
import { sendFacilitatorTransaction } from "../../chain/facilitator-transaction";
import { bookExposure, settleExposure } from "../../chain/fee-payer-budget/budget";
import {
  SPLIT_VAULT_RENT_LAMPORTS,
  tokenAccountRentLamports,
  VAULT_SOL_STORAGE_RENT_LAMPORTS,
} from "../../chain/fee-payer-budget/caps";
import { FEE_PAYER_BELOW_MINIMUM, optionalSpendingPause } from "../../chain/fee-payer-floor";
import type { Config } from "../../platform/config/load-config";
import { log } from "../../platform/observability/log";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import { rememberExists } from "./chain-cache";
import { getCreateVaultInstruction } from "./program/instructions";
import { getUniversalSettleFacts } from "./program-facts";
import { simulateProvisionedPayment } from "./provisioned-payment-simulation";
import { claimJitProvision, recordJitSignature, releaseJitProvision } from "./store/jit-provisions";
import { requireUniversalSettle } from "./universal-settle-program";
import { vaultSolStorageOf } from "./vault-addresses";
import type { VerifiedVaultPayment } from "./verify";

/** How long a settle waits for a concurrent settle that is provisioning the same vault. */
const WAIT_FOR_OTHER_PROVISIONER_MS = 10_000;
/** A claim whose holder vanished before spending anything may be taken again after this long. */
const JIT_CLAIM_TTL_MS = 120_000;
/**
 * Used only while the on-chain Config cannot be read: the documented recovery targets (docs/facilitator-spec.md §3.2).
 */
const FALLBACK_RECOVERY_TARGET_RAW = 1_000_000n;
const FALLBACK_RECOVERY_TARGET_LAMPORTS = 10_000_000n;

/**
 * Just-in-time provisioning (docs/facilitator-spec.md §3.1 row 3, §3.2): when a fully verified payment targets a vault
 * (or vault token account) that does not exist yet, the facilitator creates it in a transaction of its own, paying the
 * rent; the program recovers that cost from the seller's revenue at sweep time. The facilitator fronts a vault only
 * when it is worth it and can work:
 * - the payment is at least the program's provisioning recovery target (`SVC_JIT_MIN_PAYMENT_RAW_BY_MINT`
 *   overrides it per mint), so the revenue that repays the rent exists;
 * - a claim within SVC_JIT_PROVISIONING_DAILY_CAP is taken atomically in D1;
 * - the vault creation and the payment are simulated together first: nothing is spent for a payment that could
 *   not land afterwards;
 * - the rent is booked in the fee payer's exposure budget (src/chain/fee-payer-budget/) as spent for the buyer and the
 *   seller, within the daily spend caps, before the vault's transaction is signed (it never comes back to the fee
 *   payer: the program's recovery pays the operator's fee destination). A send that fails voids the booking.
 */
export async function provisionVaultJustInTime(
  config: Config,
  db: D1Database,
  payment: VerifiedVaultPayment,
): Promise<{ ok: true } | PaymentRejection> {
  const seller = payment.merchantWallet;
  const asset = payment.accepted.requirements.asset;
  const minimum = await jitMinimumPayment(config, asset, payment.mint === null);
  if (payment.accepted.amount < minimum) return belowJitMinimum(payment, minimum);
  // An optional spend: paused while the fee payer is below SVC_FEE_PAYER_MIN_LAMPORTS (the seller can still activate).
  const pause = await optionalSpendingPause(config, "just-in-time vault provisioning");
  if (pause) return jitPaused(payment);
  const claim = await claimJitProvision(db, {
    sellerWallet: seller,
    asset,
    dailyCap: config.limits.jitProvisioningDailyCap,
    nowMs: Date.now(),
    claimTtlMs: JIT_CLAIM_TTL_MS,
  });
  if (claim === "cap_reached") return jitCapReached(payment);
  if (claim === "already_claimed") return waitForVault(config, payment);

  const bookingId = jitBookingId(payment);
  let booked = false;
  try {
    const { instructions, rentLamports } = await createInstructions(config, payment);
    const simulated = await simulateProvisionedPayment(config, instructions, payment);
    if (!simulated.ok) {
      await releaseJitProvision(db, seller, asset);
      return { ...simulated, payer: payment.payer };
    }
    const budget = await bookExposure(config, db, {
      bookingId,
      rail: "exact",
      kind: "rent_spent",
      payer: payment.payer,
      payTo: seller,
      lamports: rentLamports,
    });
    if (!budget.ok) {
      await releaseJitProvision(db, seller, asset);
      return { ...budget, payer: payment.payer };
    }
    booked = true;
    // The payment's own blockhash (verified live) serves the vault's transaction too: the payment must land within
    // the same lifetime anyway, and the facilitator saves a getLatestBlockhash call.
    const sent = await sendFacilitatorTransaction(config, instructions, paymentLifetime(payment));
    if (!sent.ok) {
      await Promise.all([releaseJitProvision(db, seller, asset), settleExposure(db, bookingId, "voided")]);
      log("warn", "jit_provisioning_failed", { seller, asset, vault: payment.vault, message: sent.message });
      return rejection(
        "vault_provisioning_failed",
        `Creating the seller's vault failed: ${sent.message}; retry settle`,
        { payer: payment.payer },
      );
    }
    await recordJitSignature(db, seller, asset, sent.signature);
    log("info", "jit_provisioned", { seller, asset, vault: payment.vault, signature: sent.signature });
  } catch (error) {
    // An RPC fault before anything was spent: give the claim (and the booking) back so the seller is not blocked.
    await releaseJitProvision(db, seller, asset).catch(() => undefined);
    if (booked) await settleExposure(db, bookingId, "voided").catch(() => undefined);
    throw error;
  }
  rememberExists(payment.vault);
  rememberExists(payment.destination);
  return { ok: true };
}

function paymentLifetime(payment: VerifiedVaultPayment) {
  return { blockhash: payment.tx.recentBlockhash as Blockhash, lastValidBlockHeight: 0n };
}

/** The exposure budget's key of a vault's rent: one booking per vault and asset, so a retried settle books once. */
export function jitBookingId(payment: Pick<VerifiedVaultPayment, "vault" | "accepted">): string {
  return `jit_vault:${payment.vault}:${payment.accepted.requirements.asset}`;
}

/**
 * The rent the fee payer fronts for a payment's vault: the vault and its SOL storage when the vault is missing, and
 * for a token the vault's token account (CreateIdempotent: booked as if it creates, as the payment targets a token
 * account found missing at verify).
 */
export function justInTimeRentLamports(payment: Pick<VerifiedVaultPayment, "mint">, vaultExists: boolean): bigint {
  const vault = vaultExists ? 0n : SPLIT_VAULT_RENT_LAMPORTS + VAULT_SOL_STORAGE_RENT_LAMPORTS;
  return vault + (payment.mint ? tokenAccountRentLamports(payment.mint.tokenProgram) : 0n);
}

// The refusals of a vault this facilitator will not front, the same from /verify (./just-in-time-refusal.ts) and
// /settle.
export function belowJitMinimum(payment: VerifiedVaultPayment, minimum: bigint): PaymentRejection {
  return rejection(
    "vault_not_provisioned",
    `The seller's ` +
      `vault ${payment.vault} is not activated, and this facilitator fronts a vault only for a payment of at ` +
      `least ${minimum} raw units; the seller can activate it with POST /sellers/provision-tx`,
    { payer: payment.payer },
  );
}

export function jitPaused(payment: VerifiedVaultPayment): PaymentRejection {
  return rejection(
    "vault_not_provisioned",
    `The seller's ` +
      `vault ${payment.vault} is not activated and just-in-time provisioning is paused ` +
      `(${FEE_PAYER_BELOW_MINIMUM}: the facilitator's fee payer is below its minimum balance); the seller can ` +
      `activate it with POST /sellers/provision-tx`,
    { payer: payment.payer },
  );
}

export function jitCapReached(payment: VerifiedVaultPayment): PaymentRejection {
  return rejection(
    "vault_not_provisioned",
    `The seller's ` +
      `vault ${payment.vault} is not activated and today's just-in-time provisioning budget is used; the seller can ` +
      `activate it with POST /sellers/provision-tx`,
    { payer: payment.payer },
  );
}

/** The payment that justifies fronting a vault: the program's provisioning recovery target, unless configured. */
export async function jitMinimumPayment(config: Config, asset: string, isNativeSol: boolean): Promise<bigint> {
  const configured = Object.hasOwn(config.limits.jitMinPaymentRawByMint, asset)
    ? config.limits.jitMinPaymentRawByMint[asset]
    : undefined;
  if (configured !== undefined) return configured;
  const { onChainConfig } = await getUniversalSettleFacts(config);
  if (isNativeSol) return onChainConfig?.provisioningFeeLamports ?? FALLBACK_RECOVERY_TARGET_LAMPORTS;
  return onChainConfig?.provisioningFeeRaw ?? FALLBACK_RECOVERY_TARGET_RAW;
}

/** The vault's (and its token account's) creation, and the rent the fee payer fronts for it. */
async function createInstructions(
  config: Config,
  payment: VerifiedVaultPayment,
): Promise<{ instructions: Instruction[]; rentLamports: bigint }> {
  const instructions: Instruction[] = [];
  const accounts = await fetchAccounts(config, [payment.vault]);
  const vaultExists = Boolean(accounts.get(payment.vault));
  if (!vaultExists) {
    instructions.push(
      getCreateVaultInstruction({
        programId: requireUniversalSettle(config),
        payer: config.feePayer,
        vault: payment.vault,
        solStorage: await vaultSolStorageOf(requireUniversalSettle(config), payment.vault),
        seller: payment.merchantWallet,
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
  return { instructions, rentLamports: justInTimeRentLamports(payment, vaultExists) };
}

async function waitForVault(config: Config, payment: VerifiedVaultPayment): Promise<{ ok: true } | PaymentRejection> {
  const deadline = Date.now() + WAIT_FOR_OTHER_PROVISIONER_MS;
  while (Date.now() < deadline) {
    const accounts = await fetchAccounts(config, [payment.vault, payment.destination]);
    if (accounts.get(payment.vault) && accounts.get(payment.destination)) return { ok: true };
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  return rejection(
    "vault_not_provisioned",
    `The seller's vault ${payment.vault} is still being provisioned; retry settle shortly`,
    { payer: payment.payer },
  );
}
