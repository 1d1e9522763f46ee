import { type Address, type Blockhash, isOffCurveAddress } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import { BLOCKHASH_LIFETIME_SECONDS, getLatestBlockhash } from "../../chain/blockhash";
import { assetLabel, randomMemoNonce, readPaymentMint, sourceAtaCandidates } from "../../chain/buyer-source";
import { rpcCall } from "../../chain/rpc";
import { checkTokenSource, formatUnits } from "../../chain/source-funds";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { UnsignedTransactionFields } from "../../chain/unsigned-transaction";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { badRequest, refused } from "../../platform/errors/catalogue";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { foreignNetworkMessage } from "../../x402/network-check";
import {
  Base58Address,
  type PaymentRequirements,
  PaymentRequirementsSchema,
  ResourceInfoSchema,
  U64_MAX,
} from "../../x402/schemas";
import {
  buildUptoDepositTransaction,
  channelSaltAtFirstBump,
  UPTO_OPEN_COMPUTE_UNIT_LIMIT,
} from "./build-deposit-transaction";
import { channelTermsOf } from "./channel-terms";
import { uptoBelowMinimumMessage, uptoMinimumCeilingRaw, uptoMintScreen } from "./mint-screen";
import { payoutAccountProblem, unpayablePayToMessage } from "./payout-account";

/**
 * `POST /build-upto-deposit-tx`: the unsigned channel open an `upto` buyer signs (the deposit of the ceiling), with
 * the payment payload the official client would send already filled in around it, so a buyer needs no Solana SDK.
 * Chain access runs in parallel: one batched account read (mint, the treasury's, payTo's and the buyer's candidate
 * token accounts), one
 * getLatestBlockhash and one finalized getSlot, each skipped when the requirement already carries the hint the
 * official server adds (`extra.recentBlockhash` / `extra.recentSlot`), exactly as the official client skips them.
 */

export const BuildUptoDepositRequestSchema = v.looseObject({
  payer: Base58Address,
  accepted: PaymentRequirementsSchema,
  resource: v.optional(ResourceInfoSchema),
  skipSourceBalanceCheck: v.optional(v.boolean("must be true or false"), false),
});
export type BuildUptoDepositRequest = v.InferOutput<typeof BuildUptoDepositRequestSchema>;

/** The official client's `UptoSvmPayload` (x402 scheme_upto_svm.md), with `openTransaction` still to be signed. */
export interface UptoDepositPayload {
  channelId: Address;
  deposit: string;
  expiresAt: number;
  from: Address;
  maxAmount: string;
  nonce: string;
  openSlot: string;
  openTransaction: string;
  authorizedSigner: Address;
  validAfter: number;
}

export interface UptoDepositBuildResponse extends UnsignedTransactionFields {
  verifyBodyTemplate: {
    x402Version: 2;
    paymentPayload: { x402Version: 2; resource?: unknown; accepted: PaymentRequirements; payload: UptoDepositPayload };
    paymentRequirements: PaymentRequirements;
  };
  assetKind: "spl-token" | "token-2022";
  channelId: Address;
  /** The channel's escrow token account, where the deposit waits for the claim. */
  escrowTokenAccount: Address;
  deposit: string;
  gracePeriodSeconds: number;
  openSlot: string;
  programId: Address;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: string;
  notes: string[];
}

const U32_MAX = 0xffff_ffff;

/**
 * What the builder takes from `accepted.extra`, checked (the official client's resolveUptoSvmPaymentChannelConfig and
 * hints).
 */
interface UptoChannelTerms {
  receiverAuthorizer: Address;
  withdrawDelaySeconds: number;
  tokenProgramHint: Address | null;
  blockhashHint: { blockhash: Blockhash; lastValidBlockHeight: bigint } | null;
  slotHint: bigint | null;
  memo: string | null;
  validAfter: number | null;
}

export async function buildUptoDeposit(
  config: Config,
  request: BuildUptoDepositRequest,
): Promise<UptoDepositBuildResponse> {
  const { payer, accepted } = request;
  const deposit = BigInt(accepted.amount);
  const terms = checkRequirements(config, accepted, payer, deposit);
  const asset = accepted.asset;
  const checkSource = !request.skipSourceBalanceCheck;

  const [candidates, treasuries, payToAccounts] = await Promise.all([
    checkSource ? sourceAtaCandidates(payer, asset) : null,
    sourceAtaCandidates(config.upto.treasuryOwner, asset),
    sourceAtaCandidates(accepted.payTo, asset),
  ]);
  const [accounts, latest, finalizedSlot] = await Promise.all([
    fetchAccounts(config, [
      asset,
      treasuries.token,
      treasuries.token2022,
      payToAccounts.token,
      payToAccounts.token2022,
      ...(candidates ? [candidates.token, candidates.token2022] : []),
    ]),
    terms.blockhashHint ?? getLatestBlockhash(config),
    terms.slotHint ?? rpcCall<number>(config, "getSlot", [{ commitment: "finalized" }]).then(BigInt),
  ]);
  const mint = readPaymentMint(accounts.get(asset) ?? null, asset, uptoMintScreen(config));
  const minimum = uptoMinimumCeilingRaw(config, mint);
  if (deposit < minimum) {
    throw refused(
      "invalid_upto_svm_payload_amount_below_minimum",
      `accepted.amount: ${uptoBelowMinimumMessage(deposit, minimum, asset)}`,
      { minimumAmount: minimum.toString() },
    );
  }
  const tokenProgram = mint.tokenProgram;
  if (terms.tokenProgramHint !== null && terms.tokenProgramHint !== tokenProgram) {
    throw badRequest(
      `accepted.extra.tokenProgram: ${terms.tokenProgramHint} is not the token program of ` +
        `mint ${asset} (${tokenProgram})`,
    );
  }
  const treasury = tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? treasuries.token2022 : treasuries.token;
  if (!accounts.get(treasury)) {
    throw badRequest(
      `accepted.asset: the payment-channels treasury token ` +
        `account ${treasury} for ${asset} does not exist, so a channel could never be closed; this asset cannot be ` +
        `used for upto here`,
    );
  }
  const payToAccount = tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? payToAccounts.token2022 : payToAccounts.token;
  const payout = payoutAccountProblem(accounts.get(payToAccount) ?? null, {
    owner: accepted.payTo,
    mint: asset,
    tokenProgram,
  });
  if (payout) {
    throw refused(
      "invalid_upto_svm_payout_account_unusable",
      `accepted.payTo: ${unpayablePayToMessage(accepted.payTo, payToAccount, asset, payout)}`,
      { field: "accepted.payTo" },
    );
  }
  const label = assetLabel(config, asset);
  if (checkSource) {
    const [source] = await findAssociatedTokenPda({ owner: payer, mint: asset, tokenProgram });
    checkTokenSource({
      account: accounts.get(source) ?? null,
      sourceAta: source,
      tokenProgram,
      amount: deposit,
      decimals: mint.decimals,
      label,
    });
  }

  const computeUnitLimit = Math.min(UPTO_OPEN_COMPUTE_UNIT_LIMIT, config.compute.maxUnitLimit);
  const { recommendedUnitPriceMicroLamports, maxUnitPriceMicroLamports } = config.compute;
  const computeUnitPriceMicroLamports =
    recommendedUnitPriceMicroLamports < maxUnitPriceMicroLamports
      ? recommendedUnitPriceMicroLamports
      : maxUnitPriceMicroLamports;
  const feePayer = config.feePayer.address;
  const programId = config.programs.paymentChannels;
  const openSlot = finalizedSlot;
  const salt = await channelSaltAtFirstBump(
    { payer, payee: feePayer, mint: asset, authorizedSigner: terms.receiverAuthorizer, openSlot },
    programId,
    tokenProgram,
  );
  const built = await buildUptoDepositTransaction({
    programId,
    feePayer,
    payer,
    mint: asset,
    tokenProgram,
    authorizedSigner: terms.receiverAuthorizer,
    payTo: accepted.payTo,
    deposit,
    gracePeriodSeconds: terms.withdrawDelaySeconds,
    openSlot,
    salt,
    computeUnitLimit,
    computeUnitPriceMicroLamports,
    blockhash: latest,
    memo: terms.memo ?? randomMemoNonce(),
  });

  const now = Math.floor(Date.now() / 1000);
  const payload: UptoDepositPayload = {
    channelId: built.channelId,
    deposit: deposit.toString(),
    expiresAt: now + accepted.maxTimeoutSeconds,
    from: payer,
    maxAmount: deposit.toString(),
    nonce: salt.toString(),
    openSlot: openSlot.toString(),
    openTransaction: built.transaction,
    authorizedSigner: terms.receiverAuthorizer,
    validAfter: terms.validAfter ?? now,
  };
  const notes = [
    `Sign as ${payer} (signature index ${built.payerSignatureIndex}), put the signed base64 transaction into ` +
      "verifyBodyTemplate.paymentPayload.payload.openTransaction and send verifyBodyTemplate.paymentPayload to the " +
      "seller " +
      `(header PAYMENT-SIGNATURE). The fee ` +
      `payer ${feePayer} signs at settlement; leave its signature slot (index 0) empty.`,
    `The blockhash is valid for ` +
      `about ${BLOCKHASH_LIFETIME_SECONDS} seconds and the open slot for 1,500 slots: sign and pay promptly; ` +
      `otherwise build again.`,
    `Opens payment ` +
      `channel ${built.channelId} with a deposit ` +
      `of ${deposit} raw units (${formatUnits(deposit, mint.decimals)} ${label}), ` +
      `the most the seller can charge, moved ` +
      `from ${built.payerTokenAccount} into the channel's escrow ${built.channelTokenAccount}. ` +
      `After the request the seller claims what it used (paid ` +
      `to ${accepted.payTo}) and the rest returns to ${payer}; ` +
      `if nothing is claimed, the deposit returns after the grace period of ${terms.withdrawDelaySeconds} s.`,
    `The facilitator pays the network fee and the rent of the channel and its escrow account, and gets the rent back ` +
      `when the channel closes.`,
  ];
  if (computeUnitLimit < UPTO_OPEN_COMPUTE_UNIT_LIMIT) {
    notes.push(
      `The compute unit limit is capped at this deployment's maximum ` +
        `of ${computeUnitLimit} (the official client's is ${UPTO_OPEN_COMPUTE_UNIT_LIMIT}).`,
    );
  }
  if (!checkSource)
    notes.push("The payer's balance was not checked (skipSourceBalanceCheck): the deposit fails if funds are short.");

  const wireAccepted: PaymentRequirements = { ...accepted, scheme: "upto" };
  return {
    x402Version: 2,
    transaction: built.transaction,
    verifyBodyTemplate: {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        ...(request.resource ? { resource: request.resource } : {}),
        accepted: wireAccepted,
        payload,
      },
      paymentRequirements: wireAccepted,
    },
    payerSignatureIndex: built.payerSignatureIndex,
    recentBlockhash: latest.blockhash,
    recentBlockhashExpiresAt: now + BLOCKHASH_LIFETIME_SECONDS,
    feePayer,
    payer,
    signerPubkeys: built.signerPubkeys,
    assetKind: tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? "token-2022" : "spl-token",
    channelId: built.channelId,
    escrowTokenAccount: built.channelTokenAccount,
    deposit: deposit.toString(),
    gracePeriodSeconds: terms.withdrawDelaySeconds,
    openSlot: openSlot.toString(),
    programId,
    computeUnitLimit,
    computeUnitPriceMicroLamports: computeUnitPriceMicroLamports.toString(),
    notes,
  };
}

/**
 * Everything decidable from the request alone, before any chain read: the line's channel terms are read by the rail's
 * own channelTermsOf (fee payer, voucher key, grace-period bounds), so the builder refuses exactly what verify would.
 */
function checkRequirements(
  config: Config,
  accepted: PaymentRequirements,
  payer: Address,
  deposit: bigint,
): UptoChannelTerms {
  if (accepted.scheme !== "upto")
    throw refused("unsupported_scheme", `accepted.scheme: must be "upto" for this builder, got "${accepted.scheme}"`);
  const foreign = foreignNetworkMessage(config, "accepted.network", accepted.network);
  if (foreign !== null) throw refused("invalid_network", foreign);
  if (accepted.asset === NATIVE_SOL_ALLOWLIST_ADDRESS)
    throw refused(
      "asset_not_allowed",
      "accepted.asset: upto pays SPL tokens through a payment channel; native SOL is not an upto asset",
    );
  const notAllowed = assetNotAllowedMessage(config, accepted.asset);
  if (notAllowed !== null) throw refused("asset_not_allowed", notAllowed);
  if (deposit === 0n) throw badRequest("accepted.amount: the ceiling must be greater than 0");
  const lifetime = config.upto.maxChannelLifetimeSeconds;
  if (accepted.maxTimeoutSeconds > lifetime)
    throw badRequest(`accepted.maxTimeoutSeconds: an upto payment may run at most ${lifetime} s here (see /supported)`);

  const terms = channelTermsOf(config, accepted, payer);
  if ("ok" in terms) throw refused(terms.reason, `accepted.${terms.message}`);
  if (isOffCurveAddress(terms.receiverAuthorizer))
    throw badRequest(
      `accepted.extra.receiverAuthorizer: ${terms.receiverAuthorizer} is off the ed25519 curve and cannot sign ` +
        `vouchers`,
    );
  if (terms.withdrawDelay > U32_MAX)
    throw badRequest("accepted.extra.withdrawDelay: must fit the channel's u32 grace period");
  if (accepted.payTo === config.feePayer.address)
    throw badRequest("accepted.payTo: the facilitator's fee payer cannot be the seller");
  if (payer === config.feePayer.address) throw badRequest("payer: the facilitator's fee payer cannot be the buyer");
  if (isOffCurveAddress(payer))
    throw badRequest(`payer: ${payer} is off the ed25519 curve (a PDA) and cannot sign; use a wallet address`);

  const extra = accepted.extra;
  return {
    receiverAuthorizer: terms.receiverAuthorizer,
    withdrawDelaySeconds: terms.withdrawDelay,
    tokenProgramHint: tokenProgramHint(terms.tokenProgramHint),
    blockhashHint: blockhashHint(extra.recentBlockhash, extra.lastValidBlockHeight),
    slotHint: slotHint(extra.recentSlot),
    memo: memoOf(terms.memo),
    validAfter:
      typeof extra.validAfter === "number" && Number.isSafeInteger(extra.validAfter) ? extra.validAfter : null,
  };
}

function tokenProgramHint(value: Address | undefined): Address | null {
  if (value === undefined) return null;
  if (value === TOKEN_PROGRAM_ADDRESS) return TOKEN_PROGRAM_ADDRESS;
  if (value === TOKEN_2022_PROGRAM_ADDRESS) return TOKEN_2022_PROGRAM_ADDRESS;
  throw badRequest(`accepted.extra.tokenProgram: must be ${TOKEN_PROGRAM_ADDRESS} or ${TOKEN_2022_PROGRAM_ADDRESS}`);
}

/** The official server's per-request blockhash hint; ignored when malformed, as the official client ignores it. */
function blockhashHint(blockhash: unknown, lastValid: unknown): UptoChannelTerms["blockhashHint"] {
  if (!v.is(Base58Address, blockhash)) return null;
  const height =
    typeof lastValid === "string" && /^\d{1,20}$/.test(lastValid)
      ? BigInt(lastValid)
      : typeof lastValid === "number" && Number.isSafeInteger(lastValid) && lastValid >= 0
        ? BigInt(lastValid)
        : 0n;
  return { blockhash: blockhash as unknown as Blockhash, lastValidBlockHeight: height };
}

/** The official server's `extra.recentSlot`: the verifier checks the open slot against it, so the open must use it. */
function slotHint(value: unknown): bigint | null {
  const slot =
    typeof value === "string" && /^\d{1,20}$/.test(value)
      ? BigInt(value)
      : typeof value === "number" && Number.isSafeInteger(value) && value >= 0
        ? BigInt(value)
        : null;
  return slot !== null && slot <= U64_MAX ? slot : null;
}

const MAX_MEMO_BYTES = 256;

function memoOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (new TextEncoder().encode(value).length > MAX_MEMO_BYTES)
    throw badRequest(`accepted.extra.memo: at most ${MAX_MEMO_BYTES} bytes`);
  return value;
}
