/**
 * What the console knows: the wallets found, the connected account, the deployment (chain, wallet RPC, assets) and
 * the last seller preview. Response shapes are read defensively where they are moving (pr402 compatibility): the
 * preview's feeBps as number or string, vault addresses from `schemes.exact`, the vault snapshot's amounts as
 * strings or as integers beside `*Decimal`.
 */
import { byId } from "../dom";
import type { Lifecycle } from "./step-states";

export type { Lifecycle };

/** A Wallet Standard account (wallet-standard `WalletAccount`, the fields the console reads). */
export interface WalletAccount {
  readonly address: string;
  readonly publicKey: Uint8Array;
  readonly chains: readonly string[];
  readonly features: readonly string[];
}

type SolanaSendOptions = { preflightCommitment?: string };
/** The features the console uses, as the Wallet Standard and its Solana extensions define them. */
export interface WalletFeatures {
  "standard:connect": { connect(): Promise<{ accounts?: readonly WalletAccount[] } | undefined> };
  "standard:disconnect": { disconnect(): Promise<void> };
  "solana:signMessage": {
    signMessage(
      ...inputs: { account: WalletAccount; message: Uint8Array }[]
    ): Promise<{ signature: Uint8Array; signedMessage: Uint8Array }[]>;
  };
  "solana:signAndSendTransaction": {
    signAndSendTransaction(
      ...inputs: { account: WalletAccount; transaction: Uint8Array; chain: string; options?: SolanaSendOptions }[]
    ): Promise<{ signature: Uint8Array }[]>;
  };
  "solana:signTransaction": {
    signTransaction(
      ...inputs: { account: WalletAccount; transaction: Uint8Array; chain: string }[]
    ): Promise<{ signedTransaction: Uint8Array }[]>;
  };
}

/** A wallet as registered by its extension: any of the features may be missing. */
export interface StandardWallet {
  readonly name: string;
  readonly accounts?: readonly WalletAccount[];
  readonly features?: Partial<WalletFeatures>;
}

/** An asset the seller can be paid in: `param` is what the API's `asset` field takes (SOL, USDC, USDT or a mint). */
export interface AssetChoice {
  param: string;
  symbol: string;
  decimals: number;
  mint: string | null;
  native: boolean;
}

/**
 * The wallet `payTo` form's view in the preview, where it runs beside the vault: the token account payments land in.
 */
export interface WalletPayToView {
  tokenAccount?: { address: string; mint: string; exists: boolean };
}

export interface ExactView {
  walletPayTo?: WalletPayToView;
  vaultPda?: string;
  payTo?: string;
  solStoragePda?: string;
  status?: string;
  isSovereign?: boolean;
  feeBps?: string | number;
  provisioningStatus?: { recovered: string; total: string; asset: string } | null;
}

export interface Preview {
  wallet?: string;
  schemes?: { exact?: ExactView; "sla-escrow"?: { payTo?: string; vaultPda?: string } };
  vaultPdaPreviews?: { vaultPda?: string; address?: string; payTo?: string }[];
  lifecycle?: Lifecycle;
}

export interface Supported {
  kinds?: { scheme: string; extra?: Record<string, unknown> | null }[];
}

export const state = {
  wallets: [] as StandardWallet[],
  wallet: null as StandardWallet | null,
  account: null as WalletAccount | null,
  /** The Wallet Standard chain id the wallet signs for. */
  chain: "solana:devnet",
  /** /health's solanaNetwork: which explorer view shows a transaction. */
  cluster: "devnet",
  walletRpcUrl: null as string | null,
  assets: [] as AssetChoice[],
  preview: null as Preview | null,
  supported: null as Supported | null,
  /** The exact rail's `payTo` forms this deployment runs (/supported `extra.payToForms`), in its order. */
  payToForms: [] as string[],
};

/** The connected wallet's address; the buttons that need it are disabled while none is connected. */
export function walletAddress(): string {
  if (!state.account) throw new Error("connect a wallet first");
  return state.account.address;
}

export function connectedWallet(): { wallet: StandardWallet; account: WalletAccount } {
  if (!state.wallet || !state.account) throw new Error("connect a wallet first");
  return { wallet: state.wallet, account: state.account };
}

/** The asset chosen in step 1. */
export function assetInfo(): AssetChoice {
  const value = byId<HTMLSelectElement>("asset").value;
  return (
    state.assets.find((a) => a.param === value) ?? {
      param: value,
      symbol: value,
      decimals: value === "SOL" ? 9 : 6,
      mint: null,
      native: value === "SOL",
    }
  );
}

export const short = (addr: string | null | undefined): string =>
  addr && addr.length > 12 ? addr.slice(0, 4) + "…" + addr.slice(-4) : String(addr);

/**
 * The `payTo` form to register: the seller's choice where both run (the vault unless the seller picks the wallet, as
 * the API's default), the only one where one runs, nothing where /supported was not read (the API then decides).
 */
export function chosenPayToForm(): "vault" | "wallet" | undefined {
  if (state.payToForms.includes("vault") && state.payToForms.includes("wallet"))
    return byId<HTMLSelectElement>("pay-to-form").value === "wallet" ? "wallet" : "vault";
  const [only] = state.payToForms;
  return only === "vault" || only === "wallet" ? only : undefined;
}
