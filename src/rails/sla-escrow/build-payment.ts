import { type Address, createNoopSigner, type Instruction } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import { BLOCKHASH_LIFETIME_SECONDS, getLatestBlockhash } from "../../chain/blockhash";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "../../chain/compute-budget";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { compileUnsignedTransaction, type UnsignedTransactionFields } from "../../chain/unsigned-transaction";
import type { Config } from "../../platform/config/load-config";
import { badRequest, FacilitatorError, refused } from "../../platform/errors/catalogue";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { foreignNetworkMessage } from "../../x402/network-check";
import { Base58Address, PaymentRequirementsSchema, ResourceInfoSchema } from "../../x402/schemas";
import { bareScheme } from "../../x402/scheme-names";
import { type VerifyBodyTemplate, verifyBodyTemplate } from "../../x402/verify-body-template";
import { checkEscrowTerms } from "./escrow-terms";
import { type FundPaymentInstructionInput, getFundPaymentInstruction } from "./program/instructions";
import { parsePaymentUidHex, paymentUidFromString, paymentUidToHex, randomPaymentUid } from "./program/payment-uid";
import { findEscrowSolStoragePda, findPaymentExtPda, findPaymentPda } from "./program/pda";

/**
 * `POST /build-sla-escrow-payment-tx` (docs/facilitator-spec.md §4.2 rules 1-6, §2.4): an unsigned FundPayment for the
 * buyer. By default the buyer is the fee payer and the only signer. With `facilitatorPaysTransactionFees` (only when
 * the operator switch allows it) the facilitator is fee payer and co-signs at settle, like the exact rail. Chain
 * access: the cached escrow facts, then one batched read (mint, Payment PDA) next to getLatestBlockhash.
 */

/**
 * FundPayment measured at ~25k CU on the stand-in; the verifier's ceiling for sponsored funding is 80k
 * (docs/sla-escrow-abi.md "Verification").
 */
export const ESCROW_FUND_COMPUTE_UNIT_LIMIT = 80_000;
/** A plain SPL Token or Token-2022 mint account without extensions (docs/facilitator-spec.md §4.2 rule 5). */
const PLAIN_MINT_ACCOUNT_SIZE = 82;

export const Hash32Hex = v.pipe(
  v.string("must be a string"),
  v.regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (32 bytes)"),
);

export const BuildEscrowPaymentRequestSchema = v.looseObject({
  payer: Base58Address,
  accepted: PaymentRequirementsSchema,
  resource: v.optional(ResourceInfoSchema),
  slaHash: Hash32Hex,
  oracleAuthority: Base58Address,
  paymentUid: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.minLength(1, "must not be empty"),
      v.maxLength(64, "must be at most 64 characters"),
    ),
  ),
  paymentUidHex: v.optional(Hash32Hex),
  facilitatorPaysTransactionFees: v.optional(v.boolean("must be true or false"), false),
  /** Accepted as in pr402; this builder reads no balance (the program refuses a short one), so it changes nothing. */
  skipSourceBalanceCheck: v.optional(v.boolean("must be true or false")),
  /** Accepted as in pr402; native SOL escrows take SOL directly and wSOL is not an asset here, so nothing to wrap. */
  autoWrapSol: v.optional(v.boolean("must be true or false")),
});
export type BuildEscrowPaymentRequest = v.InferOutput<typeof BuildEscrowPaymentRequestSchema>;

export interface EscrowBuildResponse extends UnsignedTransactionFields {
  verifyBodyTemplate: VerifyBodyTemplate;
  slaFundTxNetworkFeePayer: "buyer" | "facilitator";
  payTo: Address;
  paymentUid?: string;
  paymentUidHex: string;
  paymentPda: Address;
  paymentExtPda: Address;
  programId: Address;
  notes: string[];
}

export async function buildEscrowPayment(
  config: Config,
  request: BuildEscrowPaymentRequest,
): Promise<EscrowBuildResponse> {
  const { payer, accepted } = request;
  if (bareScheme(accepted.scheme) !== "sla-escrow") {
    throw refused(
      "unsupported_scheme",
      `accepted.scheme: must be "sla-escrow" (or "v2:solana:sla-escrow") for this builder, got "${accepted.scheme}"`,
    );
  }
  const foreign = foreignNetworkMessage(config, "accepted.network", accepted.network);
  if (foreign !== null) throw refused("invalid_network", foreign);
  const notAllowed = assetNotAllowedMessage(config, accepted.asset);
  if (notAllowed !== null) throw refused("asset_not_allowed", notAllowed);
  const amount = BigInt(accepted.amount);
  if (amount === 0n) throw badRequest("accepted.amount: must be greater than 0");
  const sponsored = request.facilitatorPaysTransactionFees;
  if (sponsored && !config.slaEscrow.allowFacilitatorFeeSponsorship) {
    throw badRequest(
      "facilitatorPaysTransactionFees: this facilitator does not pay network fees for escrow funding " +
        "(operator switch SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP is off); omit it and pay the fee as the " +
        "buyer",
    );
  }
  if (accepted.extra.feePayer !== undefined && accepted.extra.feePayer !== config.feePayer.address) {
    throw badRequest(
      `accepted.extra.feePayer: ${String(accepted.extra.feePayer)} is not this facilitator's fee ` +
        `payer ${config.feePayer.address}`,
    );
  }

  const checked = await checkEscrowTerms(config, accepted, amount);
  if (!checked.ok) {
    if (checked.notConfigured)
      throw new FacilitatorError("NOT_IMPLEMENTED", checked.message, { reason: checked.reason });
    // The reason /verify would give the payment built from this line (e.g. invalid_sla_escrow_amount_below_minimum).
    throw refused(checked.reason, `accepted: ${checked.message}`, checked.amountLimits);
  }
  const { terms } = checked;
  if (!terms.oracleAuthorities.includes(request.oracleAuthority)) {
    throw badRequest(
      `oracleAuthority: ${request.oracleAuthority} is not one of this line's oracle authorities ` +
        `(${terms.oracleAuthorities.join(", ")})`,
    );
  }
  if (payer === terms.seller) throw badRequest("payer: the buyer cannot be the seller of the same escrow payment");

  const { programId, bank, configAddress, escrow } = terms.facts;
  const mint = accepted.asset as Address;
  const { uid, payment, paymentExt, accounts, blockhash } = await freshPaymentAccounts(config, {
    programId,
    bank,
    mint,
    isSol: terms.kind === "sol",
    request,
  });

  const common = {
    programId,
    bank,
    config: configAddress,
    escrow,
    payment,
    buyer: createNoopSigner(payer),
    seller: terms.seller,
    oracleAuthority: request.oracleAuthority,
    paymentUid: uid.bytes,
    slaHash: hexBytes(request.slaHash),
    amount,
    ttlSeconds: terms.ttlSeconds,
  };
  const fund: FundPaymentInstructionInput = {
    ...common,
    ...(await escrowFundingAccounts({
      programId,
      bank,
      escrow,
      mint,
      buyer: payer,
      isSol: terms.kind === "sol",
      mintAccount: accounts.get(mint) ?? null,
    })),
  };
  const instructions: Instruction[] = [...escrowFundComputeBudget(config), getFundPaymentInstruction(fund)];
  const feePayer = sponsored ? config.feePayer.address : payer;
  const built = compileUnsignedTransaction({ feePayer, blockhash, instructions });
  const payerSignatureIndex = built.signerPubkeys.indexOf(payer);

  return {
    x402Version: 2,
    transaction: built.transaction,
    verifyBodyTemplate: verifyBodyTemplate(accepted, "sla-escrow", built.transaction, request.resource),
    payerSignatureIndex,
    recentBlockhash: blockhash.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    feePayer,
    payer,
    signerPubkeys: built.signerPubkeys,
    slaFundTxNetworkFeePayer: sponsored ? "facilitator" : "buyer",
    payTo: escrow,
    ...(uid.paymentUid ? { paymentUid: uid.paymentUid } : {}),
    paymentUidHex: paymentUidToHex(uid.bytes),
    paymentPda: payment,
    paymentExtPda: paymentExt,
    programId,
    notes: [
      sponsored
        ? `Sign ` +
          `as ${payer} (signature ` +
          `index ${payerSignatureIndex}); the ` +
          `facilitator ${feePayer} signs as fee payer at settle: leave index 0 empty.`
        : `Sign ` +
          `as ${payer}: you are the fee payer and the only signer. Put the signed transaction into ` +
          `verifyBodyTemplate.paymentPayload.payload.transaction and send the template to the seller.`,
      `FundPayment ` +
        `holds ${amount} raw units in the ` +
        `escrow ${escrow} for ${terms.ttlSeconds} s; the ` +
        `seller ${terms.seller} must submit delivery before the cutoff, and the ` +
        `oracle ${request.oracleAuthority} or the buyer's approval decides the release.`,
      `The blockhash is valid for about ${BLOCKHASH_LIFETIME_SECONDS} seconds: sign and settle promptly.`,
    ],
  };
}

/** The SOL or SPL accounts of a FundPayment / FundPaymentV2 (SPL: plain mints only, rule 5). */
export async function escrowFundingAccounts(input: {
  programId: Address;
  bank: Address;
  escrow: Address;
  mint: Address;
  buyer: Address;
  isSol: boolean;
  mintAccount: { owner: Address; data: Uint8Array } | null;
}): Promise<
  | { kind: "sol"; solStorage: Address }
  | { kind: "spl"; mint: Address; escrowAta: Address; buyerAta: Address; tokenProgram: Address }
> {
  const { programId, bank, escrow, mint } = input;
  if (input.isSol) {
    const [solStorage] = await findEscrowSolStoragePda(programId, mint, bank, escrow);
    return { kind: "sol", solStorage };
  }
  const tokenProgram = plainMintTokenProgram(input.mintAccount, mint);
  const [[escrowAta], [buyerAta]] = await Promise.all([
    findAssociatedTokenPda({ owner: escrow, mint, tokenProgram }),
    findAssociatedTokenPda({ owner: input.buyer, mint, tokenProgram }),
  ]);
  return { kind: "spl", mint, escrowAta, buyerAta, tokenProgram };
}

/**
 * The compute budget of a funding transaction: the escrow limit (capped by the deployment) at the recommended price.
 */
export function escrowFundComputeBudget(config: Config): Instruction[] {
  const { recommendedUnitPriceMicroLamports, maxUnitPriceMicroLamports } = config.compute;
  const unitPrice =
    recommendedUnitPriceMicroLamports < maxUnitPriceMicroLamports
      ? recommendedUnitPriceMicroLamports
      : maxUnitPriceMicroLamports;
  return [
    getSetComputeUnitLimitInstruction(Math.min(ESCROW_FUND_COMPUTE_UNIT_LIMIT, config.compute.maxUnitLimit)),
    getSetComputeUnitPriceInstruction(unitPrice),
  ];
}

/**
 * The uid of a new funding, its Payment and PaymentExt PDAs, and one batched read (the payment, and the mint for
 * SPL) alongside the blockhash; a uid already taken on chain is refused.
 */
export async function freshPaymentAccounts(
  config: Config,
  input: {
    programId: Address;
    bank: Address;
    mint: Address;
    isSol: boolean;
    request: { paymentUid?: string; paymentUidHex?: string };
  },
) {
  const { programId, bank, mint } = input;
  const uid = resolvePaymentUid(input.request);
  const [[payment], [paymentExt]] = await Promise.all([
    findPaymentPda(programId, uid.bytes, bank),
    findPaymentExtPda(programId, uid.bytes, bank),
  ]);
  const [accounts, blockhash] = await Promise.all([
    fetchAccounts(config, input.isSol ? [payment] : [payment, mint]),
    getLatestBlockhash(config),
  ]);
  if (accounts.get(payment))
    throw badRequest(`paymentUid: a payment with uid ${paymentUidToHex(uid.bytes)} already exists; use a new uid`);
  return { uid, payment, paymentExt, accounts, blockhash };
}

/** `paymentUidHex`, else `paymentUid`, else a fresh random uid (returned in both forms). */
export function resolvePaymentUid(request: { paymentUid?: string; paymentUidHex?: string }): {
  bytes: Uint8Array;
  paymentUid?: string;
} {
  if (request.paymentUidHex !== undefined) {
    if (request.paymentUid !== undefined)
      throw badRequest("paymentUid: give either paymentUid or paymentUidHex, not both");
    return { bytes: parsePaymentUidHex(request.paymentUidHex.toLowerCase())! };
  }
  if (request.paymentUid !== undefined) {
    const bytes = paymentUidFromString(request.paymentUid);
    if (bytes === null) throw badRequest("paymentUid: must be ASCII (a UUID, for example)");
    return { bytes, paymentUid: request.paymentUid };
  }
  const generated = randomPaymentUid();
  return { bytes: generated.bytes, paymentUid: generated.paymentUid };
}

/** Rule 5: a legacy Token or Token-2022 mint of exactly 82 bytes (no extensions). Returns its token program. */
export function plainMintTokenProgram(account: { owner: Address; data: Uint8Array } | null, mint: Address): Address {
  if (!account) throw badRequest(`accepted.asset: mint ${mint} does not exist on this cluster`);
  if (account.owner !== TOKEN_PROGRAM_ADDRESS && account.owner !== TOKEN_2022_PROGRAM_ADDRESS) {
    throw badRequest(`accepted.asset: ${mint} is not an SPL Token or Token-2022 mint`);
  }
  if (account.data.length !== PLAIN_MINT_ACCOUNT_SIZE) {
    throw badRequest(
      `accepted.asset: ` +
        `mint ${mint} has extensions (${account.data.length} bytes); the escrow rail takes plain 82-byte mints only`,
    );
  }
  return account.owner;
}

export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}
