import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { fetchAccounts } from "../../chain/accounts";
import { PAYMENT_MINT_REASONS, readPaymentMint, sourceAtaCandidates } from "../../chain/buyer-source";
import type { Config } from "../../platform/config/load-config";
import type { ErrorReason } from "../../platform/errors/catalogue";
import { badRequest } from "../../platform/errors/catalogue";
import type { FeeQuote, FeeQuoteRequest, RailFeeQuote } from "../fee-quote";
import { UPTO_CHANNEL_RENT_LAMPORTS, uptoOpenRentLamports } from "./channel-rent-caps";
import { UPTO_MINT_SCREEN_REASONS, uptoMintScreen } from "./mint-screen";

/**
 * The `upto` quote: the payment-channels program takes no fee and the official client commits one split of 10,000 bps
 * to payTo, so the seller's share of a claim is floor(claimed × 10,000 / 10,000) = the claimed amount, with no rounding
 * dust (docs/payment-channels.md "Distribute"). What can still cost the seller everything: a missing token account at
 * claim time, whose share the program redirects to its treasury. One batched read (mint + both candidate accounts).
 */
export const uptoFeeQuote: RailFeeQuote = {
  // The deposit builder's mint rules: the quote refuses what the channel open would.
  reasons: [...PAYMENT_MINT_REASONS, ...UPTO_MINT_SCREEN_REASONS] satisfies readonly ErrorReason[],
  quote: (config, { common, wallet, mint, isNativeSol }) => quoteUpto(config, common, wallet, mint, isNativeSol),
};

async function quoteUpto(
  config: Config,
  common: FeeQuoteRequest["common"],
  wallet: Address,
  mint: Address,
  isNativeSol: boolean,
): Promise<FeeQuote> {
  if (isNativeSol)
    throw badRequest("asset: upto pays SPL tokens through a payment channel; native SOL is not an upto asset");
  const candidates = await sourceAtaCandidates(wallet, mint);
  const accounts = await fetchAccounts(config, [mint, candidates.token, candidates.token2022]);
  const { tokenProgram } = readPaymentMint(accounts.get(mint) ?? null, mint, uptoMintScreen(config));
  const escrowRent = uptoOpenRentLamports(tokenProgram) - UPTO_CHANNEL_RENT_LAMPORTS;
  const [sellerTokenAccount] = await findAssociatedTokenPda({ owner: wallet, mint, tokenProgram });
  const account = accounts.get(sellerTokenAccount) ?? null;
  const receives = account !== null && account.owner === tokenProgram;
  const notes = [
    "amount is what the seller claims after the request (at most the ceiling the buyer deposited); the rest of the " +
      "deposit returns to the buyer.",
    "The payment-channels program takes no protocol fee and this facilitator adds none: the whole claimed amount " +
      "goes to payTo.",
    `The facilitator pays the network fees and fronts the rent of the channel ` +
      `(${UPTO_CHANNEL_RENT_LAMPORTS} lamports) and of its escrow token account ` +
      `(${escrowRent} lamports); the rent returns to it when the channel closes.`,
  ];
  if (!receives) {
    notes.push(
      `The seller has no token account for this mint yet ` +
        `(${sellerTokenAccount}): the program pays a share whose account is missing to its treasury, ` +
        "so create it before the first claim.",
    );
  }
  return {
    scheme: "upto",
    ...common,
    tier: "channel",
    feeBps: 0,
    minFeeAmount: "0",
    protocolFee: "0",
    oracleFee: "0",
    provisioningRecoveryWithheld: "0",
    sellerNets: receives ? common.amount : "0",
    rentFrontedLamports: uptoOpenRentLamports(tokenProgram).toString(),
    notes,
  };
}
