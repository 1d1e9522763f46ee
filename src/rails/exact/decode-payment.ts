import { ledgerKeyOf } from "../../chain/ledger-key";
import { type DecodedTransaction, decodeWireTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { type AcceptedRequirements, type PaymentRejection, rejection } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { callsSmartWallet } from "./smart-wallet/rules";
import { checkExactTransaction, type ExpectedDestination, type PaymentTransfer } from "./verify-rules";

/** A payment transaction decoded and held to the exact rail's structural rules, with its ledger key. */
export interface CheckedExactTransaction {
  ok: true;
  tx: DecodedTransaction;
  messageHash: string;
  transfer: PaymentTransfer;
}

/**
 * A transaction the static layout refuses but that calls a smart-wallet program the operator accepts: it is judged by
 * what it does instead (./smart-wallet/verify.ts).
 */
export interface SmartWalletCandidate {
  ok: true;
  smartWallet: true;
  tx: DecodedTransaction;
  messageHash: string;
}

/**
 * The first steps of verifying either `payTo` form (vault or wallet): decode the buyer's transaction, compute its
 * ledger key, and apply the structural rules (./verify-rules.ts) with this deployment's fee payer and compute caps.
 * Both forms call this so the fee payer's isolation and the caps can never differ between them.
 */
export async function decodeExactPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  destination: ExpectedDestination,
): Promise<CheckedExactTransaction | SmartWalletCandidate | PaymentRejection> {
  const { requirements, amount } = accepted;
  const decoded = decodeWireTransaction(body.paymentPayload.payload.transaction);
  if (!decoded.ok) return rejection("invalid_exact_svm_payload_transaction_could_not_be_decoded", decoded.message);
  const tx = decoded.tx;
  const messageHash = await ledgerKeyOf(tx.messageBytes);
  const structural = checkExactTransaction(tx, {
    feePayer: config.feePayer.address,
    amount,
    maxComputeUnitLimit: config.compute.maxUnitLimit,
    maxComputeUnitPriceMicroLamports: config.compute.maxUnitPriceMicroLamports,
    destination,
    memo: typeof requirements.extra.memo === "string" ? requirements.extra.memo : undefined,
  });
  if (!structural.ok) {
    const smartWallet = config.exactSmartWallet;
    if (smartWallet.enabled && callsSmartWallet(tx, smartWallet.allowedPrograms))
      return { ok: true, smartWallet: true, tx, messageHash };
    return rejection(structural.rejection.reason, structural.rejection.message);
  }
  return { ok: true, tx, messageHash, transfer: structural.transfer };
}
