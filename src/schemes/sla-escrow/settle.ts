import type { Config } from "../../config/load-config";
import type { Env } from "../../env";
import { signAsFeePayer } from "../../solana/fee-payer-signature";
import { settleSignedPayment, settleablePayment, type SettleCall, type Settlement, type SignedPayment } from "../../settlement/settle-engine";
import { rejection, type AcceptedRequirements, type PaymentRejection } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { verifyEscrowPayment, type VerifiedEscrowPayment } from "./verify";
import { watchAcceptedFunding } from "../../store/escrow-watch";
import { countSponsoredFundingFailures, recordSponsoredFundingFailure, SPONSORED_FAILURE_WINDOW_MS } from "../../store/sponsored-funding-failures";
import { encodeBase58 } from "../../solana/base58";
import { log } from "../../observability/log";

/**
 * Settles an `sla-escrow` funding exactly once, on the same ledger and engine as the exact rail. A sponsored funding
 * is co-signed by the fee payer and sent; a buyer-paid one is already complete and is sent as given (the facilitator
 * pays nothing) — or, when the buyer broadcast it already, the send reports it processed and settle confirms it.
 *
 * The keeper watches the payment only once the cluster accepted the funding (a failing funding never reaches its
 * queue), and a sponsored funding is refused to a payer whose sponsored fundings already failed on chain too often.
 */
export async function settleEscrowPayment(
  config: Config,
  env: Env,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  call: SettleCall,
): Promise<Settlement> {
  const verified = await verifyEscrowPayment(config, body, accepted, { simulate: false });
  if (!verified.ok) return verified;
  if (verified.sponsored) {
    const refused = await sponsorshipRefusal(config, env.DB, verified.payer);
    if (refused) return refused;
  }
  const signed = await signedFunding(config, verified);
  const settlement = await settleSignedPayment(config, env, settleablePayment(verified, { transfer: null }), signed, call);
  await recordFundingOutcome(env.DB, verified, signed.signature, settlement);
  return settlement;
}

async function signedFunding(config: Config, verified: VerifiedEscrowPayment): Promise<SignedPayment> {
  if (verified.sponsored) return signAsFeePayer(config, verified.tx);
  // Verified above: the buyer's signature is in slot 0 and it is the transaction id.
  return { wireBytes: verified.tx.wireBytes, signature: encodeBase58(verified.tx.signatures[0]!) };
}

/**
 * The preflight simulation of every send already refuses a funding that would fail, so simulating once more at
 * settle would not help: the fee payer only pays for a failed sponsored funding when the buyer's account changed
 * between the RPC node's preflight and execution (a race the buyer controls). Only a cap bounds that, so failed
 * sponsored fundings are counted per payer and sponsorship is refused once the cap is reached.
 */
async function sponsorshipRefusal(config: Config, db: D1Database, payer: string): Promise<PaymentRejection | null> {
  const cap = config.slaEscrow.sponsoredFailuresPerPayer;
  const failures = await countSponsoredFundingFailures(db, payer, Date.now() - SPONSORED_FAILURE_WINDOW_MS);
  if (failures < cap) return null;
  return rejection(
    "invalid_sla_escrow_payload_sponsorship_refused",
    `${failures} sponsored fundings of ${payer} failed on chain in the last 24 hours (cap ${cap}); this facilitator pays no more network fees for it for now: build the funding without facilitatorPaysTransactionFees and pay the fee as the buyer`,
    { payer },
  );
}

/**
 * After the settle: a funding the cluster accepted (confirmed, or sent and not confirmed yet) is handed to the keeper;
 * a sponsored funding that executed and failed counts against its payer. Neither write may turn a settle's answer
 * into an error: the payment itself is on the chain (or not) whatever the database says.
 */
async function recordFundingOutcome(db: D1Database, verified: VerifiedEscrowPayment, signature: string, settlement: Settlement): Promise<void> {
  const pending = !settlement.ok && "pending" in settlement;
  const accepted = settlement.ok || (pending && settlement.signature !== undefined);
  const failedOnChain = !settlement.ok && !pending && settlement.signature !== undefined && settlement.reason !== "duplicate_settlement";
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
    log("error", accepted ? "escrow_watch_write_failed" : "sponsored_failure_write_failed", { signature, paymentPda: verified.paymentPda, error });
  }
}
