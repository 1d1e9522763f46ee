import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../chain/accounts";
import type { Config } from "../platform/config/load-config";

/**
 * A rail's seller-facing views (docs/wire-notes.md "Sellers"): its object in `GET /sellers/{wallet}/preview` and its
 * answer to `GET /sellers/{wallet}/rails/{scheme}`, both built from derived addresses and account snapshots so the
 * two routes share one shape and one set of rules. directory/sellers/ composes them over the registry's rails.
 */
export interface RailSellerView {
  /** `GET /sellers/{wallet}/rails/{scheme}`: the rail's one canonical payTo with its on-chain state (`asset` where the rail has one per asset). */
  lookup?(config: Config, wallet: Address, asset: string | undefined): Promise<object>;
  /** Why the rail has no per-seller address to look up (the lookup's 400 says it after the scheme's name). */
  noLookup?: string;
  /** Its part of the preview: the accounts it reads (one batch with the other rails'), then its object from them; null where the rail is off here. */
  preview?(config: Config, wallet: Address): Promise<SellerPreviewPart | null>;
}

export type Accounts = ReadonlyMap<Address, AccountSnapshot | null>;

export interface SellerPreviewPart {
  reads: readonly Address[];
  view(accounts: Accounts): object;
  /** The onboarding step its accounts decide (pr402's OnboardResponse lifecycle: the seller's vault and token account). */
  lifecycle?(accounts: Accounts): SellerLifecycleFacts;
}

export interface SellerLifecycleFacts {
  activated: boolean;
  /** The account the seller must create before it is paid, and the reason's machine name; null when none is missing. */
  blocked: { blockedReason: string; sellerTokenAccount: Address } | null;
}

/** pr402's SchemeOnboardInfo.status. */
export type RailStatus = "Sovereign" | "Active" | "NotProvisioned";
