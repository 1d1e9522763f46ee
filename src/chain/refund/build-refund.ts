import { type Address, createNoopSigner, type Instruction, isOffCurveAddress } from "@solana/kit";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { badRequest } from "../../platform/errors/catalogue";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { Base58Address } from "../../x402/schemas";
import { fetchAccounts } from "../accounts";
import { BLOCKHASH_LIFETIME_SECONDS, getLatestBlockhash } from "../blockhash";
import { parseMint } from "../mint";
import { checkTokenSource } from "../source-funds";
import { MEMO_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../token-programs";
import { compileUnsignedTransaction, type UnsignedTransactionFields } from "../unsigned-transaction";

/**
 * `POST /build-refund-tx` (docs/facilitator-spec.md §4.2, docs/wire-notes.md "Builders"): an unsigned SPL refund from
 * the merchant back to the original payer. The merchant is the fee payer and the only signer; the facilitator signs
 * nothing. Instructions: create the payer's ATA (idempotent, the merchant pays its rent), TransferChecked, and an
 * optional Memo. Chain access: one batched read (mint + the merchant's token account under both token programs) next to
 * getLatestBlockhash, so a short balance is a 400 before the merchant pays a fee to learn it.
 */

/** Memo text is free-form but bounded: it rides in a ~1,232-byte transaction. */
const MAX_REFUND_MEMO_BYTES = 256;

export const BuildRefundRequestSchema = v.object({
  merchantWallet: Base58Address,
  payerWallet: Base58Address,
  mint: Base58Address,
  amount: v.pipe(
    v.union(
      [
        v.pipe(v.string(), v.regex(/^[0-9]{1,20}$/)),
        v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.transform(String)),
      ],
      "must be a decimal string of base units or an integer ≥ 1",
    ),
    v.transform((digits: string) => BigInt(digits)),
    v.check((n: bigint) => n >= 1n, "must be at least 1"),
    v.check((n: bigint) => n <= 0xffff_ffff_ffff_ffffn, "must fit in u64"),
  ),
  memo: v.optional(
    v.pipe(
      v.string("must be a string"),
      v.check(
        (text) => new TextEncoder().encode(text).length <= MAX_REFUND_MEMO_BYTES,
        `must be at most ${MAX_REFUND_MEMO_BYTES} bytes`,
      ),
    ),
  ),
});
export type BuildRefundRequest = v.InferOutput<typeof BuildRefundRequestSchema>;

export interface RefundBuildResponse extends UnsignedTransactionFields {
  mint: Address;
  tokenProgram: Address;
  sourceTokenAccount: Address;
  destinationTokenAccount: Address;
  amount: string;
  notes: string[];
}

export async function buildRefund(config: Config, request: BuildRefundRequest): Promise<RefundBuildResponse> {
  const { merchantWallet, payerWallet, mint, amount } = request;
  if (mint === NATIVE_SOL_ALLOWLIST_ADDRESS) {
    throw badRequest(
      "mint: /build-refund-tx builds SPL refunds; return native SOL with a plain System transfer from the merchant " +
        "wallet",
    );
  }
  const notAllowed = assetNotAllowedMessage(config, mint);
  if (notAllowed !== null) throw badRequest(notAllowed);
  if (merchantWallet === payerWallet)
    throw badRequest("payerWallet: a refund goes back to the original payer, not to the merchant itself");
  if (merchantWallet === config.feePayer.address)
    throw badRequest("merchantWallet: the facilitator's fee payer does not sign refunds");
  if (isOffCurveAddress(merchantWallet))
    throw badRequest(`merchantWallet: ${merchantWallet} is off the ed25519 curve (a PDA) and cannot sign`);

  const ata = (owner: Address, tokenProgram: Address) =>
    findAssociatedTokenPda({ owner, mint, tokenProgram }).then(([address]) => address);
  const [classicSource, source2022] = await Promise.all([
    ata(merchantWallet, TOKEN_PROGRAM_ADDRESS),
    ata(merchantWallet, TOKEN_2022_PROGRAM_ADDRESS),
  ]);
  const [accounts, blockhash] = await Promise.all([
    fetchAccounts(config, [mint, classicSource, source2022]),
    getLatestBlockhash(config),
  ]);
  const mintAccount = accounts.get(mint) ?? null;
  const mintInfo = mintAccount ? parseMint(mintAccount) : null;
  if (mintInfo === null)
    throw badRequest(`mint: ${mint} is not an initialized SPL Token or Token-2022 mint on this cluster`);
  const { tokenProgram, decimals } = mintInfo;
  const source = tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? source2022 : classicSource;
  checkTokenSource({
    account: accounts.get(source) ?? null,
    sourceAta: source,
    tokenProgram,
    amount,
    decimals,
    label: mint === config.mints.usdc ? "USDC" : `token ${mint}`,
  });
  const destination = await ata(payerWallet, tokenProgram);

  const merchant = createNoopSigner(merchantWallet);
  const instructions: Instruction[] = [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: merchant,
      ata: destination,
      owner: payerWallet,
      mint,
      tokenProgram,
    }),
    getTransferCheckedInstruction(
      { source, mint, destination, authority: merchant, amount, decimals },
      { programAddress: tokenProgram },
    ),
  ];
  if (request.memo !== undefined && request.memo.length > 0) {
    instructions.push({
      programAddress: MEMO_PROGRAM_ADDRESS,
      accounts: [],
      data: new TextEncoder().encode(request.memo),
    });
  }
  const built = compileUnsignedTransaction({ feePayer: merchantWallet, blockhash, instructions });
  return {
    x402Version: 2,
    transaction: built.transaction,
    payerSignatureIndex: 0,
    recentBlockhash: blockhash.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    feePayer: merchantWallet,
    payer: merchantWallet,
    signerPubkeys: built.signerPubkeys,
    mint,
    tokenProgram,
    sourceTokenAccount: source,
    destinationTokenAccount: destination,
    amount: amount.toString(),
    notes: [
      `Sign as the ` +
        `merchant ${merchantWallet} (signature index 0): you pay the network fee and, ` +
        `if ${payerWallet} has no token account yet, its rent.`,
      `Refunds ${amount} raw units from ${source} to ${destination} (owner ${payerWallet}) with TransferChecked.`,
      `The blockhash is valid for about ${BLOCKHASH_LIFETIME_SECONDS} seconds: sign and send promptly.`,
    ],
  };
}
