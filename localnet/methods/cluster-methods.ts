/**
 * Cluster-level methods: slots, heights, blockhashes, fees, identity. The chain impersonates devnet
 * (genesis hash, hence the CAIP-2 network id the x402 clients derive from it).
 */
import { CLUSTERS } from "../../src/platform/config/networks";
import { SLOTS_PER_EPOCH } from "../chain-clock";
import { computeTransactionFee } from "../fees";
import { localKeypair } from "../keys";
import { LOCALNET_FEATURE_SET, LOCALNET_SOLANA_CORE_VERSION, type LocalChain } from "../local-chain";
import type { RpcMethodTable } from "../rpc-dispatch";
import { invalidParams, RpcError } from "../rpc-errors";
import { checkMinContextSlot, configParam, requiredParam, u64Param } from "../rpc-params";
import { parseMessageBytes } from "../wire-transaction";

/** How many recent slots getRecentPrioritizationFees reports (a real node keeps 150). */
const PRIORITIZATION_FEE_SLOTS = 150n;
const BLOCK_NOT_AVAILABLE = -32004;

export function clusterMethods(chain: LocalChain): RpcMethodTable {
  const identity = localKeypair("validator-identity").address;
  const firstSlot = chain.sync().slot;

  return {
    getHealth: () => "ok",
    getGenesisHash: () => CLUSTERS.devnet.genesisHash,
    getVersion: () => ({ "solana-core": LOCALNET_SOLANA_CORE_VERSION, "feature-set": LOCALNET_FEATURE_SET }),
    getIdentity: () => ({ identity }),
    getSlotLeader: () => identity,

    getSlot: (params) => {
      checkMinContextSlot(chain, configParam(params, 0));
      return chain.sync().slot;
    },
    getBlockHeight: (params) => {
      checkMinContextSlot(chain, configParam(params, 0));
      return chain.sync().blockHeight;
    },
    getTransactionCount: () => chain.ledger.transactionCount,
    getFirstAvailableBlock: () => firstSlot,
    minimumLedgerSlot: () => firstSlot,

    getEpochInfo: (params) => {
      checkMinContextSlot(chain, configParam(params, 0));
      const { slot, blockHeight } = chain.sync();
      const epoch = chain.clock.epoch(slot);
      return {
        absoluteSlot: slot,
        blockHeight,
        epoch,
        slotIndex: slot - epoch * SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: chain.ledger.transactionCount,
      };
    },
    getEpochSchedule: () => ({
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
      leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
      slotsPerEpoch: SLOTS_PER_EPOCH,
      warmup: false,
    }),

    getLatestBlockhash: (params) => {
      checkMinContextSlot(chain, configParam(params, 0));
      const latest = chain.latestBlockhash();
      return {
        context: chain.context(),
        value: { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight },
      };
    },
    isBlockhashValid: (params) => {
      const blockhash = requiredParam(params, 0, "blockhash");
      checkMinContextSlot(chain, configParam(params, 1));
      if (typeof blockhash !== "string") throw invalidParams("Invalid param: Invalid");
      return { context: chain.context(), value: chain.isBlockhashValid(blockhash) };
    },

    getFeeForMessage: (params) => {
      const encoded = requiredParam(params, 0, "message");
      checkMinContextSlot(chain, configParam(params, 1));
      if (typeof encoded !== "string") throw invalidParams("Invalid params: message must be a base64 string");
      const message = parseMessageBytes(new Uint8Array(Buffer.from(encoded, "base64")));
      // A real node answers null when the blockhash is not (or no longer) in its window.
      const value = chain.isBlockhashValid(message.recentBlockhash) ? computeTransactionFee(message) : null;
      return { context: chain.context(), value };
    },
    getMinimumBalanceForRentExemption: (params) => {
      const dataLength = u64Param(requiredParam(params, 0, "data length"), "data length");
      return chain.minimumBalanceForRentExemption(dataLength);
    },
    getRecentPrioritizationFees: () => {
      // Nobody competes for block space locally, so every recent slot's minimum fee is zero.
      const { slot } = chain.sync();
      const entries = [];
      for (let offset = PRIORITIZATION_FEE_SLOTS - 1n; offset >= 0n; offset--) {
        entries.push({ slot: slot - offset, prioritizationFee: 0 });
      }
      return entries;
    },
    getBlockTime: (params) => {
      const slot = u64Param(requiredParam(params, 0, "slot"), "slot");
      if (slot > chain.sync().slot || slot < firstSlot) {
        throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
      }
      return chain.clock.unixTimestampOfSlot(slot);
    },
  };
}
