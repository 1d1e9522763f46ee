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
import { walletRailReads, walletRailView, type WalletRailView } from "./wallet-rail-view";

/** An exact `payTo` form this deployment does not offer, and why (as /supported's `notOffered`). */
export interface PayToFormNotOffered {
  scheme: "exact";
  payToForm: "vault" | "wallet";
  reason: "rail_not_enabled";
  why: string;
}

/** The exact rail where the vault form runs: pr402's vault block, the forms offered, and the wallet form's view when it runs too. */
export type ExactVaultPreview = ExactRailView & { payToForms: ("vault" | "wallet")[]; walletPayTo?: WalletRailView };
/** The exact rail where only the wallet form runs (no UniversalSettle program): the wallet view itself. */
export type ExactWalletPreview = WalletRailView & { payToForms: ["wallet"] };

export interface SellerPreview {
  wallet: Address;
  /** pr402's OnboardResponse.facilitator is a string (its name); the details moved to facilitatorInfo. */
  facilitator: string;
  facilitatorInfo: { feePayer: Address; network: string; universalSettleProgramId: Address | null; slaEscrowProgramId: Address };
  schemes: {
    /** Absent when neither exact form runs here (see notOffered). */
    exact?: ExactVaultPreview | ExactWalletPreview;
    "sla-escrow": EscrowRailView & { vaultPdaPreviews: VaultPdaPreview[]; assets: { SOL: EscrowAssetView; USDC: EscrowAssetView } };
  };
  notOffered: PayToFormNotOffered[];
  lifecycle: {
    previewed: true;
    /** The vault form: the vault exists. The wallet form alone: the wallet's USDC token account exists (nothing else to set up). */
    activated: boolean;
    verified: boolean;
    /**
     * create_token_account: the seller's USDC token account is missing (the vault form: sweeps skip the vault; the
     * wallet form: payments cannot land). No `activate` or `verify` without the vault form: both need a vault.
     */
    nextStep?: "activate" | "create_token_account" | "verify";
    /** With nextStep create_token_account: `seller_token_account_missing` and the account to create. */
    blockedReason?: typeof SELLER_TOKEN_ACCOUNT_MISSING;
    sellerTokenAccount?: Address;
  };
}

/**
 * `GET /sellers/{wallet}/preview` (docs/facilitator-spec.md §2.6, §3.1): every rail address of the wallet with its on-chain state,
 * read in ONE batched getMultipleAccounts (vault, UniversalSettle Config, bank, SOL and USDC escrows, the USDC token
 * accounts) while the provider row is read from D1 in parallel. No side effect. Without a UniversalSettle program the
 * exact rail shows its wallet `payTo` form (when SVC_EXACT_WALLET_PAYTO runs it) and `notOffered` says why no vault.
 */
export async function buildSellerPreview(config: Config, db: D1Database, wallet: Address): Promise<SellerPreview> {
  const { exactVault, exactWallet } = config.rails;
  const bankPda = await deriveBankPda(config);
  const [exact, solEscrow, usdcEscrow, walletReads] = await Promise.all([
    exactVault.enabled ? deriveExactAddresses(config, wallet) : null,
    deriveEscrowAddresses(config, bankPda, "SOL", config.mints.usdc),
    deriveEscrowAddresses(config, bankPda, "USDC", config.mints.usdc),
    exactWallet.enabled ? walletRailReads(config, wallet) : [],
  ]);
  const usdcAtas = exact ? await usdcTokenAccounts(config, wallet, exact.vaultPda) : null;
  const reads = [
    ...(exact ? [exact.vaultPda, exact.configPda] : []),
    bankPda,
    solEscrow.escrowPda,
    usdcEscrow.escrowPda,
    ...(usdcAtas ? [...usdcAtas.vault, ...usdcAtas.seller] : []),
    ...walletReads,
  ];
  const [accounts, provider] = await Promise.all([fetchAccounts(config, [...new Set(reads)]), getProvider(db, wallet)]);

  const escrowProgram = config.programs.slaEscrow;
  const sol = escrowAssetView(solEscrow, escrowProgram, accounts);
  const usdc = escrowAssetView(usdcEscrow, escrowProgram, accounts);
  const verified = provider !== null && provider.retiredAtMs === null;
  const walletView = exactWallet.enabled ? await walletRailView(config, wallet, accounts) : null;
  const payToForms = [...(exactVault.enabled ? ["vault" as const] : []), ...(walletView ? ["wallet" as const] : [])];

  let exactPreview: ExactVaultPreview | ExactWalletPreview | undefined;
  let lifecycle: SellerPreview["lifecycle"];
  if (exact && usdcAtas) {
    const activated = readVault(accounts, exact) !== null;
    // Sweeps never create the seller's token account (it could be closed for its rent and created again).
    const usdcRailActive = usdcAtas.vault.some((ata) => accounts.get(ata));
    const sellerUsdcAta = usdcAtas.seller.find((ata) => accounts.get(ata)) ?? null;
    const missingTokenAccount = activated && usdcRailActive && sellerUsdcAta === null;
    const nextStep = !activated ? "activate" : missingTokenAccount ? "create_token_account" : !verified ? "verify" : undefined;
    const blocked = missingTokenAccount ? { blockedReason: SELLER_TOKEN_ACCOUNT_MISSING, sellerTokenAccount: usdcAtas.seller[0]! } : {};
    exactPreview = { ...exactRailView(wallet, exact, accounts), payToForms, ...(walletView ? { walletPayTo: walletView } : {}) };
    lifecycle = { previewed: true, activated, verified, ...(nextStep ? { nextStep } : {}), ...blocked };
  } else if (walletView) {
    const ready = walletView.tokenAccount.exists;
    exactPreview = { ...walletView, payToForms: ["wallet"] };
    lifecycle = {
      previewed: true,
      activated: ready,
      verified,
      ...(ready ? {} : { nextStep: "create_token_account" as const, blockedReason: SELLER_TOKEN_ACCOUNT_MISSING, sellerTokenAccount: walletView.tokenAccount.address }),
    };
  } else {
    lifecycle = { previewed: true, activated: false, verified };
  }

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
      ...(exactPreview ? { exact: exactPreview } : {}),
      // As pr402's preview: vaultPda (and its storage) is the SOL escrow, every asset's escrow is in vaultPdaPreviews;
      // payTo stays the USDC escrow, the asset most sellers price in (payToResolve says to look it up per asset).
      "sla-escrow": {
        ...escrowRailView(wallet, escrowProgram, bankPda, sol, accounts),
        payTo: usdc.escrowPda,
        vaultPdaPreviews: [vaultPdaPreview(sol), vaultPdaPreview(usdc)],
        assets: { SOL: sol, USDC: usdc },
      },
    },
    notOffered: exactFormsNotOffered(config),
    lifecycle,
  };
}

/** The exact `payTo` forms switched off here, with the switch's own reason. */
function exactFormsNotOffered(config: Config): PayToFormNotOffered[] {
  const forms = [
    { payToForm: "vault" as const, setting: config.rails.exactVault },
    { payToForm: "wallet" as const, setting: config.rails.exactWallet },
  ];
  return forms.flatMap(({ payToForm, setting }) => (setting.enabled ? [] : [{ scheme: "exact" as const, payToForm, reason: "rail_not_enabled" as const, why: setting.why }]));
}

/** The vault's and the seller's USDC token account under each token program (which one USDC uses is not read here). */
async function usdcTokenAccounts(config: Config, seller: Address, vault: Address): Promise<{ vault: Address[]; seller: Address[] }> {
  const both = (owner: Address) =>
    Promise.all([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map(async (tokenProgram) => (await findAssociatedTokenPda({ owner, mint: config.mints.usdc, tokenProgram }))[0]));
  const [vaultAtas, sellerAtas] = await Promise.all([both(vault), both(seller)]);
  return { vault: vaultAtas, seller: sellerAtas };
}
