import { getBase64Encoder, type Address } from "@solana/kit";
import type { Config } from "../../config/load-config";
import type { Env } from "../../env";
import { encodeBase58 } from "../../solana/base58";
import { signAsFeePayer } from "../../solana/fee-payer-signature";
import { decodeWireTransaction } from "../../solana/wire-transaction";
import { settleSignedPayment, settleablePayment, type SettleCall, type Settlement } from "../../settlement/settle-engine";
import { getSettlementState } from "../../store/settlements";
import { getChannelWithDeposit, recordChannelOpen, scheduleChannelCheck, storeClaimTransaction, type StoredClaim } from "../../store/upto-channels";
import { rejection, type AcceptedRequirements, type PaymentRejection } from "../../x402/payment-verdict";
import type { UptoPayload, VerifySettleBody } from "../../x402/schemas";
import { channelTermsOf, checkPayloadWindow } from "./channel-terms";
import { buildSignedClaim, claimVoucher, isDelegatedCaller } from "./claim";
import { uptoPayloadOf, verifyUptoDeposit, type VerifiedUptoDeposit } from "./verify";

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

export async function settleUptoPayment(config: Config, env: Env, body: VerifySettleBody, accepted: AcceptedRequirements, call: SettleCall): Promise<Settlement> {
  const payload = uptoPayloadOf(body);
  if ("ok" in payload) return payload;
  const step = settleStep(config, accepted, payload);
  if (typeof step !== "string") return step;
  return step === "deposit" ? settleDeposit(config, env, body, accepted, payload, call) : settleClaim(config, env, accepted, payload, call);
}

/** Deposit or claim, the way the official facilitator tells them apart (`type` first; older servers without it). */
function settleStep(config: Config, accepted: AcceptedRequirements, payload: UptoPayload): "deposit" | "claim" | PaymentRejection {
  const payer = payload.from;
  if (accepted.amount > BigInt(payload.maxAmount)) {
    return rejection("invalid_upto_svm_payload_settlement_exceeds_amount", `The charge ${accepted.amount} exceeds the authorized ceiling ${payload.maxAmount}`, { payer });
  }
  if (payload.type) return payload.type;
  if (config.upto.delegated && accepted.requirements.extra.receiverAuthorizer === config.upto.delegated.authorizer.address) {
    return rejection("invalid_upto_svm_payload_type", "A delegated upto settle must say payload.type (deposit or claim)", { payer });
  }
  if (payload.voucherSignature !== undefined) return "claim";
  if (accepted.amount === BigInt(payload.maxAmount)) return "deposit";
  return rejection("invalid_upto_svm_payload_missing_voucher", "A claim below the ceiling needs the seller's voucherSignature", { payer });
}

async function settleDeposit(config: Config, env: Env, body: VerifySettleBody, accepted: AcceptedRequirements, payload: UptoPayload, call: SettleCall): Promise<Settlement> {
  const terms = channelTermsOf(config, accepted.requirements, payload.from);
  if ("ok" in terms) return terms;
  if (terms.delegated && !isDelegatedCaller(config, call.callerCredential ?? null)) {
    return rejection("invalid_upto_svm_delegated_settle_unauthenticated", "A deposit for this facilitator's receiver authorizer needs the seller's bearer token in the Authorization header", { payer: payload.from });
  }
  // No simulation here: the send's preflight runs the same one.
  const verified = await verifyUptoDeposit(config, body, accepted, payload, { simulate: false, ledger: env.DB, settling: true });
  if (!verified.ok) return verified;
  const signed = await signAsFeePayer(config, verified.tx);
  return settleSignedPayment(
    config,
    env,
    settleablePayment(
      { accepted, messageHash: verified.messageHash, payer: verified.payer, merchantWallet: accepted.requirements.payTo as Address, tx: verified.tx },
      { transfer: null, beforeFirstSend: () => recordOpen(env.DB, verified) },
    ),
    signed,
    call,
  );
}

/** The channel row goes in before the open is first sent, so the keeper can always find a channel whose rent is out. */
async function recordOpen(db: D1Database, verified: VerifiedUptoDeposit): Promise<{ ok: true } | PaymentRejection> {
  const { payload, accepted } = verified;
  const recorded = await recordChannelOpen(
    db,
    {
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
    },
    Date.now(),
  );
  if (recorded) return { ok: true };
  return rejection("invalid_upto_svm_channel_already_open", `Channel ${verified.channelId} already has a deposit in flight or settled; a deposit opens a new channel`, { payer: verified.payer });
}

async function settleClaim(config: Config, env: Env, accepted: AcceptedRequirements, payload: UptoPayload, call: SettleCall): Promise<Settlement> {
  const payer = payload.from;
  const requirements = accepted.requirements;
  const terms = channelTermsOf(config, requirements, payer);
  if ("ok" in terms) return terms;
  const window = checkPayloadWindow(config, requirements, terms, payload, Math.floor(Date.now() / 1000));
  if (window) return window;
  // The voucher is checked (or, delegated, signed) before anything else is read or signed.
  const voucher = await claimVoucher(config, payload, terms, accepted.amount, call.callerCredential ?? null);
  if ("ok" in voucher) return voucher;

  const found = await getChannelWithDeposit(env.DB, payload.channelId);
  const refused = (message: string) => rejection("invalid_upto_svm_channel_state", message, { payer });
  if (!found) return refused(`Channel ${payload.channelId} was not opened through this facilitator`);
  const { channel } = found;
  if (channel.payer !== payer || channel.payTo !== requirements.payTo || channel.asset !== requirements.asset || channel.deposit !== payload.maxAmount) {
    return refused(`Channel ${payload.channelId} was opened for another payment`);
  }
  if (found.depositState !== "confirmed") return refused(`The deposit of channel ${payload.channelId} is not confirmed yet; settle the deposit first`);

  let claim = channel.claim;
  if (claim && claim.amount !== accepted.amount.toString()) return otherClaim(claim, payer);
  if (!claim || (await getSettlementState(env.DB, claim.messageHash))?.state === "failed") {
    const built = await buildSignedClaim(config, payload, terms, { payTo: requirements.payTo as Address, mint: requirements.asset as Address, tokenProgram: channel.tokenProgram as Address }, voucher);
    if ("ok" in built) return built;
    const mine: StoredClaim = { messageHash: built.messageHash, amount: accepted.amount.toString(), transaction: built.wireBase64 };
    if (await storeClaimTransaction(env.DB, payload.channelId, mine, claim?.messageHash ?? null, Date.now())) {
      claim = mine;
    } else {
      // A concurrent call stored its claim first: settle that one (the same bytes for everyone).
      claim = (await getChannelWithDeposit(env.DB, payload.channelId))?.channel.claim ?? null;
      if (!claim) return refused(`Channel ${payload.channelId} is no longer open`);
      if (claim.amount !== accepted.amount.toString()) return otherClaim(claim, payer);
    }
  }

  const decoded = decodeWireTransaction(claim.transaction);
  if (!decoded.ok) throw new Error(`stored claim of channel ${payload.channelId} does not decode: ${decoded.message}`);
  const tx = decoded.tx;
  const channelId = payload.channelId;
  return settleSignedPayment(
    config,
    env,
    settleablePayment(
      { accepted, messageHash: claim.messageHash, payer: payer as Address, merchantWallet: requirements.payTo as Address, tx },
      { transfer: null, onFirstConfirmation: (nowMs) => scheduleChannelCheck(env.DB, channelId, nowMs + RECLAIM_CHECK_DELAY_MS, nowMs) },
    ),
    { wireBytes: new Uint8Array(getBase64Encoder().encode(claim.transaction)), signature: signatureOf(tx.signatures[0]) },
    call,
  );
}

/** One claim per channel: a different amount after one was signed is a second settlement of the same payment. */
function otherClaim(claim: StoredClaim, payer: string): PaymentRejection {
  return rejection("duplicate_settlement", `This payment's channel was already claimed for ${claim.amount}; a channel settles once`, { payer });
}

function signatureOf(bytes: Uint8Array | null | undefined): string {
  if (!bytes) throw new Error("stored claim is not signed by the fee payer");
  return encodeBase58(bytes);
}

