import * as v from "valibot";
import type { Config } from "../../platform/config/load-config";
import { badRequest } from "../../platform/errors/catalogue";
import { rfc3339Micros } from "../../platform/paging/page-cursor";
import { clampPageLimit } from "../../platform/paging/page-limit";
import type { RailModule } from "../../rails/rail";
import { listPaymentAttemptsForMerchant, type PaymentAttemptRow } from "../../store/payment-attempts";
import { Base58Address } from "../../x402/schemas";
import { SignedFields } from "../wallet-challenges/challenge-inputs";
import { consumeChallenge, verifySignedChallenge } from "../wallet-challenges/signed-challenge";

export const SellerPaymentsBodySchema = v.object({
  wallet: Base58Address,
  ...SignedFields,
  limit: v.optional(v.pipe(v.number("must be an integer"), v.safeInteger("must be an integer"))),
  cursor: v.optional(
    v.pipe(
      v.string("must be the nextCursor of the previous page"),
      v.regex(/^[1-9]\d{0,15}$/, "must be the nextCursor of the previous page"),
    ),
  ),
});

/**
 * `POST /seller/payments`: the seller's verify/settle attempts, newest first. Owned = recorded with the wallet as
 * merchant, or paid to the wallet itself or to an address a rail pays it at (its vault PDA). The cursor is the last
 * entry's id (ids only grow, so pages never shift).
 */
export async function listSellerPayments(
  rails: readonly RailModule[],
  config: Config,
  db: D1Database,
  body: v.InferOutput<typeof SellerPaymentsBodySchema>,
  domain: string,
) {
  const wallet = body.wallet;
  const challenge = await verifySignedChallenge(config, {
    wallet,
    action: "seller:payments",
    message: body.message,
    signature: body.signature,
    domain,
  });
  await consumeChallenge(db, challenge);
  const limit = clampPageLimit(body.limit);
  const beforeId = body.cursor === undefined ? undefined : Number(body.cursor);
  if (beforeId !== undefined && !Number.isSafeInteger(beforeId))
    throw badRequest("cursor: must be the nextCursor of the previous page");
  // Paid to the wallet itself or to an address a rail pays the seller at (its vault).
  const railAddresses = await Promise.all(rails.map((rail) => rail.seller?.paidAddresses?.(config, wallet) ?? []));
  const payTos = [wallet, ...railAddresses.flat()];
  const rows = await listPaymentAttemptsForMerchant(db, wallet, payTos, limit, beforeId);
  return {
    wallet,
    entries: rows.map((row) => toPaymentEntry(row)),
    nextCursor: rows.length === limit ? String(rows[rows.length - 1]!.id) : null,
  };
}

/**
 * One attempt, with pr402's SellerPaymentEntry members (public/openapi.json) next to ours: pr402 keeps one row per
 * payment with its verify and settle halves, we keep one row per attempt, so each row fills the half it is.
 */
function toPaymentEntry(row: PaymentAttemptRow) {
  const at = rfc3339Micros(row.startedAtMs);
  const ok = row.outcome === "settled" || row.outcome === "valid";
  return {
    createdAt: at,
    ...(row.kind === "verify" ? { verifyAt: at, verifyOk: ok } : { settleAt: at, settleOk: ok }),
    ...(row.kind === "settle" && row.signature ? { settlementSignature: row.signature } : {}),
    ...(row.payer ? { payerWallet: row.payer } : {}),
    id: row.id,
    kind: row.kind,
    outcome: row.outcome,
    reason: row.reason,
    scheme: row.scheme,
    network: row.network,
    payer: row.payer,
    payTo: row.payTo,
    merchantWallet: row.merchantWallet,
    asset: row.asset,
    amount: row.amount,
    signature: row.signature,
    role: row.role,
    correlationId: row.correlationId,
    startedAt: rfc3339Micros(row.startedAtMs),
    durationMs: row.durationMs,
  };
}
