import { CLUSTERS } from "../../../src/platform/config/networks";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../src/rails/sla-escrow/cluster-defaults";

/**
 * `[env.production]` as an operator runs it without a UniversalSettle program id: mainnet, no demo oracle, and the
 * operator's own SLA-Escrow program and USDC mint — here the local chain's, which impersonates devnet. The vault form
 * of `exact` is off; tests add `SVC_EXACT_WALLET_PAYTO` to offer the wallet form.
 */
export const PRODUCTION_WITHOUT_UNIVERSAL_SETTLE = {
  ENVIRONMENT: "production",
  SOLANA_CLUSTER: "mainnet",
  SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
  UNIVERSAL_SETTLE_PROGRAM_ID: "",
  SLA_ESCROW_PROGRAM_ID: SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId,
  USDC_MINT: CLUSTERS.devnet.usdcMint,
  USDT_MINT: "",
  SVC_ALLOWED_PAYMENT_MINTS: "",
};

/** The same, with the wallet `payTo` form opted in: the only form of `exact` such a deployment offers. */
export const WALLET_FORM_ONLY = { ...PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, SVC_EXACT_WALLET_PAYTO: "true" };
