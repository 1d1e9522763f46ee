import { type Address, isOffCurveAddress } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import { BLOCKHASH_LIFETIME_SECONDS, getLatestBlockhash } from "../../chain/blockhash";
import { assetLabel, randomMemoNonce, readPaymentMint, sourceAtaCandidates } from "../../chain/buyer-source";
import { checkSolSource, checkTokenSource, formatUnits } from "../../chain/source-funds";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { UnsignedTransactionFields } from "../../chain/unsigned-transaction";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { railNotEnabled } from "../../platform/config/rail-switches";
import { badRequest, refused } from "../../platform/errors/catalogue";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { foreignNetworkMessage } from "../../x402/network-check";
import {
  Base58Address,
  type PaymentRequirements,
  PaymentRequirementsSchema,
  ResourceInfoSchema,
} from "../../x402/schemas";
import { bareScheme } from "../../x402/scheme-names";
import { type VerifyBodyTemplate, verifyBodyTemplate } from "../../x402/verify-body-template";
import { buildExactPaymentTransaction, EXACT_COMPUTE_UNIT_LIMIT, type ExactTransfer } from "./build-transaction";
import { refuseBelowExactMinimum } from "./minimum-amount";
import { exactMintScreen } from "./payment-mint";
import { findVaultPda, findVaultSolStoragePda } from "./program/pda";
import { missingRecipientAccount } from "./recipient-token-account";
import { requireUniversalSettle } from "./universal-settle-program";
import { resolveMerchantWallet } from "./vault-seller";

/**
 * `POST /build-exact-payment-tx` (docs/facilitator-spec.md §4.2, §2.4): an unsigned `exact` payment for the buyer to
 * sign, with the verify/settle body already filled in around it. Chain access is one batched account read (mint + buyer
 * source account + a wallet payTo's token account, or the buyer wallet for SOL) running in parallel with one
 * getLatestBlockhash.
 */

export const BuildExactPaymentRequestSchema = v.looseObject({
  payer: Base58Address,
  accepted: PaymentRequirementsSchema,
  resource: v.optional(ResourceInfoSchema),
  skipSourceBalanceCheck: v.optional(v.boolean("must be true or false"), false),
  /** pr402 wraps SOL for a wSOL line; here native SOL is paid as SOL and wSOL is not an asset, so nothing to wrap. */
  autoWrapSol: v.optional(v.boolean("must be true or false")),
});
export type BuildExactPaymentRequest = v.InferOutput<typeof BuildExactPaymentRequestSchema>;

export interface ExactBuildResponse extends UnsignedTransactionFields {
  verifyBodyTemplate: VerifyBodyTemplate;
  assetKind: "spl-token" | "token-2022" | "native-sol";
  /** Where the money lands: the vault's token account, or its SOL storage PDA. */
  destination: Address;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: string;
  notes: string[];
}

export async function buildExactPayment(
  config: Config,
  request: BuildExactPaymentRequest,
): Promise<ExactBuildResponse> {
  const { payer, accepted } = request;
  const amount = BigInt(accepted.amount);
  const payTo = await checkRequirements(config, accepted, payer, amount);
  await refuseBelowExactMinimum(
    config,
    "accepted.amount",
    amount,
    accepted.asset,
    accepted.asset === NATIVE_SOL_ALLOWLIST_ADDRESS,
  );

  const asset = accepted.asset;
  const label = assetLabel(config, asset);
  const checkSource = !request.skipSourceBalanceCheck;
  const notes: string[] = [];
  let transfer: ExactTransfer;
  let assetKind: ExactBuildResponse["assetKind"];
  let blockhash: LatestBlockhash;

  if (asset === NATIVE_SOL_ALLOWLIST_ADDRESS) {
    if (payTo.form === "wallet")
      throw badRequest(
        "accepted.asset: a wallet payTo is paid in a token; native SOL is paid only into a seller's vault (add " +
          "extra.merchantWallet, or enrich the 402 body)",
      );
    const vault = payTo.vault;
    const [accounts, latest, [solStorage]] = await Promise.all([
      checkSource ? fetchAccounts(config, [payer]) : null,
      getLatestBlockhash(config),
      findVaultSolStoragePda(payTo.programId, vault),
    ]);
    if (accounts) checkSolSource({ account: accounts.get(payer) ?? null, payer, amount });
    transfer = { kind: "sol", destination: solStorage, amount };
    assetKind = "native-sol";
    blockhash = latest;
    notes.push(
      `Pays ${amount} lamports ` +
        `(${formatUnits(amount, 9)} SOL) from ${payer} to the vault SOL storage PDA ${solStorage} ` +
        `of vault ${vault}. If the vault does not exist yet, the facilitator provisions it just in time at settlement.`,
    );
  } else {
    // The token program is only known once the mint is read, so both candidates of each account go in the same batch:
    // the buyer's source, and a wallet payTo's own token account (which must exist: nothing creates it).
    const [candidates, recipients] = await Promise.all([
      checkSource ? sourceAtaCandidates(payer, asset) : null,
      payTo.form === "wallet" ? sourceAtaCandidates(payTo.owner, asset) : null,
    ]);
    const [accounts, latest] = await Promise.all([
      fetchAccounts(config, [asset, ...candidatesOf(candidates), ...candidatesOf(recipients)]),
      getLatestBlockhash(config),
    ]);
    const mint = readPaymentMint(accounts.get(asset) ?? null, asset, exactMintScreen);
    const tokenProgram = mint.tokenProgram;
    const owner = payTo.form === "vault" ? payTo.vault : payTo.owner;
    const [[source], [destination]] = await Promise.all([
      findAssociatedTokenPda({ owner: payer, mint: asset, tokenProgram }),
      findAssociatedTokenPda({ owner, mint: asset, tokenProgram }),
    ]);
    if (payTo.form === "wallet") {
      const recipient = { address: destination, owner, mint: asset, tokenProgram };
      const missing = missingRecipientAccount(accounts.get(destination), recipient);
      if (missing) throw refused(missing.reason, `accepted.payTo: ${missing.message}`);
    }
    if (checkSource) {
      checkTokenSource({
        account: accounts.get(source) ?? null,
        sourceAta: source,
        tokenProgram,
        amount,
        decimals: mint.decimals,
        label,
      });
    }
    transfer = { kind: "token", tokenProgram, mint: asset, decimals: mint.decimals, source, destination, amount };
    assetKind = tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? "token-2022" : "spl-token";
    blockhash = latest;
    notes.push(
      payTo.form === "vault"
        ? `Pays ${amount} raw units ` +
            `(${formatUnits(amount, mint.decimals)} ${label}) with TransferChecked from the payer's token ` +
            `account ${source} to the vault token ` +
            `account ${destination} (owner: vault PDA ${owner}). If the vault or its token ` +
            "account does not exist yet, the facilitator provisions them just in time at settlement."
        : `Pays ${amount} raw units ` +
            `(${formatUnits(amount, mint.decimals)} ${label}) with TransferChecked from the payer's token ` +
            `account ${source} to the seller's own token ` +
            `account ${destination} (owner: ${owner}). That account must exist: the facilitator creates nothing for ` +
            `a wallet payTo.`,
    );
  }

  const kindLimit =
    assetKind === "native-sol"
      ? EXACT_COMPUTE_UNIT_LIMIT.nativeSol
      : assetKind === "token-2022"
        ? EXACT_COMPUTE_UNIT_LIMIT.token2022
        : EXACT_COMPUTE_UNIT_LIMIT.splToken;
  const computeUnitLimit = Math.min(kindLimit, config.compute.maxUnitLimit);
  const { recommendedUnitPriceMicroLamports, maxUnitPriceMicroLamports } = config.compute;
  const computeUnitPriceMicroLamports =
    recommendedUnitPriceMicroLamports < maxUnitPriceMicroLamports
      ? recommendedUnitPriceMicroLamports
      : maxUnitPriceMicroLamports;
  if (computeUnitLimit < kindLimit) {
    notes.push(
      `The compute unit limit is capped at this deployment's maximum ` +
        `of ${computeUnitLimit} (the builder's default is ${kindLimit}).`,
    );
  }

  const feePayer = config.feePayer.address;
  const built = buildExactPaymentTransaction({
    feePayer,
    payer,
    transfer,
    computeUnitLimit,
    computeUnitPriceMicroLamports,
    blockhash,
    memo: randomMemoNonce(),
  });

  notes.unshift(
    `Sign as ${payer} (signature index ${built.payerSignatureIndex}), put the signed base64 transaction into ` +
      "verifyBodyTemplate.paymentPayload.payload.transaction, then send verifyBodyTemplate.paymentPayload to the " +
      "seller as " +
      "base64 JSON in the PAYMENT-SIGNATURE header: official x402 middleware reads it as is, and a seller that posts " +
      "the header to " +
      "/settle is served too (/settle takes a bare PaymentPayload). " +
      `The fee payer ${feePayer} signs at settlement; leave its signature slot (index 0) empty.`,
    `The blockhash is valid for ` +
      `about ${BLOCKHASH_LIFETIME_SECONDS} seconds: sign and settle promptly. On BLOCKHASH_EXPIRED ("retry build"), ` +
      `build and sign again.`,
  );
  if (!checkSource)
    notes.push("The payer's balance was not checked (skipSourceBalanceCheck): settlement fails if funds are short.");

  return {
    x402Version: 2,
    transaction: built.transaction,
    verifyBodyTemplate: verifyBodyTemplate(accepted, "exact", built.transaction, request.resource),
    payerSignatureIndex: built.payerSignatureIndex,
    recentBlockhash: blockhash.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    feePayer,
    payer,
    signerPubkeys: built.signerPubkeys,
    assetKind,
    destination: transfer.destination,
    computeUnitLimit,
    computeUnitPriceMicroLamports: computeUnitPriceMicroLamports.toString(),
    notes,
  };
}

/** Where the builder sends the money: a seller's vault, or (SVC_EXACT_WALLET_PAYTO) the seller's own wallet. */
type BuildPayTo = { form: "vault"; vault: Address; programId: Address } | { form: "wallet"; owner: Address };

/**
 * Everything decidable from the request alone, before any chain read: scheme, network, allowlist, fee payer, and
 * that `payTo` is the vault PDA of `extra.merchantWallet` (a line without `merchantWallet` pays `payTo`'s own token
 * account where wallet payTo is on).
 */
async function checkRequirements(
  config: Config,
  accepted: PaymentRequirements,
  payer: Address,
  amount: bigint,
): Promise<BuildPayTo> {
  if (bareScheme(accepted.scheme) !== "exact") {
    throw refused(
      "unsupported_scheme",
      `accepted.scheme: must be "exact" (or "v2:solana:exact") for this builder, got "${accepted.scheme}"`,
    );
  }
  const foreign = foreignNetworkMessage(config, "accepted.network", accepted.network);
  if (foreign !== null) throw refused("invalid_network", foreign);
  const notAllowed = assetNotAllowedMessage(config, accepted.asset);
  if (notAllowed !== null) throw refused("asset_not_allowed", notAllowed);
  if (amount === 0n) throw badRequest("accepted.amount: must be greater than 0");

  const extra = accepted.extra;
  const feePayer = config.feePayer.address;
  if (extra.feePayer !== undefined && extra.feePayer !== feePayer) {
    throw refused(
      "invalid_exact_svm_fee_payer_mismatch",
      `accepted.extra.feePayer: ${String(extra.feePayer)} is not this facilitator's fee payer ${feePayer}; ` +
        "the 402 body was made for another facilitator (or is stale): enrich it again with POST " +
        "/payment-required/enrich",
    );
  }
  if (payer === feePayer) throw badRequest("payer: the facilitator's fee payer cannot be the buyer");
  if (isOffCurveAddress(payer))
    throw badRequest(`payer: ${payer} is off the ed25519 curve (a PDA) and cannot sign; use a wallet address`);
  const merchantWallet = extra.merchantWallet;
  const { exactVault, exactWallet } = config.rails;
  // As verify decides it (./pay-to-form.ts): without merchantWallet an on-curve payTo is a wallet, and so is any payTo
  // once the vault form is off.
  if (
    (merchantWallet === undefined || merchantWallet === null) &&
    exactWallet.enabled &&
    (!exactVault.enabled || !isOffCurveAddress(accepted.payTo as Address))
  ) {
    if (accepted.payTo === feePayer)
      throw badRequest("accepted.payTo: the facilitator's fee payer cannot be the seller");
    return { form: "wallet", owner: accepted.payTo as Address };
  }
  if (!exactVault.enabled) throw railNotEnabled("exact (vault payTo)", exactVault.why);
  const programId = requireUniversalSettle(config);
  if (extra.programId !== undefined && extra.programId !== programId) {
    throw badRequest(
      `accepted.extra.programId: ${String(extra.programId)} is not this facilitator's UniversalSettle ` +
        `program ${programId}`,
    );
  }
  // The seller as /verify resolves it: extra.merchantWallet, or the seller recorded in an existing vault at payTo.
  const seller = await resolveMerchantWallet(config, accepted.payTo, merchantWallet);
  if (!seller.ok) throw refused("merchant_wallet_unresolved", `accepted.extra.merchantWallet: ${seller.message}`);
  const wallet = { output: seller.wallet };
  const [vault] = await findVaultPda(programId, wallet.output);
  if (accepted.payTo !== vault) {
    throw refused(
      "invalid_exact_svm_payload_recipient_mismatch",
      `accepted.payTo: ${accepted.payTo} is not the vault PDA ${vault} of extra.merchantWallet ${wallet.output}; ` +
        "enrich the 402 body with POST /payment-required/enrich",
    );
  }

  return { form: "vault", vault, programId };
}

type LatestBlockhash = Awaited<ReturnType<typeof getLatestBlockhash>>;

function candidatesOf(accounts: { token: Address; token2022: Address } | null): Address[] {
  return accounts ? [accounts.token, accounts.token2022] : [];
}
