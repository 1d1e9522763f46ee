import type { Address } from "@solana/kit";
import type { Config } from "../platform/config/load-config";
import { log } from "../platform/observability/log";
import { type PaymentRejection, rejection } from "../x402/payment-verdict";
import { rpcCall } from "./rpc";

interface TokenBalance {
  accountIndex: number;
  mint: string;
  uiTokenAmount: { amount: string };
}

interface LandedTransaction {
  meta: {
    err: unknown;
    fee: number | string;
    preBalances: (number | string)[];
    postBalances: (number | string)[];
    preTokenBalances?: TokenBalance[] | null;
    postTokenBalances?: TokenBalance[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
  transaction: { message: { accountKeys: string[] } };
}

export interface ExpectedLandedPayment {
  destination: Address;
  mint: Address;
  amount: bigint;
  feePayer: Address;
}

/**
 * What a confirmed transaction did to the payee's token account, read from the node's record of it (one getTransaction
 * at confirmed): `paid` when the account gained at least `amount` of the mint. A payment verified by simulating another
 * program can execute differently (a branch on the slot or the clock, state changed in between): this is the check
 * that the seller was paid before anyone hears so. The fee payer's own balance must have dropped by exactly the fee;
 * anything more is logged as an incident (it cannot be undone, and the seller was still paid).
 */
export async function readLandedTokenPayment(
  config: Config,
  signature: string,
  expected: ExpectedLandedPayment,
): Promise<"paid" | "unknown" | PaymentRejection> {
  const landed = await rpcCall<LandedTransaction | null>(config, "getTransaction", [
    signature,
    { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  if (!landed?.meta) return "unknown";
  const { meta } = landed;
  const keys = [
    ...landed.transaction.message.accountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? []),
  ];
  const feePayerLoss = BigInt(meta.preBalances[0] ?? 0) - BigInt(meta.postBalances[0] ?? 0);
  if (keys[0] === expected.feePayer && feePayerLoss > BigInt(meta.fee)) {
    log("error", "fee_payer_charged_beyond_fee", { signature, lossLamports: feePayerLoss, feeLamports: meta.fee });
  }
  const index = keys.indexOf(expected.destination);
  const balanceOf = (balances: TokenBalance[] | null | undefined) =>
    BigInt(
      balances?.find((balance) => balance.accountIndex === index && balance.mint === expected.mint)?.uiTokenAmount
        .amount ?? 0,
    );
  const received = index < 0 ? 0n : balanceOf(meta.postTokenBalances) - balanceOf(meta.preTokenBalances);
  if (meta.err === null && received >= expected.amount) return "paid";
  return rejection(
    "post_settlement_transfer_not_confirmed",
    meta.err === null
      ? `Transaction ${signature} landed, ` +
          `but ${expected.destination} received ${received} of ${expected.mint}, ` +
          `not ${expected.amount}: the wallet program did not do at execution what its simulation did. Do not deliver`
      : `Transaction ${signature} failed on chain; nothing was paid`,
  );
}
