import { belowMinimumRefusal } from "../../chain/fee-payer-budget/caps";
import type { Config } from "../../platform/config/load-config";
import type { ClaimRider } from "../../store/claim-riders";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import { uptoCapRefusal, uptoOpenLimits } from "./channel-rent-caps";
import {
  channelOpenFiguresOf,
  channelOpenRiderSql,
  type GuardedRowWrite,
  type RentRowOpen,
  readChannelOpenFigures,
} from "./store/channel-rent";

/**
 * A channel's rent in the fee payer's exposure budget (src/chain/fee-payer-budget/budget.ts): booked on the channel's
 * own row (`upto_channels.rent_lamports`: the booking is the row's first write, one D1 batch with the deposit's
 * ledger claim) and counted while that row is live (`opening`/`open`) or stuck: the keeper closing or dropping the
 * row returns it, nothing else to call; a claim refused drops the row with it. The rail's own caps
 * (SVC_UPTO_MAX_OPEN_CHANNELS_PER_PAYER, _PER_PAY_TO, SVC_UPTO_MAX_OPENS_PER_PAYER_PER_HOUR) on top of the budget's
 * rent caps, which count every rail's rent (`config.railRentRows`).
 */

/**
 * An upto channel open's booking, as a rider of the open's ledger claim (its one D1 transaction, before the fee payer's
 * signature goes out): `write` (the row's guarded INSERT) writes the channel's row with its rent if every cap holds (a
 * retry of the same open is always ok), and the claim is refused with the cap's reason when one would be passed.
 * Check `belowMinimumRefusal` with the same balance first.
 */
export function uptoOpenRider(
  config: Config,
  open: RentRowOpen,
  write: GuardedRowWrite,
  balanceLamports: bigint,
  nowMs = Date.now(),
): ClaimRider<PaymentRejection> {
  const limits = uptoOpenLimits(config.feePayerBudget, config.upto.openCaps, balanceLamports, nowMs);
  return {
    ...channelOpenRiderSql(open, write, limits, config.railRentRows),
    explain: ([row]) => {
      if (!row) return null;
      const { channel, figures } = channelOpenFiguresOf(row);
      if (channel && channel.openMessageHash !== open.openMessageHash && channel.liveDeposit) {
        return rejection(
          "invalid_upto_svm_channel_already_open",
          `Channel ${open.channelId} already has a deposit in flight or settled; a deposit opens a new channel`,
          { payer: open.payer },
        );
      }
      return uptoCapRefusal(figures, limits, open.rentLamports, open.payer);
    },
  };
}

/**
 * /verify's look at the caps an upto open would be booked under at settle (read only, one D1 query): the refusal the
 * settle would answer, or null. An open already booked (a retry of the same deposit) is not refused.
 */
export async function uptoOpenCapRefusal(
  config: Config,
  db: D1Database,
  open: RentRowOpen,
  balanceLamports: bigint,
  nowMs = Date.now(),
): Promise<PaymentRejection | null> {
  const low = belowMinimumRefusal(config, balanceLamports, open.rentLamports, open.payer);
  if (low) return low;
  const limits = uptoOpenLimits(config.feePayerBudget, config.upto.openCaps, balanceLamports, nowMs);
  const { figures, channel } = await readChannelOpenFigures(db, open, limits.opensSinceMs, config.railRentRows);
  if (channel?.openMessageHash === open.openMessageHash) return null;
  return uptoCapRefusal(figures, limits, open.rentLamports, open.payer);
}
