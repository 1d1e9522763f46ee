import type { Config } from "../../platform/config/load-config";
import { refused } from "../../platform/errors/catalogue";
import type { RailModule } from "../../rails/rail";
import { enrichReasonsOf, enrichWithRails } from "../../rails/registry";
import { withMintAddresses } from "../../x402/asset-symbols";
import { type PaymentRequiredBody, PaymentRequiredSchema } from "../../x402/schemas";
import type { AppContext } from "../context";
import { publicPath, type RouteDef, route } from "../route-def";

/**
 * The seller transform: a naive 402 body in, the same body paying this facilitator's rails out (both rails), at
 * `/payment-required/enrich` and at Faremeter's `/accepts`.
 */
export function paymentRequiredRoutes(rails: readonly RailModule[]): RouteDef[] {
  const enrichReasons = enrichReasonsOf(rails);
  return [
    route({
      key: "paymentRequiredEnrichInfo",
      method: "GET",
      path: "/payment-required/enrich",
      tag: "Sellers",
      summary:
        "What POST /payment-required/enrich does, with a request example for this deployment (pr402 serves the same " +
        "GET)",
      handler: (c) => c.json(describeEnrich(rails, c.var.config.network, c.var.config.feePayer.address)),
    }),
    route({
      key: "paymentRequiredEnrich",
      method: "POST",
      path: "/payment-required/enrich",
      tag: "Sellers",
      summary:
        "Rewrite a naive 402 body: exact lines pay the seller's vault PDA, sla-escrow lines the Escrow PDA, each " +
        "with this facilitator's extra",
      body: PaymentRequiredSchema,
      // An anonymous read of the chain (one batched account read): under the per-client read limit like the GETs.
      limit: "read",
      handler: async (c, { body }) => {
        refuseWithoutOwnLine(c.var.config, body);
        return c.json(await enrich(rails, c, body));
      },
      reasons: ["no_line_for_facilitator", ...enrichReasons],
    }),
    /*
     * Faremeter's facilitator protocol (`@faremeter/middleware` 0.22 `createHTTPFacilitatorHandler`). The middleware
     * posts `{x402Version: 2, resource, accepts}` built from the seller's configuration and reads back an x402 v2
     * PaymentRequired whose `accepts` it serves in its 402: exactly the enrichment, under the path Faremeter sellers
     * already call, so a Faremeter seller switches facilitators by changing only the URL.
     */
    route({
      key: "faremeterAccepts",
      method: "POST",
      path: "/accepts",
      tag: "Sellers",
      summary:
        "Faremeter facilitator protocol: enrich the seller's accepts[] (same transform as /payment-required/enrich)",
      body: PaymentRequiredSchema,
      limit: "read", // the same anonymous chain read as /payment-required/enrich, under the same limit
      reasons: enrichReasons,
      handler: async (c, { body }) => c.json(await enrich(rails, c, body)),
    }),
  ];
}

/**
 * Other networks' lines pass through untouched (a multi-network 402 keeps them for their own facilitators), but a body
 * with no line for this network was sent to the wrong facilitator: say so instead of echoing it unchanged. Faremeter's
 * `/accepts` keeps echoing (its middleware asks every facilitator it knows).
 */
function refuseWithoutOwnLine(config: Config, body: PaymentRequiredBody): void {
  const networks = body.accepts.map((line) =>
    typeof line === "object" && line !== null && "network" in line ? line.network : undefined,
  );
  if (networks.some((network) => network === undefined || network === config.network)) return;
  throw refused(
    "no_line_for_facilitator",
    `accepts: no line is ` +
      `for ${config.network}, the only network this facilitator serves (lines ` +
      `for ${[...new Set(networks.map(String))].join(", ")}); ` +
      `add a line with network "${config.network}" and your Solana wallet as payTo`,
  );
}

/** Asset symbols become mints first (as the seller routes take "USDC"), then each rail enriches its own lines. */
async function enrich(rails: readonly RailModule[], c: AppContext, body: PaymentRequiredBody) {
  return enrichWithRails(rails, c.var.config, withMintAddresses(c.var.config, body), c.get("correlationId"));
}

/**
 * The self-description pr402 answers on GET (public/openapi.json facilitatorPaymentRequiredEnrichInfo), in our words.
 */
function describeEnrich(rails: readonly RailModule[], network: string, feePayer: string) {
  const enriching = rails.filter((rail) => rail.describe?.enrich);
  return {
    endpoint: publicPath("/payment-required/enrich"),
    method: "POST",
    contentType: "application/json",
    sideEffect: "none: a pure transform, nothing is stored or sent on chain",
    description:
      "Send the PaymentRequired body your server would answer with HTTP 402, with your own wallet as payTo. " +
      enriching.map((rail) => rail.describe!.enrich!.sentence).join("") +
      " A line below its rail's minimum payment is refused with the reason /verify would give and the number " +
      "(minimumAmount).",
    schemes: Object.fromEntries(enriching.map((rail) => [rail.scheme, rail.describe!.enrich!.payTo])),
    feePayer,
    requestExample: {
      x402Version: 2,
      resource: { url: "https://api.example.com/report", description: "One report", mimeType: "application/json" },
      accepts: [
        {
          scheme: enriching[0]?.scheme,
          network,
          asset: "<mint>",
          amount: "10000",
          payTo: "<your wallet>",
          maxTimeoutSeconds: 60,
          extra: {},
        },
      ],
    },
  };
}
