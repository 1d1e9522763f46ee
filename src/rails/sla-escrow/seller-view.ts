import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { resolveSellerAsset, type SellerAsset } from "../../directory/sellers/seller-asset";
import type { Config } from "../../platform/config/load-config";
import type { Accounts, RailSellerView, RailStatus } from "../seller-view";
import { decodeBank, decodeEscrow } from "./program/accounts";
import { findBankPda, findEscrowPda, findEscrowSolStoragePda, NATIVE_SOL_ESCROW_MINT } from "./program/pda";

/**
 * The sla-escrow rail's seller view: the escrow of each asset under this facilitator's bank (shared by every seller;
 * the seller is named in FundPayment), in the preview and the rail lookup (`asset`: USDC by default).
 */
export const slaEscrowSellerView: RailSellerView = {
  lookup: (config, wallet, asset) => lookupEscrowRail(config, wallet, resolveSellerAsset(config, asset ?? "USDC")),
  async preview(config, wallet) {
    const bankPda = await deriveBankPda(config);
    const [solEscrow, usdcEscrow] = await Promise.all([
      deriveEscrowAddresses(config, bankPda, "SOL", config.mints.usdc),
      deriveEscrowAddresses(config, bankPda, "USDC", config.mints.usdc),
    ]);
    const escrowProgram = config.programs.slaEscrow;
    return {
      reads: [bankPda, solEscrow.escrowPda, usdcEscrow.escrowPda],
      view(accounts) {
        const sol = escrowAssetView(solEscrow, escrowProgram, accounts);
        const usdc = escrowAssetView(usdcEscrow, escrowProgram, accounts);
        // As pr402's preview: vaultPda (and its storage) is the SOL escrow, every asset's escrow is in
        // vaultPdaPreviews; payTo stays the USDC escrow, the asset most sellers price in (payToResolve says to look it
        // up per asset).
        return {
          ...escrowRailView(wallet, escrowProgram, bankPda, sol, accounts),
          payTo: usdc.escrowPda,
          vaultPdaPreviews: [vaultPdaPreview(sol), vaultPdaPreview(usdc)],
          assets: { SOL: sol, USDC: usdc },
        };
      },
    };
  },
};

/** `GET /sellers/{wallet}/rails/sla-escrow?asset=`: one batched read, no database. */
export async function lookupEscrowRail(
  config: Config,
  wallet: Address,
  asset: SellerAsset,
): Promise<EscrowRailView & { asset: string; assetMint: Address; escrow: EscrowAssetView }> {
  const bankPda = await deriveBankPda(config);
  const addresses = await deriveEscrowAddresses(config, bankPda, asset.isNativeSol ? "SOL" : asset.label, asset.mint);
  const accounts = await fetchAccounts(config, [bankPda, addresses.escrowPda]);
  const escrow = escrowAssetView(addresses, config.programs.slaEscrow, accounts);
  return {
    ...escrowRailView(wallet, config.programs.slaEscrow, bankPda, escrow, accounts),
    asset: asset.label,
    assetMint: addresses.mint,
    escrow,
  };
}

export interface EscrowAssetAddresses {
  asset: string;
  mint: Address;
  escrowPda: Address;
  solStoragePda: Address;
}

export async function deriveBankPda(config: Config): Promise<Address> {
  return (await findBankPda(config.programs.slaEscrow))[0];
}

/** The escrow of one mint under this facilitator's bank (the `sla-escrow` payTo is shared by every seller). */
export async function deriveEscrowAddresses(
  config: Config,
  bank: Address,
  asset: string,
  mint: Address,
): Promise<EscrowAssetAddresses> {
  const programId = config.programs.slaEscrow;
  const escrowMint = asset === "SOL" ? NATIVE_SOL_ESCROW_MINT : mint;
  const [escrowPda] = await findEscrowPda(programId, escrowMint, bank);
  const [solStoragePda] = await findEscrowSolStoragePda(programId, escrowMint, bank, escrowPda);
  return { asset, mint: escrowMint, escrowPda, solStoragePda };
}

export interface EscrowAssetView {
  asset: string;
  mint: Address;
  escrowPda: Address;
  solStoragePda: Address;
  exists: boolean;
  feeBps: number | null;
  /** The oracle's tip on a verdict (bps), and the escrow's fee floor in base units (decimal string). */
  oracleFeeBps: number | null;
  minFeeAmount: string | null;
  paused: boolean | null;
}

/** One entry of pr402's `vaultPdaPreviews[]` (src/facilitator.rs VaultPdaPreview). */
export interface VaultPdaPreview {
  label: string;
  mint: Address;
  vaultPda: Address;
  solStoragePda: Address;
}

export function vaultPdaPreview(view: EscrowAssetView): VaultPdaPreview {
  return { label: view.asset, mint: view.mint, vaultPda: view.escrowPda, solStoragePda: view.solStoragePda };
}

export interface EscrowRailView {
  scheme: "sla-escrow";
  label: string;
  role: string;
  /** The asset's escrow, once it exists on this cluster; null before (nothing could be paid to it). */
  payTo: Address | null;
  programId: Address;
  bankPda: Address;
  vaultPda: Address;
  solStoragePda: Address;
  tokenPda: null;
  /** Decimal string; "0" when neither the escrow nor the bank is readable (pr402: fee_bps.unwrap_or(0)). */
  feeBps: string;
  status: RailStatus;
  isSovereign: false;
  provisioningStatus: null;
  payToKind: "escrowPda";
  payToResolve: "discovery.vaultPda";
  payToResolveNote: string;
  /** The mint `vaultPda` was derived for (pr402: vaultPdaPreviewMint). */
  vaultPdaPreviewMint: Address;
  beneficiary: Address;
}

export function escrowAssetView(
  addresses: EscrowAssetAddresses,
  programId: Address,
  accounts: Accounts,
): EscrowAssetView {
  const account = accounts.get(addresses.escrowPda);
  const escrow = account && account.owner === programId ? decodeEscrow(account.data) : null;
  return {
    asset: addresses.asset,
    mint: addresses.mint,
    escrowPda: addresses.escrowPda,
    solStoragePda: addresses.solStoragePda,
    exists: escrow !== null,
    feeBps: escrow?.feeBps ?? null,
    oracleFeeBps: escrow?.oracleFeeBps ?? null,
    minFeeAmount: escrow ? escrow.minFeeAmount.toString() : null,
    paused: escrow?.paused ?? null,
  };
}

/**
 * The escrow rail for one asset: payTo is that asset's escrow PDA; the seller is named in FundPayment, not in payTo.
 */
export function escrowRailView(
  wallet: Address,
  programId: Address,
  bankPda: Address,
  primary: EscrowAssetView,
  accounts: Accounts,
): EscrowRailView {
  const bankAccount = accounts.get(bankPda);
  const bank = bankAccount && bankAccount.owner === programId ? decodeBank(bankAccount.data) : null;
  return {
    scheme: "sla-escrow",
    label: "SLA-Escrow escrow",
    role: "sla-escrow payments are held in the escrow until delivery is confirmed, then released to the seller",
    payTo: primary.exists ? primary.escrowPda : null,
    programId,
    bankPda,
    vaultPda: primary.escrowPda,
    solStoragePda: primary.solStoragePda,
    tokenPda: null,
    feeBps: String(primary.feeBps ?? bank?.feeBps ?? 0),
    status: primary.exists ? "Active" : "NotProvisioned",
    isSovereign: false,
    provisioningStatus: null,
    payToKind: "escrowPda",
    payToResolve: "discovery.vaultPda",
    vaultPdaPreviewMint: primary.mint,
    payToResolveNote: primary.exists
      ? `payTo = the escrow PDA (seeds "escrow", mint, ` +
        `bank ${bankPda}) of program ${programId}, shared by all sellers of this facilitator; ` +
        `the seller ${wallet} is named as extra.merchantWallet (FundPayment.seller).`
      : `No payTo: the ` +
        `escrow ${primary.escrowPda} for ${primary.asset} does not exist on this cluster (only the program's ` +
        `operator creates one), ` +
        "so nothing could be paid to it; use an asset whose escrow exists (the preview's sla-escrow assets).",
    beneficiary: wallet,
  };
}
