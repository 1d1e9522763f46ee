import { encodeBase58 } from "../../chain/base58";
import { paymentSpendRider } from "../../chain/fee-payer-budget/payment-spend";
import { signAsFeePayer } from "../../chain/fee-payer-signature";
import { networkFeeOf } from "../../chain/network-fee";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { log } from "../../platform/observability/log";
import {
  type ClaimRider,
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
import { type AcceptedFunding, dropUnsentWatch, takeOverWatch, watchRider } from "./store/escrow-watch";
import { recordSponsoredFundingFailure } from "./store/sponsored-funding-failures";
import { type VerifiedEscrowPayment, verifyEscrowPayment } from "./verify";

/**
 * Settles an `sla-escrow` funding exactly once, on the same ledger and engine as the exact rail. A sponsored funding
 * is co-signed by the fee payer and sent; a buyer-paid one is already complete and is sent as given (the facilitator
 * pays nothing) — or, when the buyer broadcast it already, the send reports it processed and settle confirms it.
 *
 * The funding's ledger claim carries, in its one D1 transaction, the keeper's watch row and (sponsored) the booking
 * of its whole fee under the exposure budget's caps; the keeper drops a watch whose funding never landed. A sponsored
 * funding that executed and failed counts against its payer's cap (see verify).
 */
export async function settleEscrowPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  call: SettleCall,
): Promise<SettleOutcome> {
  // With the ledger, verify also refuses a sponsored funding of a payer over its failure cap (before anything is
  // signed).
  const verified = await verifyEscrowPayment(config, body, accepted, { simulate: false, db: call.db });
  if (!verified.ok) return settledWith(verified);
  const signed = await signedFunding(config, verified);
  const funding: AcceptedFunding = {
    paymentPda: verified.paymentPda,
    fundingSignature: signed.signature,
    fundingBlockhash: verified.tx.recentBlockhash,
    sponsoredPayer: verified.sponsored ? verified.payer : null,
  };
  // The watch never refuses a claim.
  const riders: ClaimRider[] = [{ ...watchRider(funding, verified.messageHash, Date.now()), explain: () => null }];
  // A sponsored funding's whole fee is the fee payer's gift: booked with the claim, under the buyer's and seller's
  // caps.
  if (verified.sponsored)
    riders.push(
      paymentSpendRider(config, {
        rail: "sla-escrow",
        kind: "sponsored_funding",
        messageHash: verified.messageHash,
        payer: verified.payer,
        seller: verified.merchantWallet,
        lamports: networkFeeOf(verified.tx),
      }),
    );
  // A funding moves the escrow's mint, or SOL (the all-zero mint): refusals word a shortfall as what the buyer lacks.
  const funds = verified.accepted.requirements.asset === NATIVE_SOL_ALLOWLIST_ADDRESS ? "sol" : "token";
  const outcome = await settleSignedPayment(
    config,
    settleablePayment(verified, {
      funds,
      riders,
      onFirstConfirmation: (nowMs) => takeOverWatch(call.db, funding, nowMs),
    }),
    signed,
    call,
  );
  await recordFundingOutcome(call.db, verified, funding, outcome.settlement);
  return outcome;
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
 * After the settle, on its refusal paths only: a sponsored funding that executed and failed counts against its payer;
 * a funding the cluster never accepted leaves no watch row. Neither write may turn a settle's answer into an error: the
 * payment itself is on the chain (or not) whatever the database says.
 */
async function recordFundingOutcome(
  db: D1Database,
  verified: VerifiedEscrowPayment,
  funding: AcceptedFunding,
  settlement: Settlement,
): Promise<void> {
  if (settlement.ok || "pending" in settlement) return;
  const failedOnChain = settlement.signature !== undefined && settlement.reason !== "duplicate_settlement";
  try {
    if (settlement.signature === undefined) await dropUnsentWatch(db, funding, verified.messageHash);
    else if (failedOnChain && verified.sponsored)
      await recordSponsoredFundingFailure(
        db,
        { signature: funding.fundingSignature, payer: verified.payer },
        Date.now(),
      );
  } catch (error) {
    log("error", failedOnChain ? "sponsored_failure_write_failed" : "escrow_watch_write_failed", {
      signature: funding.fundingSignature,
      paymentPda: verified.paymentPda,
      error,
    });
  }
}
