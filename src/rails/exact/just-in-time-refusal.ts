import { feePayerBalanceForBudget } from "../../chain/fee-payer-budget/budget";
import { belowMinimumRefusal, exposureCapRefusal, spentLimits } from "../../chain/fee-payer-budget/caps";
import type { Config } from "../../platform/config/load-config";
import { liveExposureBookings, readJobsSpent } from "../../store/fee-payer-exposure";
import type { PaymentRejection } from "../../x402/payment-verdict";
import {
  belowJitMinimum,
  jitBookingId,
  jitCapReached,
  jitMinimumPayment,
  jitPaused,
  justInTimeRentLamports,
} from "./provision-just-in-time";
import { peekJitProvision } from "./store/jit-provisions";
import type { VerifiedVaultPayment } from "./verify";

/**
 * /verify's look at what /settle's just-in-time provisioning (./provision-just-in-time.ts) would refuse for a payment
 * whose vault must be created first, in the settle's order: the payment worth fronting a vault for, the fee payer
 * above SVC_FEE_PAYER_MIN_LAMPORTS, today's SVC_JIT_PROVISIONING_DAILY_CAP, and the rent within the exposure budget's
 * operator jobs' daily pool and the minimum (docs/money-rules.md). Read only: it books and claims nothing. Costs the
 * rare provisioning path one balance reading (the isolate's, or one getBalance) and one D1 round trip (three reads
 * sent together). A payment whose vault rent is already booked (a retried settle's) is not refused on the caps.
 */
export async function justInTimeRefusal(
  config: Config,
  db: D1Database,
  payment: VerifiedVaultPayment,
  nowMs = Date.now(),
): Promise<PaymentRejection | null> {
  const minimum = await jitMinimumPayment(config, payment.accepted.requirements.asset, payment.mint === null);
  if (payment.accepted.amount < minimum) return belowJitMinimum(payment, minimum);

  const who = { payer: payment.payer, payTo: payment.merchantWallet };
  const limits = spentLimits(config.feePayerBudget, nowMs);
  const bookingId = jitBookingId(payment);
  const [balance, claim, jobsSpent, live] = await Promise.all([
    feePayerBalanceForBudget(config),
    peekJitProvision(db, {
      sellerWallet: payment.merchantWallet,
      asset: payment.accepted.requirements.asset,
      dailyCap: config.limits.jitProvisioningDailyCap,
      nowMs,
    }),
    readJobsSpent(db, limits.sinceMs),
    liveExposureBookings(db, [bookingId]),
  ]);
  if (balance < config.feePayerFloors.minLamports) return jitPaused(payment);
  if (claim === "cap_reached") return jitCapReached(payment);
  // Another settle is creating this vault: the settle waits for it and fronts nothing itself.
  if (claim === "already_claimed" || live.has(bookingId)) return null;

  const rent = justInTimeRentLamports(payment, payment.vaultExists);
  const low = belowMinimumRefusal(config, balance, rent, payment.payer);
  if (low) return low;
  return exposureCapRefusal({ payerLamports: 0n, payToLamports: 0n, totalLamports: jobsSpent }, limits, rent, who);
}
