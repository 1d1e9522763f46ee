import * as v from "valibot";
import { route, type RouteDef } from "../route-def";
import { notFound } from "../../errors/catalogue";
import { getSettlementBySignature } from "../../store/settlements";
import { SettlementStatusResponseSchema } from "../responses/schemas";

const SettlementPathSchema = v.object({
  signature: v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, "must be a base58 transaction signature")),
});

/** Ledger state → public state: a claimed row whose transaction is not confirmed yet is `pending`. */
const PUBLIC_STATE = { submitting: "pending", pending: "pending", confirmed: "confirmed", failed: "failed" } as const;

/**
 * `GET /settlements/{signature}`: what happened to a payment, for a seller or buyer who lost a response.
 * Public by design: everything it shows is on chain once the payment landed (no payer key, no seller secret).
 */
export function settlementRoutes(): RouteDef[] {
  return [
    route({
      key: "settlementStatus",
      response: SettlementStatusResponseSchema,
      agentTool: { name: "get_settlement_status", description: "State of a settlement by its transaction signature: pending, confirmed or failed, with payer, payTo, asset and amount." },
      method: "GET",
      path: "/settlements/:signature",
      tag: "Payments",
      summary: "State of a settlement by transaction signature (pending | confirmed | failed); 404 when this facilitator never settled it",
      params: SettlementPathSchema,
      handler: async (c, { params: { signature } }) => {
        const row = await getSettlementBySignature(c.env.DB, signature);
        // A row whose transaction the cluster never accepted is not public (its signature was never returned).
        if (!row || (row.state === "failed" && row.errorReason === "blockhash_expired")) throw notFound(`No settlement with signature ${signature}`);
        const settledAtMs = row.confirmedAtMs ?? (row.state === "confirmed" ? row.updatedAtMs : null);
        return c.json({
          signature: row.signature,
          state: PUBLIC_STATE[row.state],
          scheme: row.scheme,
          network: row.network,
          payer: row.payer,
          payTo: row.payTo,
          merchantWallet: row.merchantWallet,
          asset: row.asset,
          amount: row.amount,
          settledAt: settledAtMs === null ? null : new Date(settledAtMs).toISOString(),
          ...(row.paymentId !== null ? { paymentId: row.paymentId } : {}),
          ...(row.state === "failed" ? { errorReason: row.errorReason } : {}),
        });
      },
    }),
  ];
}
