import { type Address, createNoopSigner, isOffCurveAddress } from "@solana/kit";
import * as v from "valibot";
import { BLOCKHASH_LIFETIME_SECONDS } from "../../chain/blockhash";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { compileUnsignedTransaction, type UnsignedTransactionFields } from "../../chain/unsigned-transaction";
import type { Config } from "../../platform/config/load-config";
import { badRequest, FacilitatorError, refused } from "../../platform/errors/catalogue";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { Base58Address } from "../../x402/schemas";
import {
  escrowFundComputeBudget,
  escrowFundingAccounts,
  freshPaymentAccounts,
  Hash32Hex,
  hexBytes,
} from "./build-payment";
import { getSlaEscrowFacts } from "./escrow-facts";
import {
  checkFundingLimits,
  escrowAmountLimits,
  type FundingTerms,
  type FundingViolation,
  isEscrowConfigured,
  notConfiguredMessage,
} from "./escrow-terms";
import { type FundPaymentV2InstructionInput, getFundPaymentV2Instruction } from "./program/instructions";
import { paymentUidToHex } from "./program/payment-uid";
import { NATIVE_SOL_ESCROW_MINT } from "./program/pda";

/**
 * `POST /build-sla-escrow-payment-v2-tx` (docs/facilitator-spec.md §4.2): an unsigned FundPaymentV2 (instruction 8)
 * that also creates the payment's PaymentExt (adjudicator, arbitration window, mutual actions). The body names the
 * terms directly (docs/wire-notes.md "Builders"), not an `accepts[]` line. Signed by the buyer, who pays the fee unless
 * `feePayer` names another wallet. Chain access: the cached escrow facts, then one batched read (Payment PDA, mint)
 * next to getLatestBlockhash. Whatever the program or this facilitator's escrow would refuse is a 400 first: the
 * escrow's limits are escrow-terms.ts's `checkFundingLimits`, the same rules an `accepts[]` line is held to.
 */

const I64_MAX = 0x7fff_ffff_ffff_ffffn;
const U64_MAX = 0xffff_ffff_ffff_ffffn;
/**
 * A whole number of seconds or base units given as a JSON number or a decimal string. A JSON number must be a safe
 * integer (≤ 2^53 − 1): larger ones have already lost digits in JSON.parse (and `1e308` is no decimal string);
 * larger values come as strings.
 */
export const wholeNumber = (max: bigint, what: string) =>
  v.pipe(
    v.union(
      [
        v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.transform(String)),
        v.pipe(v.string(), v.regex(/^\d{1,20}$/)),
      ],
      `must be a non-negative whole number ` +
        `(${what}): a JSON number up to ${Number.MAX_SAFE_INTEGER} or a decimal string`,
    ),
    v.transform((digits: string) => BigInt(digits)),
    v.check((n: bigint) => n <= max, `must be at most ${max}`),
  );

export const BuildEscrowPaymentV2RequestSchema = v.object({
  buyer: Base58Address,
  seller: Base58Address,
  mint: Base58Address,
  amount: v.pipe(
    wholeNumber(U64_MAX, "base units"),
    v.check((n: bigint) => n >= 1n, "must be greater than 0"),
  ),
  ttlSeconds: wholeNumber(I64_MAX, "seconds"),
  slaHash: Hash32Hex,
  oracleAuthority: Base58Address,
  paymentUid: v.optional(
    v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(64, "must be at most 64 characters")),
  ),
  paymentUidHex: v.optional(Hash32Hex),
  tokenProgram: v.optional(
    v.picklist([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS], "must be the SPL Token or Token-2022 program"),
  ),
  /** 0 (or absent: optional in pr402's BuildFundPaymentV2TxRequest) = the program's Config default. */
  closureDelayOverride: v.optional(wholeNumber(I64_MAX, "seconds, 0 = default"), "0"),
  refundCooldownOverride: v.optional(wholeNumber(I64_MAX, "seconds, 0 = default"), "0"),
  deliveryCutoffOverride: v.optional(wholeNumber(I64_MAX, "seconds, 0 = default"), "0"),
  /** Optional in pr402 (public/openapi.json); absent = 0, no arbitration window beyond expiry. */
  arbitrationWindowSeconds: v.optional(wholeNumber(I64_MAX, "seconds"), "0"),
  minOracleTip: v.optional(wholeNumber(U64_MAX, "base units"), "0"),
  feePayer: v.optional(Base58Address),
});
export type BuildEscrowPaymentV2Request = v.InferOutput<typeof BuildEscrowPaymentV2RequestSchema>;

export interface EscrowPaymentV2BuildResponse extends UnsignedTransactionFields {
  payTo: Address;
  paymentUid: string;
  paymentUidHex: string;
  paymentPda: Address;
  paymentExtPda: Address;
  programId: Address;
  notes: string[];
}

export async function buildEscrowPaymentV2(
  config: Config,
  request: BuildEscrowPaymentV2Request,
): Promise<EscrowPaymentV2BuildResponse> {
  const { buyer, seller, mint, amount, ttlSeconds } = request;
  const notAllowed = assetNotAllowedMessage(config, mint);
  if (notAllowed !== null) throw badRequest(notAllowed);
  if (buyer === seller) throw badRequest("buyer: the buyer cannot be the seller of the same escrow payment");
  if (buyer === config.feePayer.address) throw badRequest("buyer: the facilitator's fee payer cannot be the buyer");
  if (isOffCurveAddress(buyer))
    throw badRequest(`buyer: ${buyer} is off the ed25519 curve (a PDA) and cannot sign; use a wallet address`);
  if (!config.slaEscrow.oracleAuthorities.includes(request.oracleAuthority)) {
    throw badRequest(
      `oracleAuthority: ${request.oracleAuthority} is not one of this facilitator's oracle authorities ` +
        `(${config.slaEscrow.oracleAuthorities.join(", ") || "none configured"})`,
    );
  }

  const facts = await getSlaEscrowFacts(config, mint);
  if (!isEscrowConfigured(facts)) throw new FacilitatorError("NOT_IMPLEMENTED", notConfiguredMessage(facts, mint));
  const { programId, bank, configAddress, escrow } = facts;
  const deliveryCutoffSeconds =
    request.deliveryCutoffOverride > 0n ? request.deliveryCutoffOverride : facts.escrowConfig.deliveryCutoffSeconds;
  const terms = { seller, mint, amount, ttlSeconds, deliveryCutoffSeconds };
  const violation = checkFundingLimits(facts, config, terms);
  // The reason /verify gives a line with the same terms; an amount refusal carries the escrow's limits.
  if (violation !== null)
    throw refused(
      violation.reason,
      bodyMessage(violation, terms),
      violation.term === "amount" ? escrowAmountLimits(facts.escrowAccount) : undefined,
    );

  const isSol = mint === NATIVE_SOL_ESCROW_MINT;
  const { uid, payment, paymentExt, accounts, blockhash } = await freshPaymentAccounts(config, {
    programId,
    bank,
    mint,
    isSol,
    request,
  });

  const common = {
    programId,
    bank,
    config: configAddress,
    escrow,
    payment,
    paymentExt,
    buyer: createNoopSigner(buyer),
    seller,
    oracleAuthority: request.oracleAuthority,
    paymentUid: uid.bytes,
    slaHash: hexBytes(request.slaHash),
    amount,
    ttlSeconds,
    closureDelayOverrideSeconds: request.closureDelayOverride,
    refundCooldownOverrideSeconds: request.refundCooldownOverride,
    deliveryCutoffOverrideSeconds: request.deliveryCutoffOverride,
    arbitrationWindowSeconds: request.arbitrationWindowSeconds,
    minOracleTip: request.minOracleTip,
  };
  const funding = await escrowFundingAccounts({
    programId,
    bank,
    escrow,
    mint,
    buyer,
    isSol,
    mintAccount: accounts.get(mint) ?? null,
  });
  if (funding.kind === "spl" && request.tokenProgram !== undefined && request.tokenProgram !== funding.tokenProgram) {
    throw badRequest(`tokenProgram: mint ${mint} belongs to ${funding.tokenProgram}, not ${request.tokenProgram}`);
  }
  const fund: FundPaymentV2InstructionInput = { ...common, ...funding };

  const feePayer = request.feePayer ?? buyer;
  const built = compileUnsignedTransaction({
    feePayer,
    blockhash,
    instructions: [...escrowFundComputeBudget(config), getFundPaymentV2Instruction(fund)],
  });
  const payerSignatureIndex = built.signerPubkeys.indexOf(buyer);
  return {
    x402Version: 2,
    transaction: built.transaction,
    payerSignatureIndex,
    recentBlockhash: blockhash.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    feePayer,
    payer: buyer,
    signerPubkeys: built.signerPubkeys,
    payTo: escrow,
    // Required in pr402's BuildFundPaymentV2TxResponse; like pr402, the hex form when the uid was given as hex.
    paymentUid: uid.paymentUid ?? paymentUidToHex(uid.bytes),
    paymentUidHex: paymentUidToHex(uid.bytes),
    paymentPda: payment,
    paymentExtPda: paymentExt,
    programId,
    notes: [
      `Sign ` +
        `as ${buyer} (signature ` +
        `index ${payerSignatureIndex}); ${
          feePayer === buyer ? "you are the fee " + "payer" : `${feePayer} pays the fee and signs too`
        }.`,
      `FundPaymentV2 ` +
        `holds ${amount} raw units in the ` +
        `escrow ${escrow} for ${ttlSeconds} s and creates the ` +
        `PaymentExt ${paymentExt}: the ` +
        `oracle ${request.oracleAuthority} is the first adjudicator; disputes stay open until expiry ` +
        `+ ${request.arbitrationWindowSeconds} s.`,
      `The blockhash is valid for about ${BLOCKHASH_LIFETIME_SECONDS} seconds: sign and send promptly.`,
    ],
  };
}

/** A violation in the words of this builder's body: `field: …`, as its other 400s. */
function bodyMessage({ term, rule }: FundingViolation, terms: FundingTerms): string {
  switch (term) {
    case "seller":
      return `seller: ${rule}`;
    case "escrow":
      return `mint: the escrow for ${terms.mint} ${rule}`;
    case "amount":
      return `amount: ${terms.amount} ${rule}`;
    case "ttl":
      return `ttlSeconds: ${terms.ttlSeconds} ${rule}`;
  }
}
