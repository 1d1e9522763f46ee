import type { Config } from "../platform/config/load-config";
import { type RpcInteger, rpcCall } from "./rpc";

/** One read of the fee payer's balance, with the slot the node answered at. */
export interface FeePayerBalanceReading {
  lamports: bigint;
  slot: number;
  readAtMs: number;
  /** What this isolate's sends put out since the read (network fees and fronted rent), already taken off `lamports`. */
  spentSinceReadLamports: bigint;
}

/**
 * The last reading per fee payer address, in this isolate. Only values are kept, never a pending promise: a
 * request must not await I/O another request started (Workers refuse that), and a read that fails leaves the
 * previous value in place.
 */
const readings = new Map<string, FeePayerBalanceReading>();

/** The last reading in this isolate, or null before the first one. */
export function lastFeePayerBalance(config: Pick<Config, "feePayer">): FeePayerBalanceReading | null {
  return readings.get(config.feePayer.address) ?? null;
}

/**
 * The fee payer's balance at confirmed commitment: the isolate's last reading when it is younger than `maxAgeMs`,
 * else one getBalance (whose context also gives the slot, so /health needs no separate getSlot). Throws a 502
 * `FACILITATOR_UPSTREAM` when the RPC fails.
 */
export async function readFeePayerBalance(
  config: Config,
  maxAgeMs: number,
  timeoutMs = config.rpcTimeoutMs,
): Promise<FeePayerBalanceReading> {
  const last = lastFeePayerBalance(config);
  if (last && Date.now() - last.readAtMs < maxAgeMs) return last;
  const { context, value } = await rpcCall<{ context: { slot: number }; value: RpcInteger }>(
    config,
    "getBalance",
    [config.feePayer.address, { commitment: "confirmed" }],
    timeoutMs,
  );
  const reading = { lamports: BigInt(value), slot: context.slot, readAtMs: Date.now(), spentSinceReadLamports: 0n };
  readings.set(config.feePayer.address, reading);
  return reading;
}

/**
 * Lowers the isolate's last reading by what this isolate just put out from the fee payer (a sent transaction's network
 * fee and any rent it fronts), so the settle floor sees its own spending at once and needs no fresh read for it. Other
 * isolates' spending shows at the next read; without a reading there is nothing to lower.
 */
export function noteFeePayerSpend(config: Pick<Config, "feePayer">, lamports: bigint): void {
  const last = readings.get(config.feePayer.address);
  if (!last || lamports <= 0n) return;
  readings.set(config.feePayer.address, {
    ...last,
    lamports: last.lamports > lamports ? last.lamports - lamports : 0n,
    spentSinceReadLamports: last.spentSinceReadLamports + lamports,
  });
}
