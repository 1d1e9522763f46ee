import * as v from "valibot";
import { requireUniversalSettle } from "../platform/config/rail-switches";
import type { Address } from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { badRequest, FacilitatorError, refused, type ErrorReason } from "../platform/errors/catalogue";
import { RAIL_SWITCH_REASONS } from "../platform/config/rail-switches";
import { PAYMENT_MINT_REASONS } from "../chain/buyer-source";
import { UPTO_MINT_SCREEN_REASONS } from "./upto/mint-screen";
import { fetchAccounts } from "../chain/accounts";
import { decodeSplitVault } from "./exact/program/accounts";
import { getUniversalSettleFacts } from "./exact/program-facts";
import { vaultOf } from "./exact/vault-addresses";
import { refuseBelowExactMinimum } from "./exact/minimum-amount";
import { getSlaEscrowFacts } from "./sla-escrow/escrow-facts";
import { ESCROW_AMOUNT_REASONS, escrowAmountLimits, escrowAmountViolation } from "./sla-escrow/escrow-terms";
import { resolveSellerAsset, SellerAssetInput } from "../directory/sellers/seller-asset";
import { Base58Address, U64String } from "../x402/schemas";
import { quoteUpto } from "./upto/upto-fee-quote";

/**
 * `GET /fee-quote?wallet&asset&amount&scheme`: what a payment of `amount` costs the seller and what it nets, from the
 * on-chain Config (exact), the mint's Escrow (sla-escrow) or the payment-channels split (upto) and the seller's tier. Arithmetic as the programs do it:
 * fee = min(max(floor(amount × bps / 10,000), minimum fee), amount).
 */
/**
 * What a quote can refuse: the exact minimum and the escrow's amount limits (the amounts /verify would refuse), a
 * switched-off vault rail, an escrow not set up for the mint (501), and the upto mint rules of the deposit builder.
 */
export const FEE_QUOTE_REASONS = [
  "invalid_exact_svm_payload_amount_below_minimum",
  ...RAIL_SWITCH_REASONS,
  "not_implemented",
  ...PAYMENT_MINT_REASONS,
  ...UPTO_MINT_SCREEN_REASONS,
  ...ESCROW_AMOUNT_REASONS,
] as const satisfies readonly ErrorReason[];

export const FeeQuoteQuerySchema = v.object({
  wallet: Base58Address,
  asset: SellerAssetInput,
  amount: U64String,
  scheme: v.optional(v.picklist(["exact", "sla-escrow", "upto"], 'must be "exact", "sla-escrow" or "upto"'), "exact"),
});
export type FeeQuoteQuery = v.InferOutput<typeof FeeQuoteQuerySchema>;

export interface FeeQuote {
  scheme: "exact" | "sla-escrow" | "upto";
  network: string;
  wallet: string;
  asset: string;
  mint: string;
  amount: string;
  /** exact: sovereign (activated by the seller), standard, or not_activated (the vault does not exist yet). */
  tier: "sovereign" | "standard" | "not_activated" | "escrow" | "channel";
  feeBps: number;
  minFeeAmount: string;
  protocolFee: string;
  /** sla-escrow: the adjudicator's tip when an oracle renders the verdict (no floor); "0" for exact. */
  oracleFee: string;
  /** exact: setup cost still to be recovered from this seller's revenue (not-yet-provisioned vaults). */
  provisioningRecoveryWithheld: string;
  sellerNets: string;
  /** upto: lamports of rent the facilitator fronts per payment (channel + escrow token account), returned at close. */
  rentFrontedLamports?: string;
  notes: string[];
}

/** What every quote repeats from the request. */
type QuoteCommon = Pick<FeeQuote, "network" | "wallet" | "asset" | "mint" | "amount">;

const BPS_DENOMINATOR = 10_000n;
const bpsOf = (amount: bigint, bps: number) => (amount * BigInt(bps)) / BPS_DENOMINATOR;
const feeOf = (amount: bigint, bps: number, minimum: bigint) => {
  const proportional = bpsOf(amount, bps);
  const fee = proportional > minimum ? proportional : minimum;
  return fee < amount ? fee : amount;
};

export async function quoteFee(config: Config, query: FeeQuoteQuery): Promise<FeeQuote> {
  const asset = resolveSellerAsset(config, query.asset);
  const amount = BigInt(query.amount);
  if (amount === 0n) throw badRequest("amount: must be greater than 0");
  const common = { network: config.network, wallet: query.wallet, asset: asset.label, mint: asset.mint, amount: amount.toString() };
  if (query.scheme === "upto") return quoteUpto(config, common, query.wallet as Address, asset.mint, asset.isNativeSol);
  return query.scheme === "sla-escrow" ? quoteEscrow(config, common, asset.mint, amount) : quoteExact(config, common, query.wallet as Address, asset.isNativeSol, amount);
}

async function quoteExact(config: Config, common: QuoteCommon, wallet: Address, isSol: boolean, amount: bigint): Promise<FeeQuote> {
  await refuseBelowExactMinimum(config, "amount", amount, common.mint, isSol);
  const programId = requireUniversalSettle(config);
  const vault = await vaultOf(programId, wallet);
  const [facts, accounts] = await Promise.all([getUniversalSettleFacts(config), fetchAccounts(config, [vault])]);
  const onChain = facts.onChainConfig;
  if (!onChain) throw new FacilitatorError("FACILITATOR_UPSTREAM", "the UniversalSettle Config account could not be read; try again");
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
        ? "The vault does not exist yet: the facilitator provisions it at the first large enough payment and recovers the setup cost from revenue. Activate it with POST /sellers/provision-tx for the sovereign rate."
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
}

async function quoteEscrow(config: Config, common: QuoteCommon, mint: Address, amount: bigint): Promise<FeeQuote> {
  const facts = await getSlaEscrowFacts(config, mint);
  const escrow = facts.escrowAccount;
  if (!facts.bankAccount || !escrow) throw new FacilitatorError("NOT_IMPLEMENTED", `the SLA-Escrow rail is not configured for ${mint} on this cluster`);
  // An amount the escrow refuses is refused here as /verify and the builders refuse it, with the escrow's numbers.
  const violation = escrowAmountViolation(escrow, mint, amount);
  if (violation !== null) throw refused(violation.reason, `amount: amount ${amount} ${violation.rule}`, escrowAmountLimits(escrow));
  const protocolFee = feeOf(amount, escrow.feeBps, escrow.minFeeAmount);
  const oracleFee = bpsOf(amount, escrow.oracleFeeBps);
  return {
    scheme: "sla-escrow",
    ...common,
    tier: "escrow",
    feeBps: escrow.feeBps,
    minFeeAmount: escrow.minFeeAmount.toString(),
    protocolFee: protocolFee.toString(),
    oracleFee: oracleFee.toString(),
    provisioningRecoveryWithheld: "0",
    sellerNets: (amount - protocolFee).toString(),
    notes: [
      "The escrow fee is taken on the full amount when the payment is released to the seller (SLA-Escrow ABI §7.3); a refund returns the amount to the buyer without it.",
      `When an oracle renders a verdict (approval or rejection), its tip of ${escrow.oracleFeeBps} bps (oracleFee) is paid from the escrowed amount on the release or refund: sellerNets less oracleFee then.`,
    ],
  };
}
