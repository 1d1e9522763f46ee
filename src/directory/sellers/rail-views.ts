import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../../chain/accounts";
import { decodeSplitVault, decodeUniversalSettleConfig, type SplitVault, type UniversalSettleConfig } from "../../rails/exact/program/accounts";
import { decodeBank, decodeEscrow } from "../../rails/sla-escrow/program/accounts";
import { DEFAULT_FEE_BPS, DEFAULT_SOVEREIGN_FEE_BPS } from "../../rails/exact/program-facts";
import type { EscrowAssetAddresses, ExactAddresses } from "./seller-addresses";

/**
 * The per-scheme objects of the seller preview and the rail lookup (docs/wire-notes.md "Sellers"), built purely from
 * derived addresses and already-fetched account snapshots, so both routes share one shape and one set of rules.
 */

export type RailStatus = "Sovereign" | "Active" | "NotProvisioned";

/** Recovery of a facilitator-fronted vault's setup cost (docs/facilitator-spec.md §3.2); amounts are decimal strings. */
export interface ProvisioningStatus {
  asset: "SOL" | "SPL";
  recovered: string;
  total: string;
}

export interface ExactRailView {
  scheme: "exact";
  label: string;
  role: string;
  payTo: Address;
  programId: Address;
  vaultPda: Address;
  solStoragePda: Address;
  /** pr402's SchemeOnboardInfo: SPL vaults are ATAs of the vault PDA, so there is no single token PDA. */
  tokenPda: null;
  /** A decimal string, as pr402's U16String (src/facilitator.rs SchemeOnboardInfo.fee_bps). */
  feeBps: string;
  status: RailStatus;
  isSovereign: boolean;
  isProvisioned: boolean;
  provisioningStatus: ProvisioningStatus | null;
  /** pr402's vocabulary: `splitVault` (exact) or `escrowPda` (sla-escrow). */
  payToKind: "splitVault";
  /** pr402's machine token for where payTo comes from; payToResolveNote says it in words. */
  payToResolve: "onboard.vaultPda";
  payToResolveNote: string;
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
  payTo: Address;
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

type Accounts = ReadonlyMap<Address, AccountSnapshot | null>;

/** The vault account, decoded only when the UniversalSettle program owns it (anything else is not a vault). */
export function readVault(accounts: Accounts, addresses: ExactAddresses): SplitVault | null {
  const account = accounts.get(addresses.vaultPda);
  return account && account.owner === addresses.programId ? decodeSplitVault(account.data) : null;
}

function readSettleConfig(accounts: Accounts, addresses: ExactAddresses): UniversalSettleConfig | null {
  const account = accounts.get(addresses.configPda);
  return account && account.owner === addresses.programId ? decodeUniversalSettleConfig(account.data) : null;
}

export function exactRailView(wallet: Address, addresses: ExactAddresses, accounts: Accounts): ExactRailView {
  const vault = readVault(accounts, addresses);
  const settleConfig = readSettleConfig(accounts, addresses);
  const isSovereign = vault?.isSovereign ?? false;
  const standardFeeBps = settleConfig?.feeBps ?? DEFAULT_FEE_BPS;
  const sovereignFeeBps = settleConfig?.discountedFeeBps ?? DEFAULT_SOVEREIGN_FEE_BPS;
  return {
    scheme: "exact",
    label: "UniversalSettle split vault",
    role: "exact payments land in this seller's vault; sweeps pay the seller minus the facilitator fee",
    payTo: addresses.vaultPda,
    programId: addresses.programId,
    vaultPda: addresses.vaultPda,
    solStoragePda: addresses.solStoragePda,
    tokenPda: null,
    // A missing vault is quoted at the standard rate: that is what just-in-time provisioning would give it.
    feeBps: String(isSovereign ? sovereignFeeBps : standardFeeBps),
    status: vault === null ? "NotProvisioned" : isSovereign ? "Sovereign" : "Active",
    isSovereign,
    isProvisioned: vault?.isProvisioned ?? false,
    provisioningStatus: vault === null ? null : provisioningStatus(vault, settleConfig),
    payToKind: "splitVault",
    payToResolve: "onboard.vaultPda",
    payToResolveNote:
      `payTo = the vault PDA (seeds "vault", seller wallet ${wallet}) of program ${addresses.programId}, with extra.merchantWallet = ${wallet}. ` +
      `Native SOL lands in solStoragePda; SPL tokens land in ATA(owner = vaultPda, mint).`,
  };
}

/**
 * Null when nothing is owed: sovereign vaults never recover, provisioned ones are done. Otherwise the rail
 * (SOL or SPL) that is closer to its target, since reaching either target completes recovery (docs/facilitator-spec.md §3.2).
 */
function provisioningStatus(vault: SplitVault, settleConfig: UniversalSettleConfig | null): ProvisioningStatus | null {
  if (vault.isSovereign || vault.isProvisioned) return null;
  const solTarget = settleConfig?.provisioningFeeLamports ?? 10_000_000n;
  const splTarget = settleConfig?.provisioningFeeRaw ?? 1_000_000n;
  // Compare recovered/target fractions without floating point: sol/solT >= spl/splT  <=>  sol*splT >= spl*solT.
  const solAhead = vault.solRecoveredLamports * splTarget >= vault.splRecoveredRaw * solTarget;
  return solAhead
    ? { asset: "SOL", recovered: vault.solRecoveredLamports.toString(), total: solTarget.toString() }
    : { asset: "SPL", recovered: vault.splRecoveredRaw.toString(), total: splTarget.toString() };
}

export function escrowAssetView(addresses: EscrowAssetAddresses, programId: Address, accounts: Accounts): EscrowAssetView {
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

/** The escrow rail for one asset: payTo is that asset's escrow PDA; the seller is named in FundPayment, not in payTo. */
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
    payTo: primary.escrowPda,
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
    payToResolveNote:
      `payTo = the escrow PDA (seeds "escrow", mint, bank ${bankPda}) of program ${programId}, shared by all sellers of this facilitator; ` +
      `the seller ${wallet} is named as extra.merchantWallet (FundPayment.seller).`,
    beneficiary: wallet,
  };
}
