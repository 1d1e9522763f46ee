import * as v from "valibot";
import { signatureStatus } from "../../chain/confirm";
import { rejectionForOnChainFailure } from "../../chain/transaction-rejection";
import type { Config } from "../../platform/config/load-config";
import { notFound } from "../../platform/errors/catalogue";
import { getSettlementBySignature, type SettlementRow } from "../../store/settlements";
import { type RouteDef, route } from "../route-def";
import { SettlementStatusResponseSchema } from "./settlements-responses";

const SettlementPathSchema = v.object({
  signature: v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, "must be a base58 transaction signature")),
});

/** Ledger state → public state: a claimed row whose transaction is not confirmed yet is `pending`. */
const PUBLIC_STATE = { submitting: "pending", pending: "pending", confirmed: "confirmed", failed: "failed" } as const;
type PublicState = (typeof PUBLIC_STATE)[keyof typeof PUBLIC_STATE];

/**
 * The ledger may be behind the chain: a settle whose success report D1 could not write, or whose send's answer was
 * lost, answered `settlement_pending` and left the row unconfirmed until the ledger catches up. So a row not recorded
 * as final is checked with one status read: landed is `confirmed`, executed and failed is `failed` (with the reason
 * the settle would have given, its fee paid). When the RPC cannot answer, the ledger's word stands.
 */
async function publicStateOf(
  config: Config,
  row: SettlementRow,
): Promise<{ state: PublicState; errorReason: string | null }> {
  const recorded = { state: PUBLIC_STATE[row.state], errorReason: row.errorReason };
  if (recorded.state !== "pending") return recorded;
  const onChain = await signatureStatus(config, row.signature).catch(() => null);
  if (onChain?.kind === "confirmed") return { state: "confirmed", errorReason: null };
  if (onChain?.kind === "failed")
    return { state: "failed", errorReason: rejectionForOnChainFailure(onChain.err, "token").reason };
  return recorded;
}

/**
 * `GET /settlements/{signature}`: what happened to a payment, for a seller or buyer who lost a response.
 * Public by design: everything it shows is on chain once the payment landed (no payer key, no seller secret).
 */
export function settlementRoutes(): RouteDef[] {
  return [
    route({
      key: "settlementStatus",
      reasons: ["not_found"],
      response: SettlementStatusResponseSchema,
      agentTool: {
        name: "get_settlement_status",
        description:
          "State of a settlement by its transaction signature: pending, confirmed or failed, with payer, payTo, " +
          "asset and amount.",
      },
      method: "GET",
      path: "/settlements/:signature",
      tag: "Payments",
      summary:
        "State of a settlement by transaction signature (pending | confirmed | failed); 404 when this facilitator " +
        "never settled it",
      params: SettlementPathSchema,
      handler: async (c, { params: { signature } }) => {
        const row = await getSettlementBySignature(c.env.DB, signature);
        // A row whose transaction the cluster never accepted is not public (its signature was never returned).
        if (!row || (row.state === "failed" && row.errorReason === "blockhash_expired"))
          throw notFound(`No settlement with signature ${signature}`);
        const { state, errorReason } = await publicStateOf(c.var.config, row);
        // null while only the chain knows (the ledger has no time for it yet).
        const settledAtMs = row.confirmedAtMs ?? (row.state === "confirmed" ? row.updatedAtMs : null);
        return c.json({
          signature: row.signature,
          state,
          scheme: row.scheme,
          network: row.network,
          payer: row.payer,
          payTo: row.payTo,
          merchantWallet: row.merchantWallet,
          asset: row.asset,
          amount: row.amount,
          settledAt: settledAtMs === null ? null : new Date(settledAtMs).toISOString(),
          ...(row.paymentId !== null ? { paymentId: row.paymentId } : {}),
          ...(state === "failed" ? { errorReason } : {}),
        });
      },
    }),
  ];
}
