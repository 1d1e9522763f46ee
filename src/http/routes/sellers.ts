import { listSellerPayments, SellerPaymentsBodySchema } from "../../directory/sellers/payment-history";
import { buildSellerPreview } from "../../directory/sellers/preview";
import { lookupSellerRail } from "../../directory/sellers/rail-lookup";
import { RegisterBodySchema, registerSeller } from "../../directory/sellers/register";
import {
  issueRegisterChallenge,
  REGISTER_TERMS_REASONS,
  RegisterChallengeBodySchema,
} from "../../directory/sellers/register-challenge";
import { RetireBodySchema, retireSeller } from "../../directory/sellers/retire";
import { RailPathSchema, RailQuerySchema, WalletPathSchema } from "../../directory/sellers/seller-inputs";
import { ChallengeQuerySchema } from "../../directory/wallet-challenges/challenge-inputs";
import { CHALLENGE_ISSUE_REASONS, issueChallenge } from "../../directory/wallet-challenges/signed-challenge";
import { RAIL_SWITCH_REASONS } from "../../platform/config/rail-switches";
import type { RailModule } from "../../rails/rail";
import { railRoutes } from "../../rails/registry";
import { challengeDomainOf } from "../challenge-domain";
import { type RouteDef, route } from "../route-def";
import {
  ChallengeResponseSchema,
  RailInfoSchema,
  RegisterChallengeResponseSchema,
  SellerPaymentsResponseSchema,
  SellerPreviewResponseSchema,
  SellerRegisterResponseSchema,
  SellerRetireResponseSchema,
} from "./sellers-responses";

/** Seller onboarding (docs/facilitator-spec.md §4.3): preview, rail lookup, sovereign activation, wallet challenges. */
export function sellerRoutes(rails: readonly RailModule[]): RouteDef[] {
  return [
    route({
      key: "sellerPreview",
      reasons: [...RAIL_SWITCH_REASONS],
      response: SellerPreviewResponseSchema,
      agentTool: {
        name: "preview_seller",
        description:
          "Every payTo address of a seller wallet per scheme (exact vault PDA, escrow PDAs) with its on-chain state " +
          "and the next onboarding step. No side effect.",
      },
      method: "GET",
      path: "/sellers/:wallet/preview",
      tag: "Sellers",
      summary:
        "Vault addresses, on-chain rail state and lifecycle (previewed → activated → verified) of a seller wallet",
      params: WalletPathSchema,
      handler: async (c, { params }) => c.json(await buildSellerPreview(rails, c.var.config, c.env.DB, params.wallet)),
    }),
    route({
      key: "sellerRails",
      reasons: [...RAIL_SWITCH_REASONS],
      method: "GET",
      path: "/sellers/:wallet/rails/:scheme",
      tag: "Sellers",
      summary:
        "The canonical payTo of one rail (exact, or sla-escrow with ?asset=<mint>, USDC by default); no database",
      params: RailPathSchema,
      query: RailQuerySchema,
      response: RailInfoSchema,
      handler: async (c, { params: { wallet, scheme }, query: { asset } }) =>
        c.json(await lookupSellerRail(rails, c.var.config, wallet, scheme, asset)),
    }),
    // The rails' seller activation routes (the exact rail's provisioning transaction).
    ...railRoutes("sellerOnboarding", rails),
    route({
      key: "sellerChallenge",
      reasons: [...CHALLENGE_ISSUE_REASONS],
      method: "GET",
      path: "/sellers/:wallet/challenge",
      tag: "Sellers",
      summary:
        "A one-time challenge for the wallet to sign (?action=, seller:any — every seller action, one use — when " +
        "omitted; ?ttlSeconds= may shorten it)",
      params: WalletPathSchema,
      query: ChallengeQuerySchema,
      response: ChallengeResponseSchema,
      handler: async (c, { params: { wallet }, query: { action, ttlSeconds } }) =>
        c.json(await issueChallenge(c.var.config, { wallet, action, domain: challengeDomainOf(c), ttlSeconds })),
    }),
    route({
      key: "sellerRegisterChallenge",
      reasons: [...CHALLENGE_ISSUE_REASONS, ...RAIL_SWITCH_REASONS],
      method: "POST",
      path: "/sellers/:wallet/register/challenge",
      tag: "Sellers",
      summary:
        "A one-time seller:register challenge issued for the registration's terms (asset, payToForm, discovery): the " +
        "message names them, so the wallet's signature covers them and the register takes only a body with the same " +
        "terms",
      params: WalletPathSchema,
      body: RegisterChallengeBodySchema,
      response: RegisterChallengeResponseSchema,
      // A challenge is an HMAC (nothing stored), as cheap as the GET one, under the same limit.
      limit: "read",
      handler: async (c, { params: { wallet }, body }) =>
        c.json(await issueRegisterChallenge(rails, c.var.config, wallet, body, challengeDomainOf(c))),
    }),
    route({
      key: "sellerRegister",
      reasons: [...RAIL_SWITCH_REASONS, "conflict", ...REGISTER_TERMS_REASONS],
      method: "POST",
      path: "/sellers/:wallet/register",
      tag: "Sellers",
      auth: "wallet-signature",
      summary:
        "Become a verified provider with a signed seller:register challenge (from POST …/register/challenge for " +
        "these terms; a plain GET …/challenge one registers only the default payToForm); answers the preview body " +
        "plus the provider entry; 409 until activation has landed on chain",
      response: SellerRegisterResponseSchema,
      params: WalletPathSchema,
      body: RegisterBodySchema,
      handler: async (c, { params: { wallet }, body }) => {
        const registered = await registerSeller(rails, c.var.config, c.env.DB, wallet, body, challengeDomainOf(c));
        // pr402 answers register with the preview body (OnboardResponse); our verified/provider/note ride along.
        return c.json({ ...(await buildSellerPreview(rails, c.var.config, c.env.DB, wallet)), ...registered });
      },
    }),
    route({
      key: "sellerRetire",
      method: "POST",
      path: "/sellers/:wallet/retire",
      tag: "Sellers",
      auth: "wallet-signature",
      summary: "Withdraw the verified registration with a signed seller:retire challenge (the vault is untouched)",
      params: WalletPathSchema,
      body: RetireBodySchema,
      response: SellerRetireResponseSchema,
      handler: async (c, { params: { wallet }, body }) =>
        c.json(await retireSeller(c.var.config, c.env.DB, wallet, body, challengeDomainOf(c))),
    }),
    route({
      key: "sellerPayments",
      reasons: [...RAIL_SWITCH_REASONS],
      method: "POST",
      path: "/seller/payments",
      tag: "Sellers",
      auth: "wallet-signature",
      summary:
        "The seller's verify/settle attempts, newest first, with a signed seller:payments challenge; ?limit 1..100, " +
        "cursor",
      body: SellerPaymentsBodySchema,
      response: SellerPaymentsResponseSchema,
      handler: async (c, { body }) =>
        c.json(await listSellerPayments(rails, c.var.config, c.env.DB, body, challengeDomainOf(c))),
    }),
  ];
}
