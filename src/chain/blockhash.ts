import type { Blockhash } from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { rpcCall } from "./rpc";

/**
 * The cluster's latest blockhash at confirmed commitment, with its last valid block height (every builder's lifetime).
 */
export async function getLatestBlockhash(
  config: Config,
): Promise<{ blockhash: Blockhash; lastValidBlockHeight: bigint }> {
  const { value } = await rpcCall<{ value: { blockhash: Blockhash; lastValidBlockHeight: number } }>(
    config,
    "getLatestBlockhash",
    [{ commitment: "confirmed" }],
  );
  return { blockhash: value.blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
}

/**
 * A signed transaction must land within ~150 blocks of its blockhash: about 60 seconds (docs/facilitator-spec.md §8).
 */
export const BLOCKHASH_LIFETIME_SECONDS = 60;

/** Whether a transaction with this blockhash could still land (so re-sending it is meaningful). */
export async function isBlockhashStillValid(config: Config, blockhash: string): Promise<boolean> {
  const { value } = await rpcCall<{ value: boolean }>(config, "isBlockhashValid", [
    blockhash,
    { commitment: "confirmed" },
  ]);
  return value;
}
