import type { Config } from "../../config/load-config";
import type { Env } from "../../env";
import { signAsFeePayer } from "../../solana/fee-payer-signature";
import { settleSignedPayment, settleablePayment, type SettleCall, type Settlement, type SignedPayment } from "../../settlement/settle-engine";
import type { AcceptedRequirements } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { verifyEscrowPayment, type VerifiedEscrowPayment } from "./verify";
import { watchEscrowPayment } from "../../store/escrow-watch";
import { encodeBase58 } from "../../solana/base58";

/**
 * Settles an `sla-escrow` funding exactly once, on the same ledger and engine as the exact rail. A sponsored funding
 * is co-signed by the fee payer and sent; a buyer-paid one is already complete and is sent as given (the facilitator
 * pays nothing) — or, when the buyer broadcast it already, the send reports it processed and settle confirms it.
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
  const signed = await signedFunding(config, verified);
  // Watched before the send, so the keeper releases or refunds it even if this call's answer is lost.
  await watchEscrowPayment(env.DB, { paymentPda: verified.paymentPda, mint: accepted.requirements.asset, fundingSignature: signed.signature }, Date.now());
  return settleSignedPayment(config, env, settleablePayment(verified, { transfer: null }), signed, call);
}

async function signedFunding(config: Config, verified: VerifiedEscrowPayment): Promise<SignedPayment> {
  if (verified.sponsored) return signAsFeePayer(config, verified.tx);
  // Verified above: the buyer's signature is in slot 0 and it is the transaction id.
  return { wireBytes: verified.tx.wireBytes, signature: encodeBase58(verified.tx.signatures[0]!) };
}
