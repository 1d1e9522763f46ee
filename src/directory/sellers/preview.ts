import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { fetchAccounts } from "../../chain/accounts";
import { getProvider } from "../../store/providers";
import { RAILS } from "../../rails/registry";
import { SERVICE_NAME } from "../../http/self-description/capabilities";

export interface SellerPreview {
  wallet: Address;
  /** pr402's OnboardResponse.facilitator is a string (its name); the details moved to facilitatorInfo. */
  facilitator: string;
  facilitatorInfo: { feePayer: Address; network: string; universalSettleProgramId: Address | null; slaEscrowProgramId: Address };
  /** Each previewing rail's object (`RailModule.seller.preview`), by scheme, in registry order. */
  schemes: Record<string, object>;
  lifecycle: {
    previewed: true;
    activated: boolean;
    verified: boolean;
    /** create_token_account: the seller's vault is active but its token account is missing, so it is not paid. */
    nextStep?: "activate" | "create_token_account" | "verify";
    /** With nextStep create_token_account: the reason's machine name and the account to create. */
    blockedReason?: string;
    sellerTokenAccount?: Address;
  };
}

/**
 * `GET /sellers/{wallet}/preview` (docs/facilitator-spec.md §2.6, §3.1): every rail address of the wallet with its
 * on-chain state, each rail's part (`RailModule.seller.preview`) read in ONE batched getMultipleAccounts while the
 * provider row is read from D1 in parallel. No side effect.
 */
export async function buildSellerPreview(config: Config, db: D1Database, wallet: Address): Promise<SellerPreview> {
  const previewing = RAILS.flatMap((rail) => (rail.seller?.preview ? [{ scheme: rail.scheme, preview: rail.seller.preview }] : []));
  const parts = await Promise.all(previewing.map(({ preview }) => preview(config, wallet)));
  const [accounts, provider] = await Promise.all([fetchAccounts(config, parts.flatMap((part) => part.reads)), getProvider(db, wallet)]);

  // pr402's lifecycle is the onboarding of the rail whose accounts decide it (the seller's own vault).
  const facts = parts.find((part) => part.lifecycle)?.lifecycle?.(accounts) ?? { activated: false, blocked: null };
  const verified = provider !== null && provider.retiredAtMs === null;
  const nextStep = !facts.activated ? "activate" : facts.blocked ? "create_token_account" : !verified ? "verify" : undefined;

  return {
    wallet,
    facilitator: SERVICE_NAME,
    facilitatorInfo: {
      feePayer: config.feePayer.address,
      network: config.network,
      universalSettleProgramId: config.programs.universalSettle,
      slaEscrowProgramId: config.programs.slaEscrow,
    },
    schemes: Object.fromEntries(previewing.map(({ scheme }, i) => [scheme, parts[i]!.view(accounts)])),
    lifecycle: { previewed: true, activated: facts.activated, verified, ...(nextStep ? { nextStep } : {}), ...(facts.blocked ?? {}) },
  };
}
