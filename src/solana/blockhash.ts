import type { Blockhash } from "@solana/kit";
import type { Config } from "../config/load-config";
import { rpcCall, solanaRpc } from "./rpc";

/** Whether a transaction with this blockhash could still land (so re-sending it is meaningful). */
export async function isBlockhashStillValid(config: Config, blockhash: string): Promise<boolean> {
  const { value } = await rpcCall(config, "isBlockhashValid", solanaRpc(config).isBlockhashValid(blockhash as Blockhash, { commitment: "confirmed" }));
  return value;
}
