import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import { findAssociatedTokenPda } from "@solana-program/token";
import { fetchAccounts } from "../../chain/accounts";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { SELLER_TOKEN_ACCOUNT_MISSING } from "../../rails/exact/sweep/plan";
import { getProvider } from "../../store/providers";
import { deriveBankPda, deriveEscrowAddresses, deriveExactAddresses } from "./seller-addresses";
import {
  escrowAssetView,
  escrowRailView,
  exactRailView,
  readVault,
  vaultPdaPreview,
  type EscrowAssetView,
  type EscrowRailView,
  type ExactRailView,
  type VaultPdaPreview,
} from "./rail-views";
import { SERVICE_NAME } from "../../http/self-description/capabilities";

export interface SellerPreview {
  wallet: Address;
  /** pr402's OnboardResponse.facilitator is a string (its name); the details moved to facilitatorInfo. */
  facilitator: string;
  facilitatorInfo: { feePayer: Address; network: string; universalSettleProgramId: Address | null; slaEscrowProgramId: Address };
  schemes: {
    exact: ExactRailView;
    "sla-escrow": EscrowRailView & { vaultPdaPreviews: VaultPdaPreview[]; assets: { SOL: EscrowAssetView; USDC: EscrowAssetView } };
  };
  lifecycle: {
    previewed: true;
    activated: boolean;
    verified: boolean;
    /** create_token_account: the USDC vault is active but the seller has no USDC token account, so sweeps skip it. */
    nextStep?: "activate" | "create_token_account" | "verify";
    /** With nextStep create_token_account: `seller_token_account_missing` and the account to create. */
    blockedReason?: typeof SELLER_TOKEN_ACCOUNT_MISSING;
    sellerTokenAccount?: Address;
  };
}

/**
 * `GET /sellers/{wallet}/preview` (docs/facilitator-spec.md §2.6, §3.1): every rail address of the wallet with its on-chain state,
 * read in ONE batched getMultipleAccounts (vault, UniversalSettle Config, bank, SOL and USDC escrows) while the
 * provider row is read from D1 in parallel. No side effect.
 */
export async function buildSellerPreview(config: Config, db: D1Database, wallet: Address): Promise<SellerPreview> {
  const bankPda = await deriveBankPda(config);
  const [exact, solEscrow, usdcEscrow] = await Promise.all([
    deriveExactAddresses(config, wallet),
    deriveEscrowAddresses(config, bankPda, "SOL", config.mints.usdc),
    deriveEscrowAddresses(config, bankPda, "USDC", config.mints.usdc),
  ]);
  const usdcAtas = await usdcTokenAccounts(config, wallet, exact.vaultPda);
  const [accounts, provider] = await Promise.all([
    fetchAccounts(config, [exact.vaultPda, exact.configPda, bankPda, solEscrow.escrowPda, usdcEscrow.escrowPda, ...usdcAtas.vault, ...usdcAtas.seller]),
    getProvider(db, wallet),
  ]);

  const escrowProgram = config.programs.slaEscrow;
  const sol = escrowAssetView(solEscrow, escrowProgram, accounts);
  const usdc = escrowAssetView(usdcEscrow, escrowProgram, accounts);
  const activated = readVault(accounts, exact) !== null;
  const verified = provider !== null && provider.retiredAtMs === null;
  // Sweeps never create the seller's token account (it could be closed for its rent and created again).
  const usdcRailActive = usdcAtas.vault.some((ata) => accounts.get(ata));
  const sellerUsdcAta = usdcAtas.seller.find((ata) => accounts.get(ata)) ?? null;
  const missingTokenAccount = activated && usdcRailActive && sellerUsdcAta === null;
  const nextStep = !activated ? "activate" : missingTokenAccount ? "create_token_account" : !verified ? "verify" : undefined;
  const blocked = missingTokenAccount ? { blockedReason: SELLER_TOKEN_ACCOUNT_MISSING, sellerTokenAccount: usdcAtas.seller[0]! } : {};

  return {
    wallet,
    facilitator: SERVICE_NAME,
    facilitatorInfo: {
      feePayer: config.feePayer.address,
      network: config.network,
      universalSettleProgramId: config.programs.universalSettle,
      slaEscrowProgramId: escrowProgram,
    },
    schemes: {
      exact: exactRailView(wallet, exact, accounts),
      // As pr402's preview: vaultPda (and its storage) is the SOL escrow, every asset's escrow is in vaultPdaPreviews;
      // payTo stays the USDC escrow, the asset most sellers price in (payToResolve says to look it up per asset).
      "sla-escrow": {
        ...escrowRailView(wallet, escrowProgram, bankPda, sol, accounts),
        payTo: usdc.escrowPda,
        vaultPdaPreviews: [vaultPdaPreview(sol), vaultPdaPreview(usdc)],
        assets: { SOL: sol, USDC: usdc },
      },
    },
    lifecycle: { previewed: true, activated, verified, ...(nextStep ? { nextStep } : {}), ...blocked },
  };
}

/** The vault's and the seller's USDC token account under each token program (which one USDC uses is not read here). */
async function usdcTokenAccounts(config: Config, seller: Address, vault: Address): Promise<{ vault: Address[]; seller: Address[] }> {
  const both = (owner: Address) =>
    Promise.all([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map(async (tokenProgram) => (await findAssociatedTokenPda({ owner, mint: config.mints.usdc, tokenProgram }))[0]));
  const [vaultAtas, sellerAtas] = await Promise.all([both(vault), both(seller)]);
  return { vault: vaultAtas, seller: sellerAtas };
}
