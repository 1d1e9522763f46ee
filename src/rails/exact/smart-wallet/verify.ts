import type { Address } from "@solana/kit";
import { type AccountSnapshot, fetchAccounts } from "../../../chain/accounts";
import { type MintInfo, parseMint } from "../../../chain/mint";
import { simulateWithInnerInstructions } from "../../../chain/simulate";
import type { DecodedTransaction } from "../../../chain/wire-transaction";
import type { Config } from "../../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../../platform/config/networks";
import { explainChainRefusal } from "../../../settlement/already-settled";
import { type AcceptedRequirements, type PaymentRejection, rejection } from "../../../x402/payment-verdict";
import { buyerSignatureRefusal } from "../buyer-signatures";
import { cachedMint, isKnownToExist, rememberExists, rememberMint } from "../chain-cache";
import type { SmartWalletCandidate } from "../decode-payment";
import { mintRefusal } from "../payment-mint";
import { decodeSplitVault } from "../program/accounts";
import { associatedTokenAccountOf } from "../vault-addresses";
import type { PaymentTransfer } from "../verify-rules";
import { checkSmartWalletTransaction, findSmartWalletPayment } from "./rules";

/**
 * Who receives a smart-wallet payment: a seller's own wallet, or a seller's UniversalSettle vault (which must exist).
 */
export type SmartWalletPayee =
  | { form: "wallet"; owner: Address }
  | { form: "vault"; programId: Address; vault: Address; merchantWallet: Address };

/** A smart-wallet payment that passed every rule, its transfer read from the simulation; settle signs exactly this. */
export interface VerifiedSmartWalletPayment {
  ok: true;
  form: "vault" | "wallet";
  smartWallet: true;
  accepted: AcceptedRequirements;
  tx: DecodedTransaction;
  messageHash: string;
  /** The TransferChecked the simulation showed: its authority (the wallet's PDA) is the payer. */
  transfer: PaymentTransfer;
  payer: Address;
  merchantWallet: Address;
  /** The payee's token account for the mint. */
  destination: Address;
  mint: MintInfo;
  needsProvisioning: false;
  vaultExists: true;
}

/** What settle needs of a smart-wallet payment sent before, to let the ledger answer it. */
export type SmartWalletPaymentOnRecord = Pick<
  VerifiedSmartWalletPayment,
  "accepted" | "tx" | "messageHash" | "merchantWallet" | "destination" | "mint"
>;

/**
 * At /settle, a smart-wallet payment whose simulation the chain refuses because it was sent before (already processed,
 * or its blockhash gone since). It is the chain's refusal (a caller that does not look further answers it), carrying
 * the payment for the ledger to answer instead when it holds it (settlement/settle-engine.ts answerRecordedPayment).
 */
export type SmartWalletPaymentSentBefore = PaymentRejection & { sentBefore: SmartWalletPaymentOnRecord };

/**
 * Verifies a smart-wallet payment by outcome (docs/money-rules.md "Smart-wallet payments"): the rules that need no
 * chain (./rules.ts), the buyer's signature, then one simulation with inner instructions beside one batched read of
 * what the isolate does not know yet (the mint, and the vault of a vault payee). Both /verify and /settle simulate:
 * the simulation is the verification. The payer is the transfer's authority, the wallet's PDA that owns the funds.
 */
export async function verifySmartWalletPayment(
  config: Config,
  accepted: AcceptedRequirements,
  candidate: SmartWalletCandidate,
  payee: SmartWalletPayee,
  options: { simulate: boolean; db?: D1Database },
): Promise<VerifiedSmartWalletPayment | SmartWalletPaymentSentBefore | PaymentRejection> {
  const { requirements, amount } = accepted;
  const { tx, messageHash } = candidate;
  if (requirements.asset === NATIVE_SOL_ALLOWLIST_ADDRESS) {
    return rejection(
      "invalid_exact_svm_smart_wallet_native_sol",
      "A smart-wallet payment moves a token (a TransferChecked inside the wallet program); native SOL is not " +
        "accepted from smart wallets",
    );
  }
  // The minimum payment was checked by the caller (verify.ts, verify-wallet-pay-to.ts) before decoding.

  const policy = config.exactSmartWallet;
  const refused = checkSmartWalletTransaction(tx, {
    feePayer: config.feePayer.address,
    allowedPrograms: policy.allowedPrograms,
    maxComputeUnits: policy.maxComputeUnits,
    maxPriorityFeeMicroLamports: policy.maxPriorityFeeMicroLamports,
    memo: typeof requirements.extra.memo === "string" ? requirements.extra.memo : undefined,
  });
  // The wallet's signing key, until the simulation names the wallet itself.
  const signer = tx.staticAccounts[1]!;
  if (refused) return rejection(refused.reason, refused.message, { payer: signer });
  const badSignature = await buyerSignatureRefusal(tx, signer);
  if (badSignature) return badSignature;

  const mintAddress = requirements.asset as Address;
  const knownMint = cachedMint(mintAddress);
  const toRead: Address[] = [];
  if (!knownMint) toRead.push(mintAddress);
  if (payee.form === "vault" && !isKnownToExist(payee.vault)) toRead.push(payee.vault);
  const [accounts, simulation] = await Promise.all([
    toRead.length > 0 ? fetchAccounts(config, toRead) : Promise.resolve(new Map<Address, AccountSnapshot | null>()),
    simulateWithInnerInstructions(config, tx, "token"),
  ]);

  let mint = knownMint;
  if (!mint) {
    const account = accounts.get(mintAddress) ?? null;
    mint = account ? parseMint(account) : null;
    if (!mint) {
      return rejection(
        "invalid_exact_svm_payload_mint_mismatch",
        `Asset ${mintAddress} is not an initialized SPL Token or Token-2022 mint`,
        { payer: signer },
      );
    }
    rememberMint(mint);
  }
  if (payee.form === "vault" && !isKnownToExist(payee.vault)) {
    const vaultAccount = accounts.get(payee.vault) ?? null;
    const decoded = vaultAccount?.owner === payee.programId ? decodeSplitVault(vaultAccount.data) : null;
    if (!vaultAccount) {
      return rejection(
        "vault_not_provisioned",
        `The seller's ` +
          `vault ${payee.vault} does not exist yet; a smart-wallet payment is accepted only into an existing vault`,
        { payer: signer },
      );
    }
    if (!decoded || decoded.seller !== payee.merchantWallet) {
      return rejection(
        "invalid_exact_svm_payload_recipient_mismatch",
        `Account ${payee.vault} is not the UniversalSettle vault of ${payee.merchantWallet}`,
        { payer: signer },
      );
    }
    rememberExists(payee.vault);
  }
  const owner = payee.form === "wallet" ? payee.owner : payee.vault;
  const destination = await associatedTokenAccountOf(owner, mintAddress, mint.tokenProgram);
  const merchantWallet = payee.form === "wallet" ? payee.owner : payee.merchantWallet;
  if (!simulation.ok) {
    const refusal = { ...simulation, payer: signer };
    // /settle (whose send would otherwise be the simulation): a payment sent before is the ledger's to answer.
    if (!options.simulate && sentBefore(refusal))
      return { ...refusal, sentBefore: { accepted, tx, messageHash, merchantWallet, destination, mint } };
    return explainChainRefusal(options.db, messageHash, refusal);
  }

  const found = findSmartWalletPayment(simulation.innerInstructions, {
    feePayer: config.feePayer.address,
    mint: mintAddress,
    destination,
    amount,
  });
  if (!found.ok) return rejection(found.rejection.reason, found.rejection.message, { payer: signer });
  const transfer = found.transfer;
  const payer = transfer.authority;
  const refusedMint = mintRefusal(mint, transfer);
  if (refusedMint) return rejection(refusedMint.reason, refusedMint.message, { payer });
  return {
    ok: true,
    form: payee.form,
    smartWallet: true,
    accepted,
    tx,
    messageHash,
    transfer,
    payer,
    merchantWallet,
    destination,
    mint,
    needsProvisioning: false,
    vaultExists: true,
  };
}

/** The chain's words for a transaction it has processed, or whose blockhash has gone since (it may have landed). */
function sentBefore(refusal: PaymentRejection): boolean {
  return refusal.reason === "duplicate_settlement" || refusal.reason === "blockhash_expired";
}
