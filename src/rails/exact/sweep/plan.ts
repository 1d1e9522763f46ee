/**
 * The sweep plan: pure. Rails with their on-chain balances and the thresholds in, one item per rail out,
 * each with the (status, action) pair of the wire format (docs/wire-notes.md "Operator"). No I/O, no clock.
 */
import type { FeePayerBudgetRejectionReason } from "../../../x402/rejection-reasons";

export type SweepStatus = "failed" | "skipped" | "eligible" | "ok";
/**
 * A rail the exposure budget refused to pay a sweep for carries the cap's reason (src/chain/fee-payer-budget/caps.ts).
 */
export type SweepAction =
  | "none"
  | "below_threshold"
  | typeof SELLER_TOKEN_ACCOUNT_MISSING
  | FeePayerBudgetRejectionReason
  | "dry_run"
  | "sweep_submitted"
  | "sweep_error";

/**
 * Why an SPL rail is skipped although its balance is above the threshold: the seller has no token account for the
 * mint. A sweep never creates it (its rent would be the fee payer's, and a seller could close it and repeat).
 */
export const SELLER_TOKEN_ACCOUNT_MISSING = "seller_token_account_missing" as const;

/** What the balance reader found for one rail. */
export interface RailBalance {
  wallet: string;
  /** "SOL" or the SPL mint. */
  rail: string;
  /** Spendable lamports (SOL rail) or the vault token account's raw amount; null when unreadable. */
  availableRaw: bigint | null;
  /** The program's minimum fee for this rail: a sweep below it fails on chain. */
  minFeeRaw: bigint;
  /** Why the balance is unreadable (vault or vault token account missing, not a mint, …). */
  problem: string | null;
  /** SPL rail: the seller's associated token account for the mint, when it does not exist (null otherwise). */
  missingSellerTokenAccount?: string | null;
}

export interface SweepThresholds {
  minSpendableLamports: bigint;
  minSplRawDefault: bigint;
  minSplRawByMint: Readonly<Record<string, bigint>>;
}

export interface SweepPlanItem {
  wallet: string;
  settlementMode: "native_sol" | "spl";
  splMint: string | null;
  availableRaw: string | null;
  thresholdRaw: string;
  status: SweepStatus;
  action: SweepAction;
  signature: string | null;
  error: string | null;
}

/**
 * The threshold that applies to a rail: the operator's, never below the program's minimum fee (that would fail on
 * chain).
 */
export function thresholdFor(rail: string, minFeeRaw: bigint, thresholds: SweepThresholds): bigint {
  const configured =
    rail === "SOL"
      ? thresholds.minSpendableLamports
      : (thresholds.minSplRawByMint[rail] ?? thresholds.minSplRawDefault);
  const floor = minFeeRaw > 0n ? minFeeRaw : 1n;
  return configured > floor ? configured : floor;
}

export function planSweep(balances: readonly RailBalance[], thresholds: SweepThresholds): SweepPlanItem[] {
  return balances.map((balance) => {
    const threshold = thresholdFor(balance.rail, balance.minFeeRaw, thresholds);
    const base = {
      wallet: balance.wallet,
      settlementMode: balance.rail === "SOL" ? ("native_sol" as const) : ("spl" as const),
      splMint: balance.rail === "SOL" ? null : balance.rail,
      availableRaw: balance.availableRaw === null ? null : balance.availableRaw.toString(),
      thresholdRaw: threshold.toString(),
      signature: null,
    };
    if (balance.availableRaw === null) {
      return { ...base, status: "failed", action: "none", error: balance.problem ?? "vault balance unreadable" };
    }
    if (balance.availableRaw < threshold) return { ...base, status: "skipped", action: "below_threshold", error: null };
    if (balance.missingSellerTokenAccount) {
      return {
        ...base,
        status: "skipped",
        action: SELLER_TOKEN_ACCOUNT_MISSING,
        error: sellerTokenAccountMissingMessage(balance.wallet, balance.rail, balance.missingSellerTokenAccount),
      };
    }
    return { ...base, status: "eligible", action: "dry_run", error: null };
  });
}

/** What the seller reads in the /sweep item and the logs: which account is missing and who creates it. */
export function sellerTokenAccountMissingMessage(wallet: string, mint: string, ata: string): string {
  return (
    `${SELLER_TOKEN_ACCOUNT_MISSING}: the ` +
    `seller ${wallet} has no token account ` +
    `for ${mint} (${ata}); the seller creates it (any wallet can), and the next run sweeps`
  );
}
