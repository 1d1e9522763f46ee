/**
 * TEST-ONLY extension methods (prefixed `localnet_`; no real cluster has them):
 *
 *   localnet_setAccount  [pubkey, {lamports, dataBase64?, owner?, executable?}] → true
 *                        writes an account directly (lamports may exceed 2^53)
 *   localnet_warpSlots   [n] → {slot, blockHeight}   advances slot and block height by n
 *                        (expires blockhashes without waiting; the unix clock is not moved)
 *   localnet_warpTime    [seconds] → {unixTimestamp}  moves the Clock sysvar's unix time forward
 *   localnet_getClock    [] → {slot, blockHeight, unixTimestamp, epoch}
 *   localnet_createMint  [{decimals?, address?, tokenProgram?, freezeAuthority?}] → {mint}
 *                        a mint whose authority is the faucet (so requestTokenAirdrop works)
 *   localnet_getInfo     [] → the seeded addresses and local key addresses
 *   localnet_setConfirmationLag [feePayer, ms] → true   transactions paid by feePayer report "processed"
 *                        (not confirmed) for ms after landing; 0 removes the lag
 *   localnet_serviceTime [] → {requests, totalMs}   HTTP requests answered so far and the wall time spent on them,
 *                        from arrival to the last byte written (served by server.ts)
 *   localnet_requestLog  [sinceMs?] → [{methods, receivedAtMs, finishedAtMs}]   each request that arrived since
 *                        sinceMs (epoch ms, sub-ms precision), oldest first (served by server.ts)
 */
import { randomBytes } from "node:crypto";
import { faucetAddress } from "../faucet";
import type { JsonValue } from "../json-bigint";
import type { LocalChain } from "../local-chain";
import { placeMint } from "../placed-accounts";
import type { RpcMethodTable } from "../rpc-dispatch";
import { invalidParams } from "../rpc-errors";
import { pubkeyParam, requiredParam, u64Param } from "../rpc-params";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../token-accounts";
import { toBase58 } from "../wire-transaction";

const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";

export function localnetMethods(chain: LocalChain, info: () => unknown): RpcMethodTable {
  return {
    localnet_setAccount: (params) => {
      const pubkey = pubkeyParam(requiredParam(params, 0, "pubkey"));
      const spec = objectParam(requiredParam(params, 1, "account"));
      const dataBase64 = spec.dataBase64 ?? "";
      if (typeof dataBase64 !== "string") throw invalidParams("Invalid params: dataBase64 must be a string");
      const executable = spec.executable ?? false;
      if (typeof executable !== "boolean") throw invalidParams("Invalid params: executable must be a boolean");
      chain.setAccount(pubkey, {
        lamports: u64Param(spec.lamports, "lamports"),
        data: new Uint8Array(Buffer.from(dataBase64, "base64")),
        owner: spec.owner === undefined ? SYSTEM_PROGRAM_ID : pubkeyParam(spec.owner),
        executable,
      });
      return true;
    },

    localnet_setConfirmationLag: (params) => {
      const feePayer = pubkeyParam(requiredParam(params, 0, "feePayer"));
      const ms = Number(u64Param(requiredParam(params, 1, "ms"), "ms"));
      if (ms === 0) chain.confirmationLagMs.delete(feePayer);
      else chain.confirmationLagMs.set(feePayer, ms);
      return true;
    },

    localnet_warpSlots: (params) => {
      chain.warpSlots(u64Param(requiredParam(params, 0, "slots"), "slots"));
      return chain.sync();
    },

    localnet_warpTime: (params) => {
      chain.warpSeconds(u64Param(requiredParam(params, 0, "seconds"), "seconds"));
      return { unixTimestamp: chain.clock.unixTimestamp() };
    },

    localnet_getClock: () => {
      const { slot, blockHeight } = chain.sync();
      return { slot, blockHeight, unixTimestamp: chain.clock.unixTimestamp(), epoch: chain.clock.epoch(slot) };
    },

    localnet_createMint: (params) => {
      const spec = params[0] === undefined || params[0] === null ? {} : objectParam(params[0]);
      const decimals = spec.decimals === undefined ? 6 : Number(spec.decimals);
      if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
        throw invalidParams("Invalid params: decimals must be an integer in [0, 255]");
      }
      const tokenProgram = resolveTokenProgram(spec.tokenProgram);
      const mint = spec.address === undefined ? toBase58(randomBytes(32)) : pubkeyParam(spec.address);
      placeMint(chain, {
        address: mint,
        decimals,
        mintAuthority: faucetAddress(),
        freezeAuthority: spec.freezeAuthority === undefined ? null : pubkeyParam(spec.freezeAuthority),
        tokenProgram,
      });
      return { mint, tokenProgram };
    },

    localnet_getInfo: () => info(),
  };
}

function objectParam(value: JsonValue): { [key: string]: JsonValue | undefined } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalidParams("Invalid params: expected an object");
  }
  return value;
}

function resolveTokenProgram(raw: JsonValue | undefined): string {
  if (raw === undefined || raw === null || raw === "token" || raw === TOKEN_PROGRAM_ID) return TOKEN_PROGRAM_ID;
  if (raw === "token-2022" || raw === TOKEN_2022_PROGRAM_ID) return TOKEN_2022_PROGRAM_ID;
  throw invalidParams('Invalid params: tokenProgram must be "token", "token-2022" or one of their program ids');
}
