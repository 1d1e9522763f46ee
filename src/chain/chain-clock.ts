import { address } from "@solana/kit";
import type { AccountSnapshot } from "./accounts";

/**
 * Read in the same getMultipleAccounts as the accounts a decision depends on, so the keepers and the upto claim decide
 * on the chain's time, never the Worker's.
 */
export const CLOCK_SYSVAR = address("SysvarC1ock11111111111111111111111111111111");

export interface ChainClock {
  unixSeconds: bigint;
  /** 0 when the Clock sysvar could not be read. */
  slot: bigint;
}

/**
 * Clock sysvar: slot u64 @0, epoch_start_timestamp i64, epoch u64, leader_schedule_epoch u64, unix_timestamp i64 @32.
 */
export function chainClockOf(account: AccountSnapshot | null, nowMs: number): ChainClock {
  if (!account || account.data.length < 40) return { unixSeconds: BigInt(Math.floor(nowMs / 1000)), slot: 0n };
  const view = new DataView(account.data.buffer, account.data.byteOffset, account.data.byteLength);
  return { slot: view.getBigUint64(0, true), unixSeconds: view.getBigInt64(32, true) };
}
