import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { SERVICE_NAME } from "../../http/self-description/capabilities";
import type { Config } from "../../platform/config/load-config";
import { type RailModule, railSwitchesOf } from "../../rails/rail";
import { getProvider } from "../../store/providers";

export interface SellerPreview {
  wallet: Address;
  /** pr402's OnboardResponse.facilitator is a string (its name); the details moved to facilitatorInfo. */
  facilitator: string;
  /** Then each rail's program ids (`RailDescription.programIds`) as `<name>ProgramId`, in registry order. */
  facilitatorInfo: { feePayer: Address; network: string; [programId: string]: Address | string | null };
  /** Each previewing rail's object (`RailModule.seller.preview`), by scheme, in registry order. */
  schemes: Record<string, object>;
  /** The rails (or payTo forms) this deployment does not offer, and why (as /supported's notOffered). */
  notOffered: { scheme: string; payToForm?: string; reason: "rail_not_enabled"; why: string }[];
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
 * provider row is read from D1 in parallel. No side effect. `rails`: the app's.
 */
export async function buildSellerPreview(
  rails: readonly RailModule[],
  config: Config,
  db: D1Database,
  wallet: Address,
): Promise<SellerPreview> {
  const candidates = rails.flatMap((rail) =>
    rail.seller?.preview ? [{ scheme: rail.scheme, preview: rail.seller.preview }] : [],
  );
  // A rail switched off here previews nothing (null); notOffered says why.
  const built = await Promise.all(candidates.map(({ preview }) => preview(config, wallet)));
  const previewing = candidates.flatMap(({ scheme }, i) => (built[i] ? [{ scheme, part: built[i]! }] : []));
  const parts = previewing.map(({ part }) => part);
  const [accounts, provider] = await Promise.all([
    fetchAccounts(config, [...new Set(parts.flatMap((part) => part.reads))]),
    getProvider(db, wallet),
  ]);

  // pr402's lifecycle is the onboarding of the rail whose accounts decide it (the seller's own vault, or its token
  // account). No such rail runs here (both exact forms off): nothing to activate, so no next step.
  const facts = parts.find((part) => part.lifecycle)?.lifecycle?.(accounts) ?? null;
  const verified = provider !== null && provider.retiredAtMs === null;
  const nextStep = !facts
    ? undefined
    : facts.blocked
      ? "create_token_account"
      : !facts.activated
        ? "activate"
        : !verified
          ? "verify"
          : undefined;

  return {
    wallet,
    facilitator: SERVICE_NAME,
    facilitatorInfo: {
      feePayer: config.feePayer.address,
      network: config.network,
      ...Object.fromEntries(
        rails.flatMap((rail) =>
          Object.entries(rail.describe?.programIds?.(config) ?? {}).map(([name, id]) => [`${name}ProgramId`, id]),
        ),
      ),
    },
    schemes: Object.fromEntries(previewing.map(({ scheme, part }) => [scheme, part.view(accounts)])),
    notOffered: rails.flatMap((rail) =>
      railSwitchesOf(rail, config).flatMap(({ payToForm, setting }) =>
        setting.enabled
          ? []
          : [
              {
                scheme: rail.scheme,
                ...(payToForm ? { payToForm } : {}),
                reason: "rail_not_enabled" as const,
                why: setting.why,
              },
            ],
      ),
    ),
    lifecycle: {
      previewed: true,
      activated: facts?.activated ?? false,
      verified,
      ...(nextStep ? { nextStep } : {}),
      ...(facts?.blocked ?? {}),
    },
  };
}
