import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { type MintInfo, parseMint } from "../../chain/mint";
import { simulateSignedPayment } from "../../chain/simulate";
import type { DecodedTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { explainChainRefusal } from "../../settlement/already-settled";
import { type AcceptedRequirements, type PaymentRejection, rejection } from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { buyerSignatureRefusal } from "./buyer-signatures";
import { cachedMint, rememberMint } from "./chain-cache";
import { decodeExactPayment } from "./decode-payment";
import { EXACT_BELOW_MINIMUM_REASON, exactBelowMinimumMessage, minimumPaymentRaw } from "./minimum-amount";
import { mintRefusal } from "./payment-mint";
import { explainMissingRecipientAccount, missingRecipientAccount } from "./recipient-token-account";
import { type VerifiedSmartWalletPayment, verifySmartWalletPayment } from "./smart-wallet/verify";
import { associatedTokenAccountOf } from "./vault-addresses";
import { fundsOf, type PaymentTransfer } from "./verify-rules";

/** A wallet-`payTo` payment that passed every rule; settle signs exactly this transaction. */
export interface VerifiedWalletPayment {
  ok: true;
  form: "wallet";
  accepted: AcceptedRequirements;
  tx: DecodedTransaction;
  /** SHA-256 of the message bytes (hex): the settlement ledger's key. */
  messageHash: string;
  transfer: PaymentTransfer;
  payer: Address;
  /** The seller: `payTo` itself. */
  merchantWallet: Address;
  /** `payTo`'s associated token account for the mint. */
  destination: Address;
  mint: MintInfo;
}

/**
 * `exact` to the seller's own wallet, by the official `@x402/svm` exact facilitator's rules (the transfer is a
 * TransferChecked of exactly the amount, of the required mint, into the associated token account of `payTo` for that
 * mint under the transfer's token program; the facilitator's fee payer is no transfer authority; the memo matches
 * `extra.memo`; a simulation proves the rest; the destination account is never created here, and a missing one is
 * refused by name) and this facilitator's own fee-payer policy on top (./verify-rules.ts: the fee payer in no
 * instruction at all, exactly two signers, compute limit and price caps, deny-by-default instructions). The fee payer
 * fronts only the network fee, so nothing is booked in the exposure budget. Chain access: the mint (cached per
 * isolate) and the recipient's token account in one read beside the simulation; settle skips the simulation, as its
 * send's preflight runs the same one.
 */
export async function verifyWalletPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  owner: Address,
  options: { simulate: boolean; db?: D1Database },
): Promise<VerifiedWalletPayment | VerifiedSmartWalletPayment | PaymentRejection> {
  const { requirements, amount } = accepted;
  if (requirements.asset === NATIVE_SOL_ALLOWLIST_ADDRESS) {
    // The official exact scheme on Solana moves tokens only (TransferChecked); native SOL is paid into a vault.
    return rejection(
      "invalid_exact_svm_payload_wallet_pay_to_native_sol",
      "A wallet payTo is paid in a token (TransferChecked to its token account); native SOL is paid only into a " +
        "seller's vault",
    );
  }
  // The same floor as the vault form, the builder, enrich and /fee-quote: below it the fee payer would pay a network
  // fee for a payment not worth one.
  const minimum = await minimumPaymentRaw(config, requirements.asset, false);
  if (amount < minimum)
    return rejection(EXACT_BELOW_MINIMUM_REASON, exactBelowMinimumMessage(amount, minimum, requirements.asset));
  const mintAddress = requirements.asset as Address;

  const checked = await decodeExactPayment(config, body, accepted, { kind: "spl", mint: mintAddress });
  if (!checked.ok) return checked;
  if ("smartWallet" in checked)
    return verifySmartWalletPayment(config, accepted, checked, { form: "wallet", owner }, options);
  const { tx, messageHash, transfer } = checked;
  const payer = transfer.authority;

  const destination = await associatedTokenAccountOf(owner, mintAddress, transfer.tokenProgram!);
  if (transfer.destination !== destination) {
    return rejection(
      "invalid_exact_svm_payload_recipient_mismatch",
      `The transfer goes ` +
        `to ${transfer.destination}, not to ${destination}, the token account of payTo ${owner} for ${mintAddress}`,
      { payer },
    );
  }

  const badSignature = await buyerSignatureRefusal(tx, payer);
  if (badSignature) return badSignature;

  // The recipient's token account rides on the mint's read; with the mint cached nothing is read, and only a payment
  // the chain then refuses reads the recipient, to name a missing one (./recipient-token-account.ts).
  const recipient = { address: destination, owner, mint: mintAddress, tokenProgram: transfer.tokenProgram! };
  const knownMint = cachedMint(mintAddress);
  const [accounts, simulation] = await Promise.all([
    knownMint ? null : fetchAccounts(config, [mintAddress, destination]),
    options.simulate ? simulateSignedPayment(config, tx, fundsOf(transfer)) : Promise.resolve(null),
  ]);
  let mint = knownMint;
  if (!mint) {
    const account = accounts?.get(mintAddress) ?? null;
    mint = account ? parseMint(account) : null;
    if (!mint)
      return rejection(
        "invalid_exact_svm_payload_mint_mismatch",
        `Asset ${mintAddress} is not an initialized SPL Token or Token-2022 mint`,
        { payer },
      );
    rememberMint(mint);
  }
  const refusedMint = mintRefusal(mint, transfer);
  if (refusedMint) return rejection(refusedMint.reason, refusedMint.message, { payer });
  const missing = accounts
    ? missingRecipientAccount(accounts.get(destination), recipient)
    : simulation?.ok === false && simulation.reason === "transaction_simulation_failed"
      ? await explainMissingRecipientAccount(config, recipient)
      : null;
  if (missing) return rejection(missing.reason, missing.message, { payer });
  if (simulation && !simulation.ok) return explainChainRefusal(options.db, messageHash, { ...simulation, payer });
  return {
    ok: true,
    form: "wallet",
    accepted,
    tx,
    messageHash,
    transfer,
    payer,
    merchantWallet: owner,
    destination,
    mint,
  };
}
