import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../chain/accounts";
import type { SellerAsset } from "../directory/sellers/seller-asset";
import type { Config } from "../platform/config/load-config";

/**
 * A rail's seller-facing views (docs/wire-notes.md "Sellers"): its object in `GET /sellers/{wallet}/preview` and its
 * answer to `GET /sellers/{wallet}/rails/{scheme}`, both built from derived addresses and account snapshots so the
 * two routes share one shape and one set of rules. directory/sellers/ composes them over the registry's rails.
 */
export interface RailSellerView {
  /**
   * `GET /sellers/{wallet}/rails/{scheme}`: the rail's one canonical payTo with its on-chain state (`asset` where the
   * rail has one per asset).
   */
  lookup?(config: Config, wallet: Address, asset: string | undefined): Promise<object>;
  /** Why the rail has no per-seller address to look up (the lookup's 400 says it after the scheme's name). */
  noLookup?: string;
  /**
   * Its part of the preview: the accounts it reads (one batch with the other rails'), then its object from them; null
   * where the rail is off here.
   */
  preview?(config: Config, wallet: Address): Promise<SellerPreviewPart | null>;
  /**
   * The addresses besides the seller's own wallet at which the rail pays the seller (a vault), for its payment history.
   */
  paidAddresses?(config: Config, wallet: Address): Promise<readonly Address[]>;
  /** How a seller registers as a verified provider paid through this rail (the first rail of the list that has one). */
  registration?: RailSellerRegistration;
}

/**
 * A seller's registration through a rail (POST /sellers/{wallet}/register): its `payTo` forms, whether the
 * configuration runs them, and whether the seller's accounts for the form exist on chain.
 */
export interface RailSellerRegistration {
  /** The form a registration that names none is for. */
  defaultForm(config: Config): string;
  /** Throws 503 `rail_not_enabled` when this deployment does not run `form`. */
  requireForm(config: Config, form: string): void;
  /**
   * Whether the seller's accounts for `form` and `asset` exist on chain (one batched read): the vault the provider
   * entry records (null for a form without one) and what is still missing (null: activation has landed).
   */
  activation(
    config: Config,
    wallet: Address,
    asset: SellerAsset,
    form: string,
  ): Promise<{ vaultPda: Address | null; missing: string | null }>;
  /** The 409 message of a register whose activation has not landed: what is missing and how to create it. */
  notActivatedMessage(form: string, wallet: Address, missing: string): string;
}

export type Accounts = ReadonlyMap<Address, AccountSnapshot | null>;

export interface SellerPreviewPart {
  reads: readonly Address[];
  view(accounts: Accounts): object;
  /**
   * The onboarding step its accounts decide (pr402's OnboardResponse lifecycle: the seller's vault and token account).
   */
  lifecycle?(accounts: Accounts): SellerLifecycleFacts;
}

export interface SellerLifecycleFacts {
  activated: boolean;
  /** The account the seller must create before it is paid, and the reason's machine name; null when none is missing. */
  blocked: { blockedReason: string; sellerTokenAccount: Address } | null;
}

/** pr402's SchemeOnboardInfo.status. */
export type RailStatus = "Sovereign" | "Active" | "NotProvisioned";
