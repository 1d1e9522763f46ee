import type { Address, Base64EncodedDataResponse } from "@solana/kit";
import { rpcCall, solanaRpc } from "./rpc";
import type { Config } from "../config/load-config";

export interface AccountSnapshot {
  address: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
}

/** getMultipleAccounts accepts at most 100 keys per call. */
const MAX_ACCOUNTS_PER_CALL = 100;

/**
 * Reads many accounts in one batched round trip (spec'd hot-path rule: batch account reads).
 * Missing accounts map to null. Duplicate addresses are fetched once.
 */
export async function fetchAccounts(
  config: Config,
  addresses: readonly Address[],
  commitment: "processed" | "confirmed" | "finalized" = "confirmed",
): Promise<Map<Address, AccountSnapshot | null>> {
  const unique = [...new Set(addresses)];
  const result = new Map<Address, AccountSnapshot | null>();
  for (let start = 0; start < unique.length; start += MAX_ACCOUNTS_PER_CALL) {
    const chunk = unique.slice(start, start + MAX_ACCOUNTS_PER_CALL);
    const response = await rpcCall(
      config,
      "getMultipleAccounts",
      solanaRpc(config).getMultipleAccounts(chunk, { encoding: "base64", commitment }),
    );
    response.value.forEach((account, i) => {
      const address = chunk[i]!;
      result.set(
        address,
        account === null
          ? null
          : {
              address,
              owner: account.owner,
              lamports: BigInt(account.lamports),
              data: decodeBase64Data(account.data),
              executable: account.executable,
            },
      );
    });
  }
  return result;
}

function decodeBase64Data(data: Base64EncodedDataResponse): Uint8Array {
  const [encoded] = data;
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
