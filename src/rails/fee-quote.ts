import type { Address } from "@solana/kit";
import * as v from "valibot";
import { resolveSellerAsset, SellerAssetInput } from "../directory/sellers/seller-asset";
import type { Config } from "../platform/config/load-config";
import { badRequest, type ErrorReason } from "../platform/errors/catalogue";
import { Base58Address, U64String } from "../x402/schemas";
import { quotedSchemeList, type SchemeName } from "../x402/scheme-names";

/**
 * `GET /fee-quote?wallet&asset&amount&scheme`: what a payment of `amount` costs the seller and what it nets. Each rail
 * quotes its own payments (`RailModule.quote`, from its program's on-chain settings and the seller's tier); this file
 * holds what they share: the query over the quoting rails, the answer's shape and the programs' fee arithmetic.
 */
export interface FeeQuote {
  scheme: SchemeName;
  network: string;
  wallet: string;
  asset: string;
  mint: string;
  amount: string;
  /** The seller's standing on the rail, in the rail's words (a vault's activation, an escrow, a channel). */
  tier: string;
  feeBps: number;
  minFeeAmount: string;
  protocolFee: string;
  /** The adjudicator's tip where an oracle renders a verdict (no floor); "0" on a rail without one. */
  oracleFee: string;
  /** Setup cost still to be recovered from this seller's revenue ("0" where nothing is fronted to recover). */
  provisioningRecoveryWithheld: string;
  sellerNets: string;
  /** Lamports of rent the facilitator fronts per payment and gets back later, where a rail fronts any. */
  rentFrontedLamports?: string;
  notes: string[];
}

/** What a rail's quote is asked: the request, its asset resolved, the amount checked non-zero. */
export interface FeeQuoteRequest {
  /** What every quote repeats from the request. */
  common: Pick<FeeQuote, "network" | "wallet" | "asset" | "mint" | "amount">;
  wallet: Address;
  mint: Address;
  isNativeSol: boolean;
  amount: bigint;
}

/** A rail's part of `/fee-quote`. */
export interface RailFeeQuote {
  /**
   * What this rail's quote can refuse (the amounts and mints its /verify would refuse): listed on the route in OpenAPI.
   */
  reasons: readonly ErrorReason[];
  quote(config: Config, request: FeeQuoteRequest): Promise<FeeQuote>;
}

const BPS_DENOMINATOR = 10_000n;

/** A rails list as the fee quote reads it (each rail's scheme and quote; `RailModule` has both). */
type QuotingRails = readonly { scheme: SchemeName; quote?: RailFeeQuote }[];

/** floor(amount × bps / 10,000), as the programs compute a proportional fee. */
export const bpsOf = (amount: bigint, bps: number) => (amount * BigInt(bps)) / BPS_DENOMINATOR;

/** fee = min(max(floor(amount × bps / 10,000), minimum fee), amount). */
export function feeOf(amount: bigint, bps: number, minimum: bigint): bigint {
  const proportional = bpsOf(amount, bps);
  const fee = proportional > minimum ? proportional : minimum;
  return fee < amount ? fee : amount;
}

/** The rails that quote, in registry order: the first is the default `scheme`. */
function quotingSchemes(rails: QuotingRails): [SchemeName, ...SchemeName[]] {
  const schemes = rails.filter((rail) => rail.quote).map((rail) => rail.scheme);
  if (schemes.length === 0) throw new Error("no rail quotes fees");
  return schemes as [SchemeName, ...SchemeName[]];
}

/** The `/fee-quote` query over `rails`' quotes. */
export function feeQuoteQuerySchemaOf(rails: QuotingRails) {
  const schemes = quotingSchemes(rails);
  return v.object({
    wallet: Base58Address,
    asset: SellerAssetInput,
    amount: U64String,
    scheme: v.optional(v.picklist(schemes, `must be ${quotedSchemeList(schemes)}`), schemes[0]),
  });
}
export type FeeQuoteQuery = v.InferOutput<ReturnType<typeof feeQuoteQuerySchemaOf>>;

/** Answers a parsed query with the quote of the rail it names. */
export async function quoteFeeAmong(rails: QuotingRails, config: Config, query: FeeQuoteQuery): Promise<FeeQuote> {
  const asset = resolveSellerAsset(config, query.asset);
  const amount = BigInt(query.amount);
  if (amount === 0n) throw badRequest("amount: must be greater than 0");
  const rail = rails.find((candidate) => candidate.scheme === query.scheme && candidate.quote);
  // The query's picklist admits only quoting rails.
  if (!rail?.quote) throw badRequest(`scheme: must be ${quotedSchemeList(quotingSchemes(rails))}`);
  const common = {
    network: config.network,
    wallet: query.wallet,
    asset: asset.label,
    mint: asset.mint,
    amount: amount.toString(),
  };
  return rail.quote.quote(config, {
    common,
    wallet: query.wallet as Address,
    mint: asset.mint,
    isNativeSol: asset.isNativeSol,
    amount,
  });
}

/** What `/fee-quote` can refuse over these rails: each quoting rail's reasons, once each. */
export function feeQuoteReasonsOf(rails: QuotingRails): readonly ErrorReason[] {
  return [...new Set(rails.flatMap((rail) => rail.quote?.reasons ?? []))];
}
