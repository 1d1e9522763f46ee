import type { Address } from "@solana/kit";
import { type AccountSnapshot, fetchAccounts } from "../../chain/accounts";
import { isBase58Address } from "../../chain/base58";
import { isBlockhashStillValid } from "../../chain/blockhash";
import { type MintInfo, parseMint } from "../../chain/mint";
import { simulateSignedPayment } from "../../chain/simulate";
import { readTokenSource } from "../../chain/token-account";
import type { DecodedTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { explainChainRefusal } from "../../settlement/already-settled";
import {
  type AcceptedRequirements,
  blockhashExpired,
  type PaymentRejection,
  rejection,
  selfPaymentRefusal,
} from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { buyerSignatureRefusal } from "./buyer-signatures";
import { cachedMint, isKnownToExist, rememberExists, rememberMint } from "./chain-cache";
import { decodeExactPayment } from "./decode-payment";
import { EXACT_BELOW_MINIMUM_REASON, exactBelowMinimumMessage, minimumPaymentRaw } from "./minimum-amount";
import { resolvePayToForm } from "./pay-to-form";
import { mintRefusal } from "./payment-mint";
import { decodeSplitVault } from "./program/accounts";
import {
  type SmartWalletPaymentSentBefore,
  type VerifiedSmartWalletPayment,
  verifySmartWalletPayment,
} from "./smart-wallet/verify";
import { vaultOf, vaultSolStorageOf, vaultTokenAccountOf } from "./vault-addresses";
import { classifyVaultTokenAccount } from "./vault-token-account";
import { type ExpectedDestination, fundsOf, type PaymentTransfer } from "./verify-rules";
import { type VerifiedWalletPayment, verifyWalletPayment } from "./verify-wallet-pay-to";

/** A vault payment that passed every rule; settle signs exactly this transaction. */
export interface VerifiedVaultPayment {
  ok: true;
  form: "vault";
  accepted: AcceptedRequirements;
  tx: DecodedTransaction;
  /** SHA-256 of the message bytes (hex): the settlement ledger's key. */
  messageHash: string;
  transfer: PaymentTransfer;
  payer: Address;
  merchantWallet: Address;
  vault: Address;
  /** Vault ATA (SPL) or vault SOL storage (SOL). */
  destination: Address;
  mint: MintInfo | null;
  /** The vault (and its token account) must be created by the facilitator before this payment can land. */
  needsProvisioning: boolean;
  /** The vault account was found (so only its token account is missing when `needsProvisioning`). */
  vaultExists: boolean;
}

/** An `exact` payment that passed every rule of its `payTo` form (./pay-to-form.ts), or of a smart-wallet payment. */
export type VerifiedExactPayment = VerifiedVaultPayment | VerifiedWalletPayment | VerifiedSmartWalletPayment;

/** A smart-wallet payment sent before is a refusal that /settle may hand to the ledger (./smart-wallet/verify.ts). */
export type ExactVerification = VerifiedExactPayment | SmartWalletPaymentSentBefore | PaymentRejection;

/**
 * Verifies an `exact` payment in order of cheapness: requirements, decode, structural rules, signatures,
 * then chain facts (cached where safe) and, when asked, a simulation at confirmed commitment. Settle skips
 * the simulation because its send runs the same simulation as preflight.
 */
export async function verifyExactPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  options: {
    simulate: boolean;
    /** /verify only: names the settlement when the chain refuses a landed payment (see explainChainRefusal). */
    db?: D1Database;
  },
): Promise<ExactVerification> {
  const verified = await verifyEitherForm(config, body, accepted, options);
  return (verified.ok && selfPaymentRefusal(verified.payer, verified.merchantWallet)) || verified;
}

async function verifyEitherForm(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  options: { simulate: boolean; db?: D1Database },
): Promise<ExactVerification> {
  const { requirements, amount } = accepted;
  const feePayer = config.feePayer.address;

  const advertisedFeePayer = requirements.extra.feePayer;
  if (advertisedFeePayer !== feePayer) {
    return rejection(
      advertisedFeePayer === undefined
        ? "invalid_exact_svm_payload_missing_fee_payer"
        : "invalid_exact_svm_fee_payer_not_managed_by_facilitator",
      advertisedFeePayer === undefined
        ? "extra.feePayer is missing; take it from /supported or enrich the 402 body"
        : `extra.feePayer ${String(advertisedFeePayer)} is not this facilitator's fee payer ${feePayer}`,
    );
  }
  if (!isBase58Address(requirements.payTo))
    return rejection("invalid_exact_svm_payload_recipient_mismatch", `payTo ${requirements.payTo} is not an address`);
  const resolved = await resolvePayToForm(config, requirements.payTo as Address, requirements.extra.merchantWallet);
  if (!resolved.ok) return resolved;
  if (resolved.form.kind === "wallet") return verifyWalletPayment(config, body, accepted, resolved.form.owner, options);
  const { programId, merchantWallet } = resolved.form;
  const vault = await vaultOf(programId, merchantWallet);
  if (requirements.payTo !== vault) {
    return rejection(
      "invalid_exact_svm_payload_recipient_mismatch",
      `payTo ${requirements.payTo} is not the UniversalSettle vault ${vault} of merchant ${merchantWallet}`,
    );
  }

  const isNativeSol = requirements.asset === NATIVE_SOL_ALLOWLIST_ADDRESS;
  const minimum = await minimumPaymentRaw(config, requirements.asset, isNativeSol);
  if (amount < minimum) {
    return rejection(EXACT_BELOW_MINIMUM_REASON, exactBelowMinimumMessage(amount, minimum, requirements.asset));
  }
  const expected: ExpectedDestination = isNativeSol
    ? { kind: "sol", solStorage: await vaultSolStorageOf(programId, vault) }
    : { kind: "spl", mint: requirements.asset };

  const checked = await decodeExactPayment(config, body, accepted, expected);
  if (!checked.ok) return checked;
  if ("smartWallet" in checked)
    return verifySmartWalletPayment(
      config,
      accepted,
      checked,
      { form: "vault", programId, vault, merchantWallet },
      options,
    );
  const { tx, messageHash, transfer } = checked;
  const payer = transfer.authority;

  const badSignature = await buyerSignatureRefusal(tx, payer);
  if (badSignature) return badSignature;

  const destination = isNativeSol
    ? expected.kind === "sol"
      ? expected.solStorage
      : transfer.destination
    : await vaultTokenAccountOf(vault, requirements.asset, transfer.tokenProgram!);
  if (transfer.destination !== destination) {
    return rejection(
      "invalid_exact_svm_payload_recipient_mismatch",
      `The transfer goes to ${transfer.destination}, not to the vault token account ${destination}`,
      { payer },
    );
  }

  // Chain facts: one batched read of whatever is not cached, in parallel with the simulation.
  const mintAddress = isNativeSol ? null : requirements.asset;
  const knownMint = mintAddress ? cachedMint(mintAddress) : null;
  const provisioned = isKnownToExist(vault) && isKnownToExist(destination);
  const toRead: Address[] = [];
  if (mintAddress && !knownMint) toRead.push(mintAddress);
  if (!provisioned) toRead.push(vault, destination, transfer.source);
  const [accounts, simulation] = await Promise.all([
    toRead.length > 0 ? fetchAccounts(config, toRead) : Promise.resolve(new Map<Address, AccountSnapshot | null>()),
    options.simulate ? simulateSignedPayment(config, tx, fundsOf(transfer)) : Promise.resolve(null),
  ]);

  let mint: MintInfo | null = knownMint;
  if (mintAddress && !mint) {
    const account = accounts.get(mintAddress);
    mint = account ? parseMint(account) : null;
    if (!mint)
      return rejection(
        "invalid_exact_svm_payload_mint_mismatch",
        `Asset ${mintAddress} is not an initialized SPL Token or Token-2022 mint`,
        { payer },
      );
    rememberMint(mint);
  }
  const refusedMint = mint ? mintRefusal(mint, transfer) : null;
  if (refusedMint) return rejection(refusedMint.reason, refusedMint.message, { payer });

  let needsProvisioning = false;
  if (!provisioned) {
    const vaultAccount = accounts.get(vault) ?? null;
    const destinationAccount = accounts.get(destination) ?? null;
    if (vaultAccount) {
      const decodedVault = vaultAccount.owner === programId ? decodeSplitVault(vaultAccount.data) : null;
      if (!decodedVault || decodedVault.seller !== merchantWallet) {
        return rejection(
          "invalid_exact_svm_payload_recipient_mismatch",
          `Account ${vault} is not the UniversalSettle vault of ${merchantWallet}`,
          { payer },
        );
      }
      rememberExists(vault);
    }
    let destinationReady = isNativeSol;
    if (!isNativeSol && transfer.tokenProgram) {
      const state = classifyVaultTokenAccount(destinationAccount, {
        tokenProgram: transfer.tokenProgram,
        mint: requirements.asset,
        owner: vault,
      });
      if (state === "squatted") {
        return rejection(
          "invalid_exact_svm_payload_vault_token_account_squatted",
          `The vault token account ` +
            `address ${destination} holds an account that is not an ` +
            `initialized ${requirements.asset} token account of vault ${vault}; the payment cannot land there`,
          { payer },
        );
      }
      destinationReady = state === "ready";
      if (destinationReady) rememberExists(destination);
    }
    needsProvisioning = !vaultAccount || !destinationReady;
    if (needsProvisioning) {
      // The payment cannot be simulated before the vault exists; check the buyer's funds from the account instead.
      const funds = checkSourceFunds(accounts.get(transfer.source) ?? null, transfer, amount);
      if (funds) return { ...funds, payer };
      // The simulation fails on the missing vault, but its lifetime verdict still holds; settle, which does not
      // simulate, asks the cluster directly — a vault is never fronted for a payment that cannot land.
      const lifetime = simulation
        ? lifetimeRejection(simulation)
        : (await isBlockhashStillValid(config, tx.recentBlockhash))
          ? null
          : blockhashExpired("refused");
      if (lifetime) return explainChainRefusal(options.db, messageHash, { ...lifetime, payer });
      return {
        ok: true,
        form: "vault",
        accepted,
        tx,
        messageHash,
        transfer,
        payer,
        merchantWallet,
        vault,
        destination,
        mint,
        needsProvisioning,
        vaultExists: vaultAccount !== null,
      };
    }
  }

  if (simulation && !simulation.ok) return explainChainRefusal(options.db, messageHash, { ...simulation, payer });
  return {
    ok: true,
    form: "vault",
    accepted,
    tx,
    messageHash,
    transfer,
    payer,
    merchantWallet,
    vault,
    destination,
    mint,
    needsProvisioning,
    vaultExists: true,
  };
}

function lifetimeRejection(simulation: { ok: true } | PaymentRejection): PaymentRejection | null {
  return !simulation.ok && (simulation.reason === "blockhash_expired" || simulation.reason === "duplicate_settlement")
    ? simulation
    : null;
}

/** The buyer's source can send `amount` (the token account's state and balance read as the builders read them). */
function checkSourceFunds(
  source: AccountSnapshot | null,
  transfer: PaymentTransfer,
  amount: bigint,
): PaymentRejection | null {
  if (!source) return rejection("insufficient_funds", `The buyer's source account ${transfer.source} does not exist`);
  if (transfer.kind === "sol") {
    return source.lamports >= amount
      ? null
      : rejection("insufficient_funds", `The buyer has ${source.lamports} lamports; the payment needs ${amount}`);
  }
  const token = transfer.tokenProgram ? readTokenSource(source, transfer.tokenProgram) : null;
  if (token === null)
    return rejection("insufficient_funds", `The buyer's source ${transfer.source} is not a token account`);
  if (token.state === "frozen")
    return rejection("insufficient_funds", `The buyer's token account ${transfer.source} is frozen`);
  const balance = token.balance;
  return balance >= amount
    ? null
    : rejection(
        "insufficient_funds",
        `The buyer's token account holds ${balance}; the payment needs ${amount} (missing ${amount - balance})`,
      );
}
