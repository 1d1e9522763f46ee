import type { KeyPairSigner } from "@solana/kit";
import { expect } from "vitest";
import { signAndSend } from "./chain";
import { post as escrowPost, hex32 } from "./escrow-fixtures";
import { USDC } from "./payment-fixtures";

/** What the escrow keeper tests share: the operator's credentials, the payment they settle, the keeper's report. */

/** The operator routes' bearer token, as vitest.config.ts binds SVC_OPERATOR_TOKEN. */
export const OPERATOR_AUTH = { Authorization: "Bearer test-operator-token" };

/** The USDC escrow payment the keeper tests fund and settle. */
export const PAYMENT_AMOUNT = 2_000_000n;
/**
 * A verdict exists (the buyer's approval or the oracle's ruling) and the seeded oracle_fee_bps is 100: 1% of the amount
 * to the oracle, paid first (docs/sla-escrow-abi.md, ABI §5.3).
 */
export const ORACLE_TIP = 20_000n;
/**
 * Escrow fee on release: 100 bps of the full amount (SLA-Escrow ABI §7.3), at least the seeded 0.10 USDC minimum
 * (docs/facilitator-spec.md §8).
 */
export const RELEASE_FEE = 100_000n;

export interface KeeperItem {
  paymentPda: string;
  decision: string;
  action: string;
  signature: string | null;
  outcome: string;
  detail: string;
}

/** The body of POST /escrow-keeper. */
export interface KeeperReport {
  released: number;
  items: KeeperItem[];
}

/** The report's items about one payment. */
export const itemsFor = (report: KeeperReport, payment: string) => report.items.filter((i) => i.paymentPda === payment);

type Post = (path: string, json: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;

/**
 * The seller submits a delivery and the buyer approves it, each signing the transaction our builder returns: the
 * payment is then due for release. `post` is the Worker the builders are asked (the shared one by default).
 */
export async function deliverAndApprove(
  p: { buyer: KeyPairSigner; seller: KeyPairSigner; uidHex: string },
  post: Post = escrowPost,
) {
  const deliveryHash = hex32();
  const delivery = await post("/build-sla-escrow-submit-delivery-tx", {
    seller: p.seller.address,
    mint: USDC,
    paymentUidHex: p.uidHex,
    deliveryHash,
  });
  expect(delivery.status, JSON.stringify(delivery.body)).toBe(200);
  await signAndSend(delivery.body.transaction, [p.seller]);
  const approve = await post("/build-sla-escrow-approve-tx", {
    buyer: p.buyer.address,
    mint: USDC,
    paymentUidHex: p.uidHex,
    deliveryHash,
  });
  expect(approve.status, JSON.stringify(approve.body)).toBe(200);
  await signAndSend(approve.body.transaction, [p.buyer]);
}
