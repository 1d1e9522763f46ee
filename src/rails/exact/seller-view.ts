import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { fetchAccounts } from "../../chain/accounts";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { Config } from "../../platform/config/load-config";
import { railNotEnabled } from "../../platform/config/rail-switches";
import type { Accounts, RailSellerView, RailStatus } from "../seller-view";
import {
  decodeSplitVault,
  decodeUniversalSettleConfig,
  type SplitVault,
  type UniversalSettleConfig,
} from "./program/accounts";
import { findUniversalSettleConfigPda } from "./program/pda";
import { DEFAULT_FEE_BPS, DEFAULT_SOVEREIGN_FEE_BPS } from "./program-facts";
import { SELLER_TOKEN_ACCOUNT_MISSING } from "./sweep/plan";
import { requireUniversalSettle } from "./universal-settle-program";
import { vaultOf, vaultSolStorageOf } from "./vault-addresses";
import { walletPreviewPart } from "./wallet-seller-view";

/**
 * The exact rail's seller view: the seller's UniversalSettle split vault, in the preview and the rail lookup, and the
 * onboarding step it decides (activate the vault, then hold a USDC token account the sweep can pay).
 */
export const exactSellerView: RailSellerView = {
  lookup: (config, wallet) => lookupExactRail(config, wallet),
  async preview(config, wallet) {
    const { exactVault, exactWallet } = config.rails;
    const walletPart = exactWallet.enabled ? await walletPreviewPart(config, wallet) : null;
    // Without the vault form (no UniversalSettle program) the preview shows the wallet form alone, or no exact rail.
    if (!exactVault.enabled)
      return (
        walletPart && { ...walletPart, view: (accounts) => ({ ...walletPart.view(accounts), payToForms: ["wallet"] }) }
      );
    const payToForms = ["vault", ...(walletPart ? ["wallet"] : [])];
    const exact = await deriveExactAddresses(config, wallet);
    const usdcAtas = await usdcTokenAccounts(config, wallet, exact.vaultPda);
    return {
      reads: [exact.vaultPda, exact.configPda, ...usdcAtas.vault, ...usdcAtas.seller, ...(walletPart?.reads ?? [])],
      // pr402's vault block, with the forms offered and, where it runs too, the wallet form's view.
      view: (accounts) => ({
        ...exactRailView(wallet, exact, accounts),
        payToForms,
        ...(walletPart ? { walletPayTo: walletPart.view(accounts) } : {}),
      }),
      lifecycle(accounts) {
        const activated = readVault(accounts, exact) !== null;
        // Sweeps never create the seller's token account (it could be closed for its rent and created again).
        const usdcRailActive = usdcAtas.vault.some((ata) => accounts.get(ata));
        const sellerUsdcAta = usdcAtas.seller.find((ata) => accounts.get(ata)) ?? null;
        const missingTokenAccount = activated && usdcRailActive && sellerUsdcAta === null;
        return {
          activated,
          blocked: missingTokenAccount
            ? { blockedReason: SELLER_TOKEN_ACCOUNT_MISSING, sellerTokenAccount: usdcAtas.seller[0]! }
            : null,
        };
      },
    };
  },
};

/** `GET /sellers/{wallet}/rails/exact`: one batched read, no database (a seller's server calls it to fill `payTo`). */
export async function lookupExactRail(config: Config, wallet: Address): Promise<ExactRailView> {
  // Like upto, the wallet payTo form has no per-seller rail address: where it is the only exact form, say so.
  const { exactVault, exactWallet } = config.rails;
  if (!exactVault.enabled && exactWallet.enabled) {
    throw railNotEnabled(
      "exact (vault payTo)",
      `${exactVault.why}; exact here pays the seller's own wallet, so payTo ` +
        `is ${wallet} itself (no rail address to look up): GET /sellers/${wallet}/preview shows the line to publish`,
      { payToForms: ["wallet"] },
    );
  }
  const addresses = await deriveExactAddresses(config, wallet);
  const accounts = await fetchAccounts(config, [addresses.vaultPda, addresses.configPda]);
  return exactRailView(wallet, addresses, accounts);
}

/** The vault's and the seller's USDC token account under each token program (which one USDC uses is not read here). */
async function usdcTokenAccounts(
  config: Config,
  seller: Address,
  vault: Address,
): Promise<{ vault: Address[]; seller: Address[] }> {
  const both = (owner: Address) =>
    Promise.all(
      [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map(
        async (tokenProgram) => (await findAssociatedTokenPda({ owner, mint: config.mints.usdc, tokenProgram }))[0],
      ),
    );
  const [vaultAtas, sellerAtas] = await Promise.all([both(vault), both(seller)]);
  return { vault: vaultAtas, seller: sellerAtas };
}

/** Every address a seller's rails are made of; pure derivations, no chain access. */
export interface ExactAddresses {
  programId: Address;
  configPda: Address;
  vaultPda: Address;
  solStoragePda: Address;
}

export async function deriveExactAddresses(config: Config, wallet: Address): Promise<ExactAddresses> {
  const programId = requireUniversalSettle(config);
  const [vaultPda, [configPda]] = await Promise.all([
    vaultOf(programId, wallet),
    findUniversalSettleConfigPda(programId),
  ]);
  return { programId, configPda, vaultPda, solStoragePda: await vaultSolStorageOf(programId, vaultPda) };
}

/**
 * Recovery of a facilitator-fronted vault's setup cost (docs/facilitator-spec.md §3.2); amounts are decimal strings.
 */
export interface ProvisioningStatus {
  asset: "SOL" | "SPL";
  recovered: string;
  total: string;
}

export interface ExactRailView {
  scheme: "exact";
  label: string;
  role: string;
  /** The vault, once it exists; null before (a payment to it would be refused: `payToResolveNote` says what to do). */
  payTo: Address | null;
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
    payTo: vault === null ? null : addresses.vaultPda,
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
    payToResolveNote: vault === null ? notActivatedNote(wallet, addresses) : activatedNote(wallet, addresses),
  };
}

/** What a seller with a vault publishes: the vault alone (the facilitator reads the seller from the vault account). */
function activatedNote(wallet: Address, addresses: ExactAddresses): string {
  return (
    `payTo = the vault ` +
    `PDA ${addresses.vaultPda} (seeds "vault", seller wallet ${wallet}) of program ${addresses.programId}; ` +
    "extra.merchantWallet is not needed (the facilitator reads the seller from the vault account). " +
    "Native SOL lands in solStoragePda; SPL tokens land in ATA(owner = vaultPda, mint)."
  );
}

/**
 * Before the vault exists no payTo is given: a line paying it without naming the seller is refused at /verify
 * (`invalid_exact_svm_payload_missing_merchant_wallet`), and the official buyer would only see a bare 402.
 */
function notActivatedNote(wallet: Address, addresses: ExactAddresses): string {
  return (
    `No payTo yet: the ` +
    `vault ${addresses.vaultPda} of ${wallet} does not exist. Activate it: POST ` +
    `/api/v1/facilitator/sellers/provision-tx ` +
    `{"wallet":"${wallet}","asset":"USDC"}, sign the returned transaction with this wallet and send it to the ` +
    `cluster; ` +
    "this answer then gives the vault as payTo. Without activating, only 402 lines from POST " +
    "/payment-required/enrich pay it " +
    "(they name you in extra.merchantWallet, so the facilitator may create the vault at the first payment, at the " +
    "standard rate)."
  );
}

/**
 * Null when nothing is owed: sovereign vaults never recover, provisioned ones are done. Otherwise the rail
 * (SOL or SPL) that is closer to its target, since reaching either target completes recovery (docs/facilitator-spec.md
 * §3.2).
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
