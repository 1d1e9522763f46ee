import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { fetchAccounts } from "../../chain/accounts";
import { feePayerBalanceForBudget } from "../../chain/fee-payer-budget/budget";
import { ledgerKeyOf } from "../../chain/ledger-key";
import { parseMint } from "../../chain/mint";
import { rpcCall } from "../../chain/rpc";
import { verifyNonFeePayerSignatures } from "../../chain/signatures";
import { simulateSignedPayment } from "../../chain/simulate";
import { refusedChannelMintExtension } from "../../chain/token-extensions";
import { type DecodedTransaction, decodeWireTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { explainChainRefusal } from "../../settlement/already-settled";
import { ledgerStateOf } from "../../settlement/settle-engine";
import {
  type AcceptedRequirements,
  type PaymentRejection,
  rejection,
  selfPaymentRefusal,
} from "../../x402/payment-verdict";
import { parseU64, type VerifySettleBody } from "../../x402/schemas";
import { uptoOpenCapRefusal } from "./channel-rent-budget";
import { uptoOpenRentLamports } from "./channel-rent-caps";
import { type ChannelTerms, channelTermsOf, checkPayloadWindow } from "./channel-terms";
import { refusedFreezeAuthority, uptoBelowMinimumMessage, uptoMinimumCeilingRaw } from "./mint-screen";
import { checkOpenTransaction, OPEN_TRANSACTION_REASON, type VerifiedOpen } from "./open-rules";
import { parseUptoPayload, type UptoPayload } from "./payload";
import { payoutAccountProblem, unpayablePayToMessage } from "./payout-account";

/** Open accepts an open slot at most this many slots behind the cluster's (the program's OPEN_SLOT_WINDOW). */
export const OPEN_SLOT_WINDOW = 1_500n;

/** A deposit that passed every rule; settle co-signs exactly this open transaction. */
export interface VerifiedUptoDeposit {
  ok: true;
  accepted: AcceptedRequirements;
  payload: UptoPayload;
  terms: ChannelTerms;
  tx: DecodedTransaction;
  /** SHA-256 of the open's message bytes (hex): the deposit's ledger key. */
  messageHash: string;
  open: VerifiedOpen;
  payer: Address;
  channelId: Address;
}

/** The upto payload of a body, or the official facilitator's reason for a payload of another shape. */
export function uptoPayloadOf(body: VerifySettleBody): { ok: true; payload: UptoPayload } | PaymentRejection {
  const payload = parseUptoPayload(body.paymentPayload.payload);
  return payload
    ? { ok: true, payload }
    : rejection(
        "unsupported_payload_type",
        "An upto payment carries a payment-channel open (payload.openTransaction and its fields), not a transaction",
      );
}

/**
 * /verify of an upto payment: the deposit the official client signed, as the official facilitator's `verify` checks
 * it (a payload the seller's server already stamped with `type` or a voucher is settle's, not verify's).
 */
export async function verifyUptoPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  options: { simulate: boolean; db?: D1Database },
): Promise<{ ok: true; payer: string } | PaymentRejection> {
  const parsed = uptoPayloadOf(body);
  if (!parsed.ok) return parsed;
  const payload = parsed.payload;
  if (payload.type !== undefined)
    return rejection(
      "invalid_upto_svm_payload_type",
      "payload.type is set by the seller's server when it settles; /verify checks the buyer's deposit as signed",
      { payer: payload.from },
    );
  // A deposit the settle would refuse under the budget's caps is refused here too (one D1 read after the checks; the
  // fee payer's balance, for the share and the minimum, is read alongside them).
  const db = options.db;
  const balance = db ? feePayerBalanceForBudget(config) : null;
  balance?.catch(() => undefined);
  const verified = await verifyUptoDeposit(config, body, accepted, payload, options);
  if (!verified.ok || !db) return verified.ok ? { ok: true, payer: verified.payer } : verified;
  const capped = await uptoOpenCapRefusal(
    config,
    db,
    {
      payer: verified.payer,
      payTo: accepted.requirements.payTo,
      channelId: verified.channelId,
      openMessageHash: verified.messageHash,
      rentLamports: uptoOpenRentLamports(verified.open.tokenProgram),
    },
    await balance!,
  );
  return capped ?? { ok: true, payer: verified.payer };
}

/**
 * Verifies an upto deposit in order of cheapness: the line's terms, the payload's window and amounts, the open
 * transaction's structure (fee payer isolation, compute caps), the buyer's signature, then one batched chain read
 * (mint, channel, treasury and payTo token accounts) with the cluster's slot and, when asked, a simulation of the open.
 */
export async function verifyUptoDeposit(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  payload: UptoPayload,
  options: { simulate: boolean; db?: D1Database; settling?: boolean },
): Promise<VerifiedUptoDeposit | PaymentRejection> {
  const requirements = accepted.requirements;
  const payer = payload.from;
  const terms = channelTermsOf(config, requirements, payer);
  if ("ok" in terms) return terms;
  const self = selfPaymentRefusal(payer, requirements.payTo);
  if (self) return self;
  if (payload.voucherSignature !== undefined) {
    return rejection(
      "invalid_upto_svm_payload_unexpected_voucher",
      "A deposit carries no voucher; vouchers belong to the claim after the handler ran",
      { payer },
    );
  }
  const window = checkPayloadWindow(config, requirements, terms, payload, Math.floor(Date.now() / 1000));
  if (window) return window;
  const ceiling = BigInt(payload.maxAmount);
  if (ceiling !== accepted.amount || ceiling !== BigInt(body.paymentPayload.accepted.amount)) {
    return rejection(
      "invalid_upto_svm_payload_amount_mismatch",
      `payload.maxAmount ${payload.maxAmount} is not the requirement's amount ${accepted.amount}`,
      { payer },
    );
  }
  if (BigInt(payload.deposit) !== ceiling)
    return rejection(
      "invalid_upto_svm_payload_deposit_not_ceiling",
      `payload.deposit ${payload.deposit} must equal the ceiling ${ceiling}`,
      { payer },
    );
  const openSlot = parseU64(payload.openSlot);
  const salt = parseU64(payload.nonce);
  if (openSlot === null || salt === null) {
    return rejection(
      "invalid_upto_svm_payload_channel_seed",
      `payload.openSlot ${JSON.stringify(payload.openSlot)} and ` +
        `payload.nonce ${JSON.stringify(payload.nonce)} must be u64 decimal strings (the channel's seeds)`,
      { payer },
    );
  }

  const decoded = decodeWireTransaction(payload.openTransaction);
  if (!decoded.ok) return rejection(OPEN_TRANSACTION_REASON, decoded.message, { payer });
  const tx = decoded.tx;
  const structural = await checkOpenTransaction(tx, {
    programId: config.programs.paymentChannels,
    feePayer: config.feePayer.address,
    payer: payer as Address,
    authorizedSigner: terms.receiverAuthorizer,
    mint: requirements.asset as Address,
    deposit: ceiling,
    withdrawDelay: terms.withdrawDelay,
    openSlot,
    salt,
    channelId: payload.channelId as Address,
    splits: terms.splits,
    memo: terms.memo,
    tokenProgramHint: terms.tokenProgramHint,
    maxComputeUnitLimit: config.compute.maxUnitLimit,
    maxComputeUnitPriceMicroLamports: config.compute.maxUnitPriceMicroLamports,
  });
  if (!structural.ok)
    return rejection(
      structural.reason ?? OPEN_TRANSACTION_REASON,
      `The open transaction is not accepted: ${structural.message}`,
      { payer },
    );
  const open = structural.open;
  const signatures = await verifyNonFeePayerSignatures(tx);
  if (!signatures.ok) {
    return rejection(
      OPEN_TRANSACTION_REASON,
      signatures.missing
        ? `The open transaction is missing the signature of ${signatures.signer}`
        : `The signature of ${signatures.signer} does not verify`,
      { payer },
    );
  }
  const messageHash = await ledgerKeyOf(tx.messageBytes);

  // Chain facts: one batched account read, the slot, and (verify only) the simulation, in parallel.
  const channelId = payload.channelId as Address;
  const mint = requirements.asset as Address;
  const payTo = requirements.payTo as Address;
  const [[treasury], [payToAccount]] = await Promise.all([
    findAssociatedTokenPda({ owner: config.upto.treasuryOwner, mint, tokenProgram: open.tokenProgram }),
    findAssociatedTokenPda({ owner: payTo, mint, tokenProgram: open.tokenProgram }),
  ]);
  const [accounts, slot, simulation] = await Promise.all([
    // payTo's token account rides on the same read: no round trip of its own.
    fetchAccounts(config, [mint, channelId, treasury, payToAccount]),
    rpcCall<number>(config, "getSlot", [{ commitment: "confirmed" }]).then(BigInt),
    // The fee payer has not signed yet; the deposit leaves the buyer's token account.
    options.simulate ? simulateSignedPayment(config, tx, "token_rent_fronted") : Promise.resolve(null),
  ]);
  const mintAccount = accounts.get(mint);
  const mintInfo = mintAccount ? parseMint(mintAccount) : null;
  if (!mintInfo || mintInfo.tokenProgram !== open.tokenProgram) {
    return rejection(
      "invalid_upto_svm_payload_mint_mismatch",
      `Asset ${mint} is not an initialized mint of token program ${open.tokenProgram}`,
      { payer },
    );
  }
  // Before anything else: the fee payer must not front a channel's rent for a mint the program or the payout refuses,
  // one whose escrow a stranger could freeze, or a ceiling worth less than the open.
  const refusedMint = refusedChannelMintExtension(mintInfo);
  if (refusedMint) return rejection("invalid_upto_svm_payload_mint_extension_not_allowed", refusedMint, { payer });
  const frozenRisk = refusedFreezeAuthority(config, mintInfo);
  if (frozenRisk) return rejection("invalid_upto_svm_payload_mint_freeze_authority", frozenRisk, { payer });
  const minimum = uptoMinimumCeilingRaw(config, mintInfo);
  if (ceiling < minimum) {
    const sentence = uptoBelowMinimumMessage(ceiling, minimum, mint);
    return rejection("invalid_upto_svm_payload_amount_below_minimum", sentence[0]!.toUpperCase() + sentence.slice(1), {
      payer,
    });
  }
  if (accounts.get(channelId)) {
    const alreadyOpen = rejection(
      "invalid_upto_svm_channel_already_open",
      `Channel ${channelId} already exists; a deposit opens a new channel`,
      { payer },
    );
    // Settle: this very deposit in the ledger is the engine's to answer (a duplicate, or a seller's retry of its
    // success).
    const mine = options.settling && options.db ? await ledgerStateOf(options.db, messageHash) : undefined;
    if (!mine || mine.state === "failed") return explainChainRefusal(options.db, messageHash, alreadyOpen);
    return { ok: true, accepted, payload, terms, tx, messageHash, open, payer: payer as Address, channelId };
  }
  if (!accounts.get(treasury)) {
    return rejection(
      "invalid_upto_svm_treasury_account_missing",
      `The payment-channels treasury token ` +
        `account ${treasury} for ${mint} does not exist, so the channel could never be closed; this asset cannot be ` +
        `used for upto here`,
      { payer },
    );
  }
  // Before the buyer's money is locked and the fee payer fronts the channel's rent: a channel no claim could pay out.
  const payout = payoutAccountProblem(accounts.get(payToAccount) ?? null, {
    owner: payTo,
    mint,
    tokenProgram: open.tokenProgram,
  });
  if (payout) {
    return rejection(
      "invalid_upto_svm_payout_account_unusable",
      `${unpayablePayToMessage(payTo, payToAccount, mint, payout)}; no deposit was taken`,
      { payer },
    );
  }
  if (openSlot > slot || slot - openSlot > OPEN_SLOT_WINDOW) {
    return rejection(
      OPEN_TRANSACTION_REASON,
      `payload.openSlot ${openSlot} is not within the ${OPEN_SLOT_WINDOW} slots up to the cluster's slot ${slot}`,
      { payer },
    );
  }
  if (simulation && !simulation.ok)
    return explainChainRefusal(options.db, messageHash, { ...uptoSimulationRefusal(simulation), payer });
  return { ok: true, accepted, payload, terms, tx, messageHash, open, payer: payer as Address, channelId };
}

/**
 * A transaction the cluster refused in simulation or preflight, as the official facilitator names it for upto
 * (`invalid_upto_svm_settlement_simulation`); the refusals with a reason of their own (the buyer's shortfall, an
 * expired blockhash, a duplicate) keep it.
 */
export function uptoSimulationRefusal<T extends PaymentRejection>(refused: T): T {
  return refused.reason === "transaction_simulation_failed"
    ? { ...refused, reason: "invalid_upto_svm_settlement_simulation" }
    : refused;
}
