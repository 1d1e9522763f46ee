/**
 * An x402 `exact` client for a buyer whose tokens sit in a smart wallet, plugged into the official `x402Client` as a
 * scheme client: it builds the payment like the official `ExactSvmScheme` client (compute limit and price, a Memo
 * nonce or `extra.memo`, the facilitator's `extra.feePayer` as fee payer, the buyer's partial signature) but the
 * transfer is the wallet's own instructions, built by the wallet's SDK (`walletInstructions`). The facilitator then
 * verifies it by outcome (docs/guides/buyer.md "Paying from a smart wallet").
 */
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import type { PaymentPayloadResult, PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { findDefaultAsset } from "@x402/svm";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../src/chain/compute-budget";

const MEMO_PROGRAM = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

/** What the wallet needs to pay: the destination token account of `payTo` and the mint's program and decimals. */
export interface SmartWalletTransfer {
  mint: Address;
  destination: Address;
  amount: bigint;
  decimals: number;
  tokenProgram: Address;
}

export interface SmartWalletClientOptions {
  rpcUrl: string;
  /** The wallet SDK's instructions moving `transfer` out of the wallet (their signers attached). */
  walletInstructions(transfer: SmartWalletTransfer): Promise<Instruction[]>;
  /** Within the facilitator's smart-wallet cap (its /supported says so by `extra.features.smartWalletSupported`). */
  computeUnitLimit?: number;
}

export function smartWalletExactClient(options: SmartWalletClientOptions): SchemeNetworkClient {
  const rpc = createSolanaRpc(options.rpcUrl);
  return {
    scheme: "exact",
    // The official client's reverse lookup, so x402Client's spend controls know USDC.
    findDefaultAsset,
    async createPaymentPayload(x402Version: number, requirements: PaymentRequirements): Promise<PaymentPayloadResult> {
      const feePayer = requirements.extra?.feePayer;
      if (typeof feePayer !== "string") throw new Error("extra.feePayer is required for SVM payments");
      const mint = address(requirements.asset);
      const mintAccount = await rpc.getAccountInfo(mint, { encoding: "base64" }).send();
      if (!mintAccount.value) throw new Error(`mint ${mint} not found`);
      const tokenProgram = mintAccount.value.owner;
      const decimals = Buffer.from(mintAccount.value.data[0], "base64")[44]!;
      const [destination] = await findAssociatedTokenPda({ mint, owner: address(requirements.payTo), tokenProgram });
      const walletInstructions = await options.walletInstructions({
        mint,
        destination,
        amount: BigInt(requirements.amount),
        decimals,
        tokenProgram,
      });
      const memo =
        typeof requirements.extra?.memo === "string"
          ? requirements.extra.memo
          : Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
      const { value: blockhash } = await rpc.getLatestBlockhash().send();
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(address(feePayer), m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
        (m) =>
          appendTransactionMessageInstructions(
            [
              getSetComputeUnitLimitInstruction(options.computeUnitLimit ?? 200_000),
              getSetComputeUnitPriceInstruction(1n),
              ...walletInstructions,
              { programAddress: MEMO_PROGRAM, accounts: [], data: new TextEncoder().encode(memo) },
            ],
            m,
          ),
      );
      const signed = await partiallySignTransactionMessageWithSigners(message);
      return { x402Version, payload: { transaction: getBase64EncodedWireTransaction(signed) } };
    },
  };
}
