import type { Address } from "@solana/kit";
import { encodeBase58 } from "../../chain/base58";
import { feePayerBalanceForBudget } from "../../chain/fee-payer-budget/budget";
import { belowMinimumRefusal } from "../../chain/fee-payer-budget/caps";
import { paymentSpendRider } from "../../chain/fee-payer-budget/payment-spend";
import { signAsFeePayer } from "../../chain/fee-payer-signature";
import { networkFeeOf } from "../../chain/network-fee";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { decodeWireTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import {
  type ClaimRider,
  type SettleCall,
  type SettleOutcome,
  settleablePayment,
  settledWith,
  settleSignedPayment,
} from "../../settlement/settle-engine";
import { type AcceptedRequirements, type PaymentRejection, rejection } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import type { RailCaller } from "../rail";
import type { UptoPayload } from "./payload";
import {
  type ChannelOpen,
  channelOpenWrite,
  claimStoreRider,
  dropUnlandedOpen,
  getChannelWithDeposit,
  type StoredClaim,
  scheduleChannelCheck,
} from "./store/upto-channels";

/**
 * The engine's call plus the caller's bearer token: a delegated settle must come from the facilitator's authorised
 * caller.
 */
type UptoSettleCall = SettleCall & { callerCredential: string | null };

import { uptoOpenRider } from "./channel-rent-budget";
import { uptoOpenRentLamports } from "./channel-rent-caps";
import { type ChannelTerms, channelTermsOf, checkPayloadWindow } from "./channel-terms";
import { buildSignedClaim, type ClaimVoucher, claimVoucher, isDelegatedCaller } from "./claim";
import { uptoPayloadOf, uptoSimulationRefusal, type VerifiedUptoDeposit, verifyUptoDeposit } from "./verify";

/**
 * Settles the two steps of an upto payment on the shared exactly-once engine and ledger (this file is the rail's
 * only glue to the payment core):
 * - the deposit: the buyer-signed channel open, co-signed by the fee payer — fixed bytes, keyed by their message hash;
 * - the claim (or a zero-amount cancel): a transaction the facilitator builds and signs once per channel. Its bytes
 *   are kept with the channel, so a retried or concurrent claim sends the very same transaction (same ledger key);
 *   one that can no longer land (its blockhash expired unseen, or it failed) is replaced. The program seals the
 *   channel at the first claim, so however the calls interleave, at most one claim moves money.
 */

/** After the voucher expiry the keeper waits this long for a claim still in flight before it closes the channel. */
export const ABANDON_GRACE_SECONDS = 120;
/** After a confirmed claim, when the keeper comes for the channel account's rent (Reclaim waits 1,500 slots). */
const RECLAIM_CHECK_DELAY_MS = 15 * 60_000;

export async function settleUptoPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  engineCall: SettleCall,
  caller: RailCaller = { bearerToken: null },
): Promise<SettleOutcome> {
  const call: UptoSettleCall = { ...engineCall, callerCredential: caller.bearerToken };
  const parsed = uptoPayloadOf(body);
  if (!parsed.ok) return settledWith(parsed);
  const payload = parsed.payload;
  const step = settleStep(config, accepted, payload);
  if (typeof step !== "string") return settledWith(step);
  if (step === "claim") return settleClaim(config, accepted, payload, call);
  // The deposit locks the ceiling; the claim after the handler is the sale (the seller's history counts it once).
  return { ...(await settleDeposit(config, body, accepted, payload, call)), deposit: true };
}

/** Deposit or claim, the way the official facilitator tells them apart (`type` first; older servers without it). */
function settleStep(
  config: Config,
  accepted: AcceptedRequirements,
  payload: UptoPayload,
): "deposit" | "claim" | PaymentRejection {
  const payer = payload.from;
  // The ceiling the buyer signed (payload.maxAmount), whatever `accepted` says; each ceiling check words its refusal
  // its own way (the common checks: accepted's amount; claim-rules.ts: the channel's deposit on chain).
  if (accepted.amount > BigInt(payload.maxAmount)) {
    return rejection(
      "invalid_upto_svm_payload_settlement_exceeds_amount",
      `The charge ${accepted.amount} exceeds payload.maxAmount ${payload.maxAmount}, the ceiling the buyer signed`,
      { payer },
    );
  }
  if (payload.type) return payload.type;
  if (
    config.upto.delegated &&
    accepted.requirements.extra.receiverAuthorizer === config.upto.delegated.authorizer.address
  ) {
    return rejection(
      "invalid_upto_svm_payload_type",
      "A delegated upto settle must say payload.type (deposit or claim)",
      { payer },
    );
  }
  if (payload.voucherSignature !== undefined) return "claim";
  if (accepted.amount === BigInt(payload.maxAmount)) return "deposit";
  return rejection(
    "invalid_upto_svm_payload_missing_voucher",
    "A claim below the ceiling needs the seller's voucherSignature",
    { payer },
  );
}

async function settleDeposit(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  payload: UptoPayload,
  call: UptoSettleCall,
): Promise<SettleOutcome> {
  const terms = channelTermsOf(config, accepted.requirements, payload.from);
  if ("ok" in terms) return settledWith(terms);
  if (terms.delegated && !isDelegatedCaller(config, call.callerCredential)) {
    return settledWith(
      rejection(
        "invalid_upto_svm_delegated_settle_unauthenticated",
        "A deposit for this facilitator's receiver authorizer needs the seller's bearer token in the Authorization " +
          "header",
        { payer: payload.from },
      ),
    );
  }
  // The budget's balance (the isolate's reading, or one getBalance when it is over a minute old) is read alongside
  // verify. (A low reading is read again first, for the larger of the two rents: the token program is known after
  // verify.)
  const balance = feePayerBalanceForBudget(config, uptoOpenRentLamports(TOKEN_2022_PROGRAM_ADDRESS));
  balance.catch(() => undefined); // awaited only once the deposit verified
  // No simulation here: the send's preflight runs the same one.
  const verified = await verifyUptoDeposit(config, body, accepted, payload, {
    simulate: false,
    db: call.db,
    settling: true,
  });
  if (!verified.ok) return settledWith(verified);
  const open = channelOpenOf(config, verified);
  const balanceLamports = await balance;
  const low = belowMinimumRefusal(config, balanceLamports, open.rentLamports, open.payer);
  if (low) return settledWith(low);
  const signed = await signAsFeePayer(config, verified.tx);
  // The claim's one D1 transaction carries the channel's row with its rent (under the rent and channel caps) and the
  // open's network fee (under the buyer's, the seller's and the pool's): a refusal of either claims and sends nothing.
  const riders = [
    uptoOpenRider(config, open, channelOpenWrite(open, Date.now()), balanceLamports),
    paymentSpendRider(config, {
      rail: "upto",
      kind: "payment_fee",
      messageHash: verified.messageHash,
      payer: verified.payer,
      seller: open.payTo,
      lamports: signed.feePayerFeeLamports,
    }),
  ];
  const outcome = await settleSignedPayment(
    config,
    settleablePayment(
      {
        accepted,
        messageHash: verified.messageHash,
        payer: verified.payer,
        merchantWallet: accepted.requirements.payTo as Address,
        tx: verified.tx,
      },
      // The fee payer fronts the rent, so SOL that runs short is the facilitator's, not the buyer's.
      { funds: "token_rent_fronted", riders },
    ),
    { ...signed, feePayerRentLamports: open.rentLamports },
    call,
  );
  // Refused (a refusal path only): the row of an Open the cluster did not take goes, and with it the rent it booked,
  // so no flood of them is left behind in the keeper's queue or the budget.
  const settlement = outcome.settlement;
  if (!settlement.ok && !("pending" in settlement) && settlement.signature === undefined)
    await dropUnlandedOpen(call.db, open.channelId, open.openMessageHash);
  return withUptoPreflightReason(outcome);
}

/** A transaction the cluster's preflight refused (it has no signature yet) in the official facilitator's words. */
function withUptoPreflightReason(outcome: SettleOutcome): SettleOutcome {
  const settlement = outcome.settlement;
  if (settlement.ok || "pending" in settlement || settlement.signature) return outcome;
  return { ...outcome, settlement: uptoSimulationRefusal(settlement) };
}

function channelOpenOf(config: Config, verified: VerifiedUptoDeposit): ChannelOpen {
  const { payload, accepted } = verified;
  return {
    channelId: verified.channelId,
    openMessageHash: verified.messageHash,
    openBlockhash: verified.tx.recentBlockhash,
    payer: verified.payer,
    payTo: accepted.requirements.payTo,
    asset: accepted.requirements.asset,
    tokenProgram: verified.open.tokenProgram,
    deposit: payload.deposit,
    expiresAt: payload.expiresAt,
    firstCheckAtMs: (payload.expiresAt + ABANDON_GRACE_SECONDS) * 1000,
    rentLamports: uptoOpenRentLamports(verified.open.tokenProgram),
    feePayer: config.feePayer.address,
  };
}

async function settleClaim(
  config: Config,
  accepted: AcceptedRequirements,
  payload: UptoPayload,
  call: UptoSettleCall,
): Promise<SettleOutcome> {
  const payer = payload.from;
  const requirements = accepted.requirements;
  const terms = channelTermsOf(config, requirements, payer);
  if ("ok" in terms) return settledWith(terms);
  const window = checkPayloadWindow(config, requirements, terms, payload, Math.floor(Date.now() / 1000));
  // Past the payment's expiry no claim is signed any more, but the one signed before it is still answered: a seller
  // retrying a claim that landed (it heard only "pending") must hear so, not "expired".
  const expired = window?.reason === "invalid_upto_svm_payload_expired" ? window : null;
  if (window && !expired) return settledWith(window);
  // The voucher is checked (or, delegated, signed) before anything else is read or signed.
  const voucher = await claimVoucher(config, payload, terms, accepted.amount, call.callerCredential);
  if ("ok" in voucher) return settledWith(voucher);

  const line = { payTo: requirements.payTo as Address, mint: requirements.asset as Address };
  let refreshed = false;
  for (let tries = 0; tries < 4; tries++) {
    const next = await claimToSettle(config, call, payload, terms, accepted.amount, line, voucher, expired);
    if ("ok" in next) return settledWith(expired ?? next);
    let superseded = false;
    const outcome = await settleStoredClaim(config, accepted, payload, next, call, () => {
      superseded = true;
    });
    // A concurrent call stored its claim first: settle that one (read again).
    if (superseded) continue;
    const settlement = outcome.settlement;
    // Our own claim expired before the cluster saw it: the seller cannot rebuild it, so sign a fresh one once.
    if (
      !expired &&
      !refreshed &&
      !settlement.ok &&
      !("pending" in settlement) &&
      settlement.reason === "blockhash_expired"
    ) {
      refreshed = true;
      continue;
    }
    return withUptoPreflightReason(outcome);
  }
  throw new Error(`upto claim of channel ${payload.channelId}: the stored claim keeps changing`);
}

/** The claim a call settles: one already stored for the channel, or a new one it stores with its ledger claim. */
interface ClaimToSettle {
  claim: StoredClaim;
  /** A new claim: stored in the ledger claim's transaction, replacing this dead one (null: none was stored). */
  store: { replacing: string | null } | null;
}

/**
 * The claim transaction this call settles: the one already signed for the channel (the same bytes for every call),
 * or — none yet, or the last one failed — a new one, stored with its ledger claim unless a concurrent call stored its
 * own first. `noNewClaim` (the payment expired): only a claim already signed is settled, nothing new is signed.
 */
async function claimToSettle(
  config: Config,
  call: SettleCall,
  payload: UptoPayload,
  terms: ChannelTerms,
  amount: bigint,
  line: { payTo: Address; mint: Address },
  voucher: ClaimVoucher,
  noNewClaim: PaymentRejection | null,
): Promise<ClaimToSettle | PaymentRejection> {
  const payer = payload.from;
  const db = call.db;
  const found = await getChannelWithDeposit(db, payload.channelId);
  const refused = (message: string) => rejection("invalid_upto_svm_channel_state", message, { payer });
  if (!found) return refused(`Channel ${payload.channelId} was not opened through this facilitator`);
  const { channel } = found;
  if (
    channel.payer !== payer ||
    channel.payTo !== line.payTo ||
    channel.asset !== line.mint ||
    channel.deposit !== payload.maxAmount
  ) {
    return refused(`Channel ${payload.channelId} was opened for another payment`);
  }
  // D1's copy of the deposit's state may trail the ledger's by the mirror's delay: the ledger decides.
  if (
    found.depositState !== "confirmed" &&
    (await call.settleLedger.state(channel.openMessageHash))?.state !== "confirmed"
  )
    return refused(`The deposit of channel ${payload.channelId} is not confirmed yet; settle the deposit first`);

  const claim = channel.claim;
  if (claim && claim.amount !== amount.toString()) return otherClaim(claim, payer);
  if (claim && (await call.settleLedger.state(claim.messageHash))?.state !== "failed") return { claim, store: null };
  if (noNewClaim) return noNewClaim;
  const built = await buildSignedClaim(
    config,
    payload,
    terms,
    { ...line, tokenProgram: channel.tokenProgram as Address },
    voucher,
  );
  if ("ok" in built) return built;
  return {
    claim: { messageHash: built.messageHash, amount: amount.toString(), transaction: built.wireBase64 },
    store: { replacing: claim?.messageHash ?? null },
  };
}

/**
 * Settles the claim on the engine. Its ledger claim carries, in one D1 transaction, a new claim's storage on the
 * channel (`superseded` is called when another call stored its own first, and a channel no longer open refuses it:
 * nothing was claimed or sent either way) and the
 * claim's network fee, counted in the budget but never refused: the claim pays the seller what the buyer deposited.
 */
async function settleStoredClaim(
  config: Config,
  accepted: AcceptedRequirements,
  payload: UptoPayload,
  next: ClaimToSettle,
  call: SettleCall,
  superseded: () => void,
): Promise<SettleOutcome> {
  const { claim } = next;
  const decoded = decodeWireTransaction(claim.transaction);
  if (!decoded.ok) throw new Error(`stored claim of channel ${payload.channelId} does not decode: ${decoded.message}`);
  const tx = decoded.tx;
  const channelId = payload.channelId;
  const db = call.db;
  const nowMs = Date.now();
  const feeLamports = networkFeeOf(tx);
  const riders: ClaimRider[] = [
    paymentSpendRider(
      config,
      {
        rail: "upto",
        kind: "payment_fee",
        messageHash: claim.messageHash,
        payer: payload.from,
        seller: accepted.requirements.payTo,
        lamports: feeLamports,
        capped: false,
      },
      nowMs,
    ),
  ];
  if (next.store) {
    riders.unshift({
      ...claimStoreRider(channelId, claim, next.store.replacing, nowMs),
      explain: ([stored]) => {
        if (stored?.messageHash && stored.messageHash !== claim.messageHash) superseded();
        return rejection("invalid_upto_svm_channel_state", `Channel ${channelId} is no longer open`, {
          payer: payload.from,
        });
      },
    });
  }
  return settleSignedPayment(
    config,
    settleablePayment(
      {
        accepted,
        messageHash: claim.messageHash,
        payer: payload.from as Address,
        merchantWallet: accepted.requirements.payTo as Address,
        tx,
      },
      {
        funds: "token",
        riders,
        onFirstConfirmation: (confirmedAtMs) =>
          scheduleChannelCheck(db, channelId, confirmedAtMs + RECLAIM_CHECK_DELAY_MS, confirmedAtMs),
      },
    ),
    // The facilitator built and signed the claim as its fee payer.
    { wireBytes: tx.wireBytes, signature: signatureOf(tx.signatures[0]), feePayerFeeLamports: feeLamports },
    call,
  );
}

/** One claim per channel: a different amount after one was signed is a second settlement of the same payment. */
function otherClaim(claim: StoredClaim, payer: string): PaymentRejection {
  return rejection(
    "duplicate_settlement",
    `This payment's channel was already claimed for ${claim.amount}; a channel settles once`,
    { payer },
  );
}

function signatureOf(bytes: Uint8Array | null | undefined): string {
  if (!bytes) throw new Error("stored claim is not signed by the fee payer");
  return encodeBase58(bytes);
}
