import type { Config } from "../config/load-config";
import { log } from "../observability/log";
import { rejection, type PaymentRejection } from "../x402/payment-verdict";
import { lastFeePayerBalance, readFeePayerBalance } from "./fee-payer-balance";

/** The reason optional spenders (sweeps, keeper payouts, just-in-time vaults) give when they stop. */
export const FEE_PAYER_BELOW_MINIMUM = "fee_payer_below_minimum";
/** The reason a settle gives (503) when the fee payer is below the settle floor. */
export const FEE_PAYER_BELOW_SETTLE_FLOOR = "fee_payer_below_settle_floor";

/** Jobs read the balance anew unless a reading this young exists (e.g. /health's, a moment ago). */
const JOB_BALANCE_MAX_AGE_MS = 1_000;
/**
 * Settles never wait for a balance read: they compare against the isolate's last reading, lowered by every network
 * fee this isolate has paid since (`noteFeePayerSpend`), and refresh it after the response when it is older than
 * this. What the reading misses is other isolates' (and the jobs') spending and the operator's top-ups of the last
 * minute: at 5,000 lamports a settle, far below the floor's margin. A minute keeps the refresh under one call in a
 * hundred settles at a steady rate, so a warm settle stays a send and a subscription and nothing else.
 */
export const SETTLE_BALANCE_MAX_AGE_MS = 60_000;

export interface SpendingPause {
  reason: typeof FEE_PAYER_BELOW_MINIMUM;
  message: string;
  balanceLamports: string;
}

/**
 * Whether an optional spender must stop: null to go on, else why. One getBalance unless a reading younger than a
 * second exists; a failing read throws (the job reports its RPC fault and spends nothing).
 */
export async function optionalSpendingPause(config: Config, spender: string): Promise<SpendingPause | null> {
  const { lamports } = await readFeePayerBalance(config, JOB_BALANCE_MAX_AGE_MS);
  const minimum = config.feePayerFloors.minLamports;
  if (lamports >= minimum) return null;
  const message = `${FEE_PAYER_BELOW_MINIMUM}: the fee payer ${config.feePayer.address} holds ${lamports} lamports, below SVC_FEE_PAYER_MIN_LAMPORTS (${minimum}); ${spender} paused until it is refilled`;
  log("warn", "optional_spending_paused", { spender, reason: FEE_PAYER_BELOW_MINIMUM, balanceLamports: lamports.toString(), minLamports: minimum.toString() });
  return { reason: FEE_PAYER_BELOW_MINIMUM, message, balanceLamports: lamports.toString() };
}

/**
 * The settle hot path's check, without an RPC round trip: the isolate's last reading decides; a stale or missing
 * reading is refreshed after the response (`defer`). With no reading yet the settle goes on (the cluster itself
 * refuses a fee payer that cannot pay).
 */
export function settleFloorRefusal(config: Config, payer: string, defer: (work: Promise<unknown>) => void): PaymentRejection | null {
  const last = lastFeePayerBalance(config);
  if (!last || Date.now() - last.readAtMs >= SETTLE_BALANCE_MAX_AGE_MS) defer(readFeePayerBalance(config, SETTLE_BALANCE_MAX_AGE_MS));
  const floor = config.feePayerFloors.settleFloorLamports;
  if (!last || last.lamports >= floor) return null;
  log("error", "settle_refused_fee_payer_low", { reason: FEE_PAYER_BELOW_SETTLE_FLOOR, balanceLamports: last.lamports.toString(), settleFloorLamports: floor.toString() });
  return rejection(
    FEE_PAYER_BELOW_SETTLE_FLOOR,
    `The facilitator's fee payer holds ${last.lamports} lamports, below its settle floor (${floor}); settlement is paused until the operator refills it. Nothing was sent; retry later.`,
    { payer, code: "SERVICE_UNAVAILABLE" },
  );
}
