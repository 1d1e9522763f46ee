/**
 * Faucet methods: `requestAirdrop` (standard) and `requestTokenAirdrop` (local extension:
 * [wallet, amountRaw, mint = devnet USDC] → signature; creates the wallet's ATA when missing).
 */
import { CLUSTERS } from "../../src/platform/config/networks";
import { airdropLamports, airdropTokens } from "../faucet";
import type { LocalChain } from "../local-chain";
import type { RpcMethodTable } from "../rpc-dispatch";
import { checkMinContextSlot, configParam, pubkeyParam, requiredParam, u64Param } from "../rpc-params";

export function faucetMethods(chain: LocalChain): RpcMethodTable {
  return {
    requestAirdrop: (params) => {
      const recipient = pubkeyParam(requiredParam(params, 0, "pubkey"));
      const lamports = u64Param(requiredParam(params, 1, "lamports"), "lamports");
      checkMinContextSlot(chain, configParam(params, 2));
      return airdropLamports(chain, recipient, lamports);
    },

    requestTokenAirdrop: async (params) => {
      const wallet = pubkeyParam(requiredParam(params, 0, "wallet"));
      const amountRaw = u64Param(requiredParam(params, 1, "amount"), "amount");
      const mintParam = params[2];
      const mint = mintParam === undefined || mintParam === null ? CLUSTERS.devnet.usdcMint : pubkeyParam(mintParam);
      const { signature } = await airdropTokens(chain, wallet, amountRaw, mint);
      return signature;
    },
  };
}
