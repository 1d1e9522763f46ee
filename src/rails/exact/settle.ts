import { paymentSpendRider } from "../../chain/fee-payer-budget/payment-spend";
import { signAsFeePayer } from "../../chain/fee-payer-signature";
import { readLandedTokenPayment } from "../../chain/landed-payment";
import type { Config } from "../../platform/config/load-config";
import {
  answerRecordedPayment,
  type SettleCall,
  type SettleOutcome,
  settleablePayment,
  settledWith,
  settleSignedPayment,
} from "../../settlement/settle-engine";
import type { AcceptedRequirements } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { provisionVaultJustInTime } from "./provision-just-in-time";
import { explainMissingRecipientAccount } from "./recipient-token-account";
import type { SmartWalletPaymentOnRecord, SmartWalletPaymentSentBefore } from "./smart-wallet/verify";
import { confirmJitProvision } from "./store/jit-provisions";
import { type VerifiedExactPayment, verifyExactPayment } from "./verify";
import { fundsOf } from "./verify-rules";

/**
 * Settles an `exact` payment exactly once: verify (no simulation: the send's preflight runs the same one), co-sign as
 * fee payer, then the shared settle engine. A vault that does not exist yet is provisioned just in time before the
 * first send, and the provisioning is counted once the payment confirmed. A wallet `payTo` needs nothing fronted
 * (its token account must exist, as the official facilitator requires): the same engine sends it exactly once.
 * What the payment costs the fee payer (its network fee, base and priority; a smart-wallet payment's larger compute
 * allowance is in the same figure) is booked in the exposure budget in the ledger claim's own transaction, before
 * anything is sent (fee-payer-budget/payment-spend.ts). A smart-wallet payment is verified by simulation here too (the
 * simulation is its verification) and reported paid only once the landed transaction shows the payee's account
 * credited (chain/landed-payment.ts).
 */
export async function settleExactPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  call: SettleCall,
): Promise<SettleOutcome> {
  const verified = await verifyExactPayment(config, body, accepted, { simulate: false });
  if (!verified.ok) {
    if ("sentBefore" in verified) return answerSentBefore(config, verified, call);
    return settledWith(verified);
  }
  const db = call.db;
  const signed = await signAsFeePayer(config, verified.tx);
  const fee = paymentSpendRider(config, {
    rail: "exact",
    kind: "payment_fee",
    messageHash: verified.messageHash,
    payer: verified.payer,
    seller: verified.merchantWallet,
    lamports: signed.feePayerFeeLamports,
  });
  const outcome = await settleSignedPayment(
    config,
    settleablePayment(verified, {
      funds: fundsOf(verified.transfer),
      riders: [fee],
      ...("smartWallet" in verified ? { checkLandedOutcome: landedPaymentCheck(config, verified) } : {}),
      ...(verified.form === "vault" && verified.needsProvisioning
        ? {
            beforeFirstSend: () => provisionVaultJustInTime(config, db, verified),
            onFirstConfirmation: (nowMs: number) =>
              confirmJitProvision(db, verified.merchantWallet, accepted.requirements.asset, nowMs),
          }
        : {}),
    }),
    signed,
    call,
  );
  return namingMissingRecipient(config, verified, outcome);
}

/**
 * A smart-wallet payment sent before (its simulation finds it processed, or its blockhash gone): the ledger's row
 * answers, as for any later call of a payment in the ledger — its stored failure with the signature, a seller's retry
 * of its success, a confirmation read from the landed transaction — and nothing new is booked or sent.
 */
async function answerSentBefore(
  config: Config,
  { sentBefore, ...chainRefusal }: SmartWalletPaymentSentBefore,
  call: SettleCall,
): Promise<SettleOutcome> {
  const signed = await signAsFeePayer(config, sentBefore.tx);
  const payment = {
    accepted: sentBefore.accepted,
    messageHash: sentBefore.messageHash,
    merchantWallet: sentBefore.merchantWallet,
    funds: "token",
    recentBlockhash: sentBefore.tx.recentBlockhash,
    instructionPrograms: sentBefore.tx.instructions.map((instruction) => instruction.programAddress),
    checkLandedOutcome: landedPaymentCheck(config, sentBefore),
  } as const;
  return answerRecordedPayment(config, payment, signed, call, chainRefusal);
}

/** A smart-wallet payment is reported paid only once the landed transaction shows the payee's account credited. */
function landedPaymentCheck(config: Config, payment: SmartWalletPaymentOnRecord) {
  return (signature: string) =>
    readLandedTokenPayment(config, signature, {
      destination: payment.destination,
      mint: payment.mint.address,
      amount: payment.accepted.amount,
      feePayer: config.feePayer.address,
    });
}

/**
 * A wallet payment the preflight refused (nothing sent) whose recipient verify did not read (its mint was cached): a
 * missing recipient token account is named, as /verify names it (./recipient-token-account.ts).
 */
async function namingMissingRecipient(
  config: Config,
  verified: VerifiedExactPayment,
  outcome: SettleOutcome,
): Promise<SettleOutcome> {
  const { settlement } = outcome;
  if (verified.form !== "wallet" || settlement.ok || settlement.reason !== "transaction_simulation_failed")
    return outcome;
  if ("signature" in settlement && settlement.signature !== undefined) return outcome;
  const { destination, merchantWallet, mint } = verified;
  const missing = await explainMissingRecipientAccount(config, {
    address: destination,
    owner: merchantWallet,
    mint: mint.address,
    tokenProgram: mint.tokenProgram,
  });
  return missing ? { ...outcome, settlement: { ...settlement, ...missing } } : outcome;
}
