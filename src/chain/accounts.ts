import type { Address } from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { fromBase64 } from "./bytes";
import { type RpcInteger, rpcReadMany } from "./rpc";

export interface AccountSnapshot {
  address: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
}

type AccountAnswer = { owner: Address; lamports: RpcInteger; data: [string, "base64"]; executable: boolean } | null;

/**
 * Reads many accounts in as few round trips as getMultipleAccounts allows (spec'd hot-path rule: batch account
 * reads). Missing accounts map to null. Duplicate addresses are fetched once.
 */
export async function fetchAccounts(
  config: Config,
  addresses: readonly Address[],
  commitment: "processed" | "confirmed" | "finalized" = "confirmed",
): Promise<Map<Address, AccountSnapshot | null>> {
  const unique = [...new Set(addresses)];
  const accounts = await rpcReadMany<AccountAnswer>(config, "getMultipleAccounts", unique, {
    encoding: "base64",
    commitment,
  });
  const result = new Map<Address, AccountSnapshot | null>();
  accounts.forEach((account, i) => {
    const address = unique[i]!;
    result.set(
      address,
      account === null
        ? null
        : {
            address,
            owner: account.owner,
            lamports: BigInt(account.lamports),
            data: fromBase64(account.data[0]),
            executable: account.executable,
          },
    );
  });
  return result;
}
