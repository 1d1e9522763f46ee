import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../../chain/accounts";
import { bookExposure } from "../../../chain/fee-payer-budget/budget";
import { rpcCall } from "../../../chain/rpc";
import type { Config } from "../../../platform/config/load-config";
import { log } from "../../../platform/observability/log";
import { liveExposureBookings } from "../../../store/fee-payer-exposure";

/**
 * No token account created at the fee payer's expense by a payout (docs/sla-escrow-abi.md: ReleasePayment, and the
 * oracle's tip on either payout, create a missing recipient token account with the caller paying its rent; a missing
 * buyer account is refused by the program, so a refund creates none for the buyer).
 *
 * - Immediately before the run's sends, the recipients' token accounts are read again (one getMultipleAccounts for the
 *   whole run): one missing waits for its owner, as at planning.
 * - A closing between that read and the execution cannot be avoided. The keeper finds it out afterwards (the confirmed
 *   payout's balances: the account was empty before it) and books the rent in the exposure budget as spent for the
 *   buyer and that recipient, keyed per recipient token account and UTC day.
 * - A recipient token account with such a booking today receives no payout until the next UTC day
 *   (PAYOUT_ACCOUNT_PERIOD_MS): the fee payer pays a recipient's rent at most once per period, however often its
 *   owner closes it in the window.
 */

/** The period of "at most one creation per recipient token account": a UTC day. */
export const PAYOUT_ACCOUNT_PERIOD_MS = 86_400_000;

/** A payout's recipient token account the program would create at the caller's cost, and its owner. */
export interface CreatableAccount {
  account: Address;
  owner: Address;
}

/** The booking of a creation paid in `period` (the UTC day of `nowMs`). */
export function payoutAccountBookingId(account: Address, nowMs: number): string {
  const periodStartMs = Math.floor(nowMs / PAYOUT_ACCOUNT_PERIOD_MS) * PAYOUT_ACCOUNT_PERIOD_MS;
  return `payout_token_account:${account}:${new Date(periodStartMs).toISOString().slice(0, 10)}`;
}

/**
 * Why each payout must wait now (by its index in `payouts`), from one account read and one D1 read in parallel: a
 * recipient token account missing just before the send, or one whose rent the fee payer already paid this period.
 */
export async function payoutAccountWaits(
  config: Config,
  db: D1Database,
  payouts: readonly (readonly CreatableAccount[])[],
  nowMs: number,
): Promise<Map<number, string>> {
  const accounts = [...new Set(payouts.flat().map((c) => c.account))];
  const waits = new Map<number, string>();
  if (accounts.length === 0) return waits;
  const [onChain, booked] = await Promise.all([
    fetchAccounts(config, accounts),
    liveExposureBookings(
      db,
      accounts.map((a) => payoutAccountBookingId(a, nowMs)),
    ),
  ]);
  const nextPeriod = new Date(
    (Math.floor(nowMs / PAYOUT_ACCOUNT_PERIOD_MS) + 1) * PAYOUT_ACCOUNT_PERIOD_MS,
  ).toISOString();
  payouts.forEach((creatable, i) => {
    for (const { account, owner } of creatable) {
      if (!onChain.get(account)) {
        waits.set(
          i,
          `recipient token ` +
            `account ${account} does not exist yet (read again just before sending); its ` +
            `owner ${owner} must create it: the keeper pays nobody's rent`,
        );
        return;
      }
      if (booked.has(payoutAccountBookingId(account, nowMs))) {
        waits.set(
          i,
          `a payout already created recipient token ` +
            `account ${account} at the fee payer's cost today (its owner closed it just before); payouts into it ` +
            `wait until ${nextPeriod}`,
        );
        return;
      }
    }
  });
  return waits;
}

interface TransactionBalances {
  transaction: { message: { accountKeys: string[] } };
  meta: { preBalances: number[]; postBalances: number[] } | null;
}

/**
 * After the run: each confirmed payout's transaction is read (one getTransaction each, only for payouts that could
 * create an account), and an account it created — empty before, funded after — is booked as spent: counted, never
 * refused (the lamports are already gone), keyed per recipient token account and UTC day.
 */
export async function bookPayoutAccountCreations(
  config: Config,
  db: D1Database,
  landed: readonly { signature: string; buyer: Address; creatable: readonly CreatableAccount[] }[],
  nowMs: number,
): Promise<void> {
  await Promise.all(
    landed
      .filter((l) => l.creatable.length > 0)
      .map(async ({ signature, buyer, creatable }) => {
        const tx = await rpcCall<TransactionBalances | null>(config, "getTransaction", [
          signature,
          { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ]);
        if (!tx?.meta) return;
        const keys = tx.transaction.message.accountKeys;
        for (const { account, owner } of creatable) {
          const i = keys.indexOf(account);
          if (i < 0 || tx.meta.preBalances[i] !== 0 || !(tx.meta.postBalances[i]! > 0)) continue;
          const lamports = BigInt(tx.meta.postBalances[i]!);
          log("warn", "payout_created_token_account", { signature, account, owner, lamports: lamports.toString() });
          await bookExposure(
            config,
            db,
            {
              bookingId: payoutAccountBookingId(account, nowMs),
              rail: "sla-escrow",
              kind: "rent_spent",
              payer: buyer,
              payTo: owner,
              lamports,
            },
            { nowMs, uncapped: true },
          );
        }
      }),
  );
}
