import type { Config } from "../config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../config/networks";
import { publicPath, type EndpointInfo } from "../http/route-def";

/** `/agent-payTo-semantics.json`: how `payTo` is resolved per scheme, and the live mint allowlist. */
export function buildPayToSemantics(config: Config) {
  return {
    schemaVersion: "1.0.0",
    network: config.network,
    rules: [
      "payTo is always an on-chain PDA for the scheme, never the seller's bare wallet.",
      "exact: payTo is the seller's UniversalSettle SplitVault PDA (seeds \"vault\", seller wallet); SPL payments land in its associated token account, native SOL in the vault SOL storage PDA (seeds \"sol_storage\", vault).",
      "sla-escrow: payTo is the Escrow PDA (seeds \"escrow\", mint, bank) of the facilitator's bank.",
      "The seller's real wallet travels in extra.merchantWallet.",
      "POST /payment-required/enrich turns a bare wallet into the right payTo.",
    ],
    programs: { universalSettle: config.programs.universalSettle, slaEscrow: config.programs.slaEscrow },
    nativeSolAllowlistAddress: NATIVE_SOL_ALLOWLIST_ADDRESS,
    mintAllowlist: {
      enforced: config.allowedPaymentMints.length > 0,
      mints: config.allowedPaymentMints,
      note:
        config.allowedPaymentMints.length > 0
          ? "build, verify and settle reject assets outside this list"
          : "no allowlist configured: every mint is permitted",
    },
    knownMints: { USDC: config.mints.usdc, ...(config.mints.usdt ? { USDT: config.mints.usdt } : {}) },
  };
}

/** `/agent-tools.json`: one tool per HTTP endpoint, for agent frameworks that import tool catalogs. */
export function buildAgentTools(endpoints: readonly EndpointInfo[], origin: string) {
  return {
    schemaVersion: "1.0.0",
    tools: endpoints.map((e) => ({
      name: e.key,
      description: e.summary,
      method: e.method,
      url: origin + publicPath(e.path),
      tag: e.tag,
      ...(e.auth ? { auth: e.auth } : {}),
    })),
  };
}
