import { type Address, getPublicKeyFromAddress, type SignatureBytes, signBytes, verifySignature } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { fetchAccounts } from "../../chain/accounts";
import { getLatestBlockhash } from "../../chain/blockhash";
import { CLOCK_SYSVAR, chainClockOf } from "../../chain/chain-clock";
import { signFacilitatorTransaction } from "../../chain/facilitator-transaction";
import { ledgerKeyOf } from "../../chain/ledger-key";
import { type DecodedTransaction, decodeWireTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import {
  channelPaysTo,
  claimComputeBudget,
  distributeInstruction,
  settleAndSealInstructions,
  settleInstructions,
  signatureBytes,
} from "./channel-close";
import type { ChannelTerms } from "./channel-terms";
import { claimShape } from "./claim-rules";
import type { UptoPayload } from "./payload";
import { decodeChannel } from "./program/accounts";
import { encodeVoucherMessage, type Voucher } from "./program/voucher";

/**
 * The claim of an upto payment (or its zero-amount cancel): the voucher that authorizes the charge, and the one
 * transaction the facilitator signs for it — [compute budget, Ed25519 voucher proof, SettleAndSeal, Distribute], or,
 * when the buyer's token account cannot receive its refund, [compute budget, proof, Settle, Distribute]
 * (claim-rules.ts). The facilitator builds this transaction itself, so its fee payer appears only as payee (the signer
 * SettleAndSeal requires) and rent payer (which receives the escrow's rent back).
 */

export interface ClaimVoucher {
  voucher: Voucher;
  signer: Address;
  signature: Uint8Array;
}

/**
 * The voucher for `amount`: the seller's own (payload.voucherSignature, checked here against payload.authorizedSigner
 * before anything is signed), or — delegated mode — one this facilitator's authorizer signs for a caller that proved
 * it is the seller's server (the bearer token). Without either nobody may settle, not even a zero-amount cancel:
 * otherwise the buyer could cancel its own payment after being served.
 */
export async function claimVoucher(
  config: Config,
  payload: UptoPayload,
  terms: ChannelTerms,
  amount: bigint,
  callerCredential: string | null,
): Promise<ClaimVoucher | PaymentRejection> {
  const payer = payload.from;
  const voucher: Voucher = {
    channelId: payload.channelId as Address,
    cumulativeAmount: amount,
    expiresAt: BigInt(payload.expiresAt),
  };
  const message = encodeVoucherMessage(voucher) as Uint8Array<ArrayBuffer>;
  if (payload.voucherSignature !== undefined) {
    const signature = signatureBytes(payload.voucherSignature);
    const valid =
      signature !== null && (await verifyVoucherSignature(payload.authorizedSigner as Address, signature, message));
    if (!valid) {
      return rejection(
        "invalid_upto_svm_payload_voucher_signature",
        `payload.voucherSignature is ` +
          `not ${payload.authorizedSigner}'s signature over the voucher for ${amount} on channel ${payload.channelId}`,
        { payer },
      );
    }
    return { voucher, signer: payload.authorizedSigner as Address, signature: signature! };
  }
  const delegated = config.upto.delegated;
  if (!delegated)
    return rejection(
      "invalid_upto_svm_authorizer_not_configured",
      "The claim carries no voucherSignature and this facilitator holds no receiver authorizer key",
      { payer },
    );
  if (!terms.delegated || payload.authorizedSigner !== delegated.authorizer.address) {
    return rejection(
      "invalid_upto_svm_authorizer_address_mismatch",
      "The claim carries no voucherSignature and its authorizer is not this facilitator's",
      { payer },
    );
  }
  if (!isDelegatedCaller(config, callerCredential)) {
    return rejection(
      "invalid_upto_svm_delegated_settle_unauthenticated",
      "A delegated claim needs the seller's bearer token in the Authorization header",
      { payer },
    );
  }
  const signature = new Uint8Array(await signBytes(delegated.authorizer.keyPair.privateKey, message));
  return { voucher, signer: delegated.authorizer.address, signature };
}

async function verifyVoucherSignature(
  signer: Address,
  signature: Uint8Array,
  message: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  try {
    return await verifySignature(await getPublicKeyFromAddress(signer), signature as SignatureBytes, message);
  } catch {
    return false;
  }
}

/** Constant-time comparison of the caller's bearer token with the configured one. */
export function isDelegatedCaller(config: Config, callerCredential: string | null): boolean {
  const expected = config.upto.delegated?.settleToken;
  if (!expected || callerCredential === null) return false;
  const a = new TextEncoder().encode(callerCredential);
  const b = new TextEncoder().encode(expected);
  let difference = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) difference |= (a[i] ?? 0) ^ b[i]!;
  return difference === 0;
}

export interface SignedClaim {
  tx: DecodedTransaction;
  messageHash: string;
  signature: string;
  wireBase64: string;
}

/**
 * Reads the channel, payTo's and the buyer's token accounts and the chain's clock in one batch, applies the claim rules
 * (`claim-rules.ts`: a channel the program lets the payee seal, the one this payment opened, nothing paid to the
 * treasury), then builds and signs the claim on a fresh blockhash.
 */
export async function buildSignedClaim(
  config: Config,
  payload: UptoPayload,
  terms: ChannelTerms,
  line: { payTo: Address; mint: Address; tokenProgram: Address },
  claim: ClaimVoucher,
): Promise<SignedClaim | PaymentRejection> {
  const { payTo, mint, tokenProgram } = line;
  const payer = payload.from as Address;
  const channelId = payload.channelId as Address;
  const ata = async (owner: Address) => (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0];
  const [{ payTokenAccount, buyerTokenAccount, accounts }, latest] = await Promise.all([
    Promise.all([ata(payTo), ata(payer)]).then(async ([payTokenAccount, buyerTokenAccount]) => ({
      payTokenAccount,
      buyerTokenAccount,
      accounts: await fetchAccounts(config, [channelId, payTokenAccount, buyerTokenAccount, CLOCK_SYSVAR]),
    })),
    getLatestBlockhash(config),
  ]);
  const account = accounts.get(channelId);
  const channel = account && account.owner === config.programs.paymentChannels ? decodeChannel(account.data) : null;
  const amount = claim.voucher.cumulativeAmount;
  const decided = claimShape(
    {
      channelId,
      channel,
      chainUnixSeconds: chainClockOf(accounts.get(CLOCK_SYSVAR) ?? null, Date.now()).unixSeconds,
      feePayer: config.feePayer.address,
      payer,
      mint,
      receiverAuthorizer: terms.receiverAuthorizer,
      ceiling: BigInt(payload.maxAmount),
      withdrawDelay: terms.withdrawDelay,
      splitPaysPayTo: channel !== null && (await channelPaysTo(channel, payTo)),
      payTo,
      payToAccount: { address: payTokenAccount, snapshot: accounts.get(payTokenAccount) ?? null },
      buyerAccount: { address: buyerTokenAccount, snapshot: accounts.get(buyerTokenAccount) ?? null },
      tokenProgram,
    },
    amount,
  );
  if (!decided.ok) return decided;

  const voucher = amount > 0n ? claim : null;
  const instructions = [
    ...claimComputeBudget(config),
    ...(decided.shape === "seal"
      ? settleAndSealInstructions(config, channelId, voucher)
      : settleInstructions(config, channelId, claim)),
    await distributeInstruction(config, channelId, channel!, payTo, tokenProgram),
  ];
  const signed = await signFacilitatorTransaction(config, latest, instructions);
  const decoded = decodeWireTransaction(signed.wireBase64);
  if (!decoded.ok) throw new Error(`the facilitator's own claim transaction does not decode: ${decoded.message}`);
  const messageHash = await ledgerKeyOf(decoded.tx.messageBytes);
  return { tx: decoded.tx, messageHash, signature: signed.signature, wireBase64: signed.wireBase64 };
}
