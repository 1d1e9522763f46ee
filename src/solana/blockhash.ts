import type { Blockhash } from "@solana/kit";
import type { Config } from "../config/load-config";
import { rpcCall, solanaRpc } from "./rpc";

/** A signed transaction must land within ~150 blocks of its blockhash: about 60 seconds (spec §8). */
export const BLOCKHASH_LIFETIME_SECONDS = 60;

/** The cluster's latest blockhash at confirmed commitment, with its last valid block height (every builder's lifetime). */
export async function getLatestBlockhash(config: Config) {
  const { value } = await rpcCall(config, "getLatestBlockhash", solanaRpc(config).getLatestBlockhash({ commitment: "confirmed" }));
  return value;
}

/** Whether a transaction with this blockhash could still land (so re-sending it is meaningful). */
export async function isBlockhashStillValid(config: Config, blockhash: string): Promise<boolean> {
  const { value } = await rpcCall(config, "isBlockhashValid", solanaRpc(config).isBlockhashValid(blockhash as Blockhash, { commitment: "confirmed" }));
  return value;
}
