import { fetchAccounts } from "../../chain/accounts";
import { RAIL_SWITCH_REASONS } from "../../platform/config/rail-switches";
import { FacilitatorError } from "../../platform/errors/catalogue";
import { feeOf, type RailFeeQuote } from "../fee-quote";
import { EXACT_BELOW_MINIMUM_REASON, refuseBelowExactMinimum } from "./minimum-amount";
import { decodeSplitVault } from "./program/accounts";
import { getUniversalSettleFacts } from "./program-facts";
import { requireUniversalSettle } from "./universal-settle-program";
import { vaultOf } from "./vault-addresses";

/**
 * The `exact` quote, from the on-chain UniversalSettle Config and the seller's vault: sovereign (activated by the
 * seller), standard, or not_activated (the vault does not exist yet, and the setup cost is withheld from revenue).
 */
export const exactFeeQuote: RailFeeQuote = {
  // The minimum /verify applies, and the vault form switched off (no UniversalSettle program).
  reasons: [EXACT_BELOW_MINIMUM_REASON, ...RAIL_SWITCH_REASONS],
  async quote(config, { common, wallet, isNativeSol: isSol, amount }) {
    await refuseBelowExactMinimum(config, "amount", amount, common.mint, isSol);
    const programId = requireUniversalSettle(config);
    const vault = await vaultOf(programId, wallet);
    const [facts, accounts] = await Promise.all([getUniversalSettleFacts(config), fetchAccounts(config, [vault])]);
    const onChain = facts.onChainConfig;
    if (!onChain)
      throw new FacilitatorError(
        "FACILITATOR_UPSTREAM",
        "the UniversalSettle Config account could not be read; try again",
      );
    const account = accounts.get(vault);
    const split = account && account.owner === programId ? decodeSplitVault(account.data) : null;
    const tier = split === null ? "not_activated" : split.isSovereign ? "sovereign" : "standard";
    const feeBps = split?.isSovereign ? onChain.discountedFeeBps : onChain.feeBps;
    const minimum = isSol ? onChain.minFeeAmountLamports : onChain.minFeeAmountRaw;
    const protocolFee = feeOf(amount, feeBps, minimum);
    const net = amount - protocolFee;
    let withheld = 0n;
    if (!split?.isSovereign && !split?.isProvisioned) {
      const target = isSol ? onChain.provisioningFeeLamports : onChain.provisioningFeeRaw;
      const recovered = split ? (isSol ? split.solRecoveredLamports : split.splRecoveredRaw) : 0n;
      const missing = target > recovered ? target - recovered : 0n;
      withheld = missing < net ? missing : net;
    }
    const notes = [
      "Fees are taken when the vault is swept to the seller; this quotes one payment swept on its own.",
      tier === "sovereign"
        ? "The seller activated its own vault: the discounted (sovereign) rate applies and nothing is withheld."
        : tier === "not_activated"
          ? "The vault does not exist yet: the facilitator provisions it at the first large enough payment and " +
            "recovers the setup cost from revenue. Activate it with POST /sellers/provision-tx for the sovereign rate."
          : "The facilitator provisioned this vault: the standard rate applies until the setup cost is recovered.",
    ];
    return {
      scheme: "exact",
      ...common,
      tier,
      feeBps,
      minFeeAmount: minimum.toString(),
      protocolFee: protocolFee.toString(),
      oracleFee: "0",
      provisioningRecoveryWithheld: withheld.toString(),
      sellerNets: (net - withheld).toString(),
      notes,
    };
  },
};
