import { encodeBase58 } from "../../chain/base58";
import { bookSettleSpend, voidUnsentSettleSpend } from "../../chain/fee-payer-budget/settle-spend";
import { signAsFeePayer } from "../../chain/fee-payer-signature";
import { networkFeeOf } from "../../chain/network-fee";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { log } from "../../platform/observability/log";
import {
  type SettleCall,
  type Settlement,
  type SettleOutcome,
  type SignedPayment,
  settleablePayment,
  settledWith,
  settleSignedPayment,
} from "../../settlement/settle-engine";
import type { AcceptedRequirements } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { watchAcceptedFunding } from "./store/escrow-watch";
import { recordSponsoredFundingFailure } from "./store/sponsored-funding-failures";
import { type VerifiedEscrowPayment, verifyEscrowPayment } from "./verify";

/**
 * Settles an `sla-escrow` funding exactly once, on the same ledger and engine as the exact rail. A sponsored funding
 * is co-signed by the fee payer and sent; a buyer-paid one is already complete and is sent as given (the facilitator
 * pays nothing) — or, when the buyer broadcast it already, the send reports it processed and settle confirms it.
 *
 * The keeper watches the payment only once the cluster accepted the funding (a failing funding never reaches its
 * queue); a sponsored funding that executed and failed counts against its payer's cap (see verify).
 */
export async function settleEscrowPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  call: SettleCall,
): Promise<SettleOutcome> {
  // With the ledger, verify also refuses a sponsored funding of a payer over its failure cap (before anything is signed).
  const verified = await verifyEscrowPayment(config, body, accepted, { simulate: false, ledger: call.ledger });
  if (!verified.ok) return settledWith(verified);
  // A sponsored funding's whole fee is the fee payer's gift: booked before it is signed (one D1 round trip, sponsored only).
  const spend = verified.sponsored
    ? await bookSettleSpend(config, call.ledger, {
        rail: "sla-escrow",
        kind: "sponsored_funding",
        messageHash: verified.messageHash,
        payer: verified.payer,
        seller: verified.merchantWallet,
        lamports: networkFeeOf(verified.tx),
      })
    : ({ ok: true, bookingId: null } as const);
  if (!spend.ok) return settledWith({ ...spend, payer: verified.payer });
  const signed = await signedFunding(config, verified);
  // A funding moves the escrow's mint, or SOL (the all-zero mint): refusals word a shortfall as what the buyer lacks.
  const funds = verified.accepted.requirements.asset === NATIVE_SOL_ALLOWLIST_ADDRESS ? "sol" : "token";
  const outcome = await settleSignedPayment(config, settleablePayment(verified, { funds }), signed, call);
  await recordFundingOutcome(call.ledger, verified, signed.signature, outcome.settlement);
  return voidUnsentSettleSpend(call.ledger, spend.bookingId, outcome);
}

async function signedFunding(config: Config, verified: VerifiedEscrowPayment): Promise<SignedPayment> {
  if (verified.sponsored) return signAsFeePayer(config, verified.tx);
  // Verified above: the buyer's signature is in slot 0 and it is the transaction id; the buyer pays the fee.
  return {
    wireBytes: verified.tx.wireBytes,
    signature: encodeBase58(verified.tx.signatures[0]!),
    feePayerFeeLamports: 0n,
  };
}

/**
 * After the settle: a funding the cluster accepted (confirmed, or sent and not confirmed yet) is handed to the keeper;
 * a sponsored funding that executed and failed counts against its payer. Neither write may turn a settle's answer
 * into an error: the payment itself is on the chain (or not) whatever the database says.
 */
async function recordFundingOutcome(
  db: D1Database,
  verified: VerifiedEscrowPayment,
  signature: string,
  settlement: Settlement,
): Promise<void> {
  const pending = !settlement.ok && "pending" in settlement;
  const accepted = settlement.ok || (pending && settlement.signature !== undefined);
  const failedOnChain =
    !settlement.ok && !pending && settlement.signature !== undefined && settlement.reason !== "duplicate_settlement";
  try {
    if (accepted) {
      await watchAcceptedFunding(
        db,
        {
          paymentPda: verified.paymentPda,
          fundingSignature: signature,
          fundingBlockhash: verified.tx.recentBlockhash,
          sponsoredPayer: verified.sponsored ? verified.payer : null,
          confirmed: settlement.ok,
        },
        Date.now(),
      );
    } else if (failedOnChain && verified.sponsored) {
      await recordSponsoredFundingFailure(db, { signature, payer: verified.payer }, Date.now());
    }
  } catch (error) {
    log("error", accepted ? "escrow_watch_write_failed" : "sponsored_failure_write_failed", {
      signature,
      paymentPda: verified.paymentPda,
      error,
    });
  }
}
