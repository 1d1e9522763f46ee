import type { Address } from "@solana/kit";
import { type ErrorReason, type FacilitatorError, refused } from "../platform/errors/catalogue";
import type { AccountSnapshot } from "./accounts";
import { readTokenSource } from "./token-account";
import { SYSTEM_PROGRAM_ADDRESS } from "./token-programs";

/**
 * Can the buyer pay? Pure checks over account snapshots read by the builder, so a buyer learns before
 * signing that the payment would fail on chain, and by how much it falls short.
 */

/**
 * Rent-exempt minimum of a data-less System account (128 bytes of overhead × 6,960 lamports per byte).
 * A System transfer that leaves the sender between 0 and this fails on chain ("insufficient funds for rent").
 */
/** What checking a payer's source account can answer. */
export const SOURCE_FUNDS_REASONS = [
  "payer_account_unusable",
  "insufficient_funds",
] as const satisfies readonly ErrorReason[];

export const RENT_EXEMPT_MINIMUM_EMPTY_ACCOUNT_LAMPORTS = 890_880n;
const SOL_DECIMALS = 9;

/** What the balance message calls the asset: "USDC", "SOL", or "token <mint>" for mints without a known name. */
export type AssetLabel = string;

/** Throws 400 unless the buyer's token account can send `amount`: it must exist, not be frozen, and hold enough. */
export function checkTokenSource(options: {
  account: AccountSnapshot | null;
  sourceAta: Address;
  tokenProgram: Address;
  amount: bigint;
  decimals: number;
  label: AssetLabel;
}): void {
  const { account, amount, decimals, label } = options;
  if (account === null) {
    throw insufficient(label, 0n, amount, decimals, `the payer has no ${label} token account (${options.sourceAta})`);
  }
  const source = readTokenSource(account, options.tokenProgram);
  if (source === null) {
    throw refused(
      "payer_account_unusable",
      `The payer's ${label} token account ${options.sourceAta} is not a token account of ${options.tokenProgram}`,
    );
  }
  if (source.state === "frozen") {
    throw refused(
      "payer_account_unusable",
      `The payer's ${label} token account ${options.sourceAta} is frozen and cannot send`,
    );
  }
  if (source.state !== "initialized") {
    throw refused(
      "payer_account_unusable",
      `The payer's ${label} token account ${options.sourceAta} is not initialized`,
    );
  }
  const balance = source.balance;
  if (balance < amount) throw insufficient(label, balance, amount, decimals);
}

/** Throws 400 unless the buyer's wallet can send `amount` lamports with a System transfer. */
export function checkSolSource(options: { account: AccountSnapshot | null; payer: Address; amount: bigint }): void {
  const { account, payer, amount } = options;
  const balance = account?.lamports ?? 0n;
  if (balance < amount) throw insufficient("SOL", balance, amount, SOL_DECIMALS);
  if (account !== null && (account.owner !== SYSTEM_PROGRAM_ADDRESS || account.data.length > 0)) {
    // The System program only debits data-less accounts it owns.
    throw refused(
      "payer_account_unusable",
      `The ` +
        `payer ${payer} is not a plain System wallet ` +
        `(owner ${account.owner}); it cannot send SOL with a System transfer`,
    );
  }
  const remaining = balance - amount;
  if (remaining > 0n && remaining < RENT_EXEMPT_MINIMUM_EMPTY_ACCOUNT_LAMPORTS) {
    throw refused(
      "insufficient_funds",
      `The payment would leave the payer ` +
        `with ${formatUnits(remaining, SOL_DECIMALS)} SOL (${remaining} lamports), below the ` +
        `rent-exempt minimum of ${RENT_EXEMPT_MINIMUM_EMPTY_ACCOUNT_LAMPORTS} lamports; the network would reject it. ` +
        `Keep at least that much or send the whole balance`,
      { availableRaw: balance.toString(), requiredRaw: amount.toString() },
    );
  }
}

function insufficient(
  label: AssetLabel,
  has: bigint,
  needs: bigint,
  decimals: number,
  detail?: string,
): FacilitatorError {
  const missing = needs - has;
  const message =
    `Insufficient ${label} balance: has ${formatUnits(has, decimals)}, needs ${formatUnits(needs, decimals)} ` +
    `(missing ${formatUnits(missing, decimals)}); raw units: has ${has}, needs ${needs}, missing ${missing}` +
    (detail ? `; ${detail}` : "");
  return refused("insufficient_funds", message, {
    availableRaw: has.toString(),
    requiredRaw: needs.toString(),
    missingRaw: missing.toString(),
    decimals,
  });
}

/** `raw / 10^decimals` as a plain decimal string without trailing zeros: 500000 @ 6 → "0.5". */
export function formatUnits(raw: bigint, decimals: number): string {
  if (decimals === 0) return raw.toString();
  const digits = raw.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}
