import { CHANNEL_STATUS, type Channel } from "../program/accounts";

/**
 * Open accepts `open_slot` up to this many slots back; Reclaim (and the deallocating Distribute) wait for it to pass.
 */
export const OPEN_SLOT_WINDOW = 1_500n;

/**
 * What the upto keeper does with one channel this facilitator is payee and rent payer of (docs/payment-channels.md,
 * "How the facilitator serves upto"). Time is the chain's clock, never the Worker's.
 * - OPEN: once no voucher can settle any more (its expiry) plus a grace for a claim in flight, seal it at its current
 *   watermark (SettleAndSeal without a voucher, the payee's right) and Distribute: the unclaimed deposit goes back to
 *   the buyer, the escrow token account's rent to the fee payer.
 * - CLOSING (the buyer asked to close): the same before the grace period ends; after it, anyone's Seal then Distribute.
 * - SEALED: Distribute.
 * - DISTRIBUTED: Reclaim the channel account's rent once the open-slot window has passed.
 * - gone: nothing left (Distribute deallocated it, or it was reclaimed).
 */
export type ChannelStep =
  | { kind: "seal_and_distribute" }
  | { kind: "seal_expired_and_distribute" }
  | { kind: "distribute" }
  | { kind: "reclaim" }
  | { kind: "closed"; why: string }
  | { kind: "wait"; untilUnixSeconds: bigint | null; untilSlot: bigint | null; why: string };

export function decideChannelStep(
  channel: Channel | null,
  now: { unixSeconds: bigint; slot: bigint },
  claimableUntilUnixSeconds: bigint,
): ChannelStep {
  if (channel === null)
    return { kind: "closed", why: "the channel account is gone (distributed and deallocated, or reclaimed)" };
  switch (channel.status) {
    case CHANNEL_STATUS.OPEN:
      return now.unixSeconds < claimableUntilUnixSeconds
        ? {
            kind: "wait",
            untilUnixSeconds: claimableUntilUnixSeconds,
            untilSlot: null,
            why: "a voucher may still settle it",
          }
        : { kind: "seal_and_distribute" };
    case CHANNEL_STATUS.CLOSING: {
      const deadline = channel.closureStartedAt + BigInt(channel.gracePeriod);
      if (now.unixSeconds >= deadline) return { kind: "seal_expired_and_distribute" };
      if (now.unixSeconds < claimableUntilUnixSeconds) {
        const until = claimableUntilUnixSeconds < deadline ? claimableUntilUnixSeconds : deadline;
        return {
          kind: "wait",
          untilUnixSeconds: until,
          untilSlot: null,
          why: "closing; a voucher may still settle it",
        };
      }
      return { kind: "seal_and_distribute" };
    }
    case CHANNEL_STATUS.SEALED:
      return { kind: "distribute" };
    case CHANNEL_STATUS.DISTRIBUTED:
      return now.slot > channel.openSlot + OPEN_SLOT_WINDOW
        ? { kind: "reclaim" }
        : {
            kind: "wait",
            untilUnixSeconds: null,
            untilSlot: channel.openSlot + OPEN_SLOT_WINDOW + 1n,
            why: "distributed; its rent comes back after the open-slot window",
          };
    default:
      return { kind: "wait", untilUnixSeconds: null, untilSlot: null, why: `unknown channel status ${channel.status}` };
  }
}
