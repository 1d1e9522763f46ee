import type { Address } from "@solana/kit";
import type { Config } from "../../platform/config/load-config";
import type { AccountSnapshot } from "../../chain/accounts";
import { parseMint } from "../../chain/mint";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { associatedTokenAccountOf } from "../../rails/exact/vault-addresses";
import { minimumPaymentRaw } from "../../rails/exact/minimum-amount";
import { walletPayToLine } from "../../rails/exact/wallet-line";
import { classifyVaultTokenAccount } from "../../rails/exact/vault-token-account";
import type { RailStatus } from "./rail-views";

/**
 * The `exact` rail in its wallet `payTo` form as a seller sees it (SVC_EXACT_WALLET_PAYTO, src/rails/exact/pay-to-form.ts):
 * `payTo` is the seller's own wallet, the transfer lands in the wallet's own USDC token account, and there is nothing to
 * activate, sweep or register on chain. The one thing that must exist is that token account: the facilitator never
 * creates it (as the official `@x402/svm` facilitator does not), so a payment to a wallet without one fails in simulation.
 */
export interface WalletRailView {
  scheme: "exact";
  label: string;
  role: string;
  payTo: Address;
  payToKind: "wallet";
  /** Where payTo comes from: the seller's own wallet, as given. */
  payToResolve: "seller.wallet";
  payToResolveNote: string;
  /** No protocol fee: the seller receives the whole amount (the fee payer pays the network fee). */
  feeBps: "0";
  /** Active once the wallet's USDC token account exists; NotProvisioned until then. */
  status: Extract<RailStatus, "Active" | "NotProvisioned">;
  isSovereign: false;
  provisioningStatus: null;
  tokenPda: null;
  /** The account USDC payments land in (ATA of the wallet under the mint's token program). */
  tokenAccount: { asset: "USDC"; mint: Address; tokenProgram: Address; address: Address; exists: boolean };
  /** The smallest amount /verify accepts for USDC (raw units, decimal string). */
  minimumAmount: string;
  /** A line of the seller's 402 body that this facilitator pays into the wallet, at the minimum amount. */
  line: ReturnType<typeof walletPayToLine>;
}

/** The addresses a wallet view reads (the USDC mint and the wallet's ATA under both token programs), for the caller's one batched read. */
export async function walletRailReads(config: Config, wallet: Address): Promise<Address[]> {
  const mint = config.mints.usdc;
  const [token, token2022] = await Promise.all([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map((program) => associatedTokenAccountOf(wallet, mint, program)));
  return [mint, token!, token2022!];
}

export async function walletRailView(config: Config, wallet: Address, accounts: ReadonlyMap<Address, AccountSnapshot | null>): Promise<WalletRailView> {
  const mint = config.mints.usdc;
  const mintAccount = accounts.get(mint) ?? null;
  // USDC's token program is read with the same batch; an unreadable mint is taken as SPL Token (the USDC of every cluster).
  const tokenProgram = (mintAccount && parseMint(mintAccount)?.tokenProgram) || TOKEN_PROGRAM_ADDRESS;
  const [address, minimum] = await Promise.all([associatedTokenAccountOf(wallet, mint, tokenProgram), minimumPaymentRaw(config, mint, false)]);
  // Ready only as an initialized account of that mint and wallet (lamports sent to the address do not make one).
  const exists = classifyVaultTokenAccount(accounts.get(address), { tokenProgram, mint, owner: wallet }) === "ready";
  return {
    scheme: "exact",
    label: "Seller's own wallet",
    role: "exact payments are transferred straight into the seller's own token account for the asset (standard x402 exact); no vault, no sweep, no facilitator fee",
    payTo: wallet,
    payToKind: "wallet",
    payToResolve: "seller.wallet",
    payToResolveNote:
      `payTo = the seller wallet ${wallet} itself, with no extra.merchantWallet (that would name a vault). ` +
      `Tokens land in ATA(owner = ${wallet}, mint), which must already exist: this facilitator never creates it. ` +
      "Native SOL cannot be paid to a wallet payTo. Put extra from GET /supported's exact kind (feePayer, compute caps) in the line, as `line` shows.",
    feeBps: "0",
    status: exists ? "Active" : "NotProvisioned",
    isSovereign: false,
    provisioningStatus: null,
    tokenPda: null,
    tokenAccount: { asset: "USDC", mint, tokenProgram, address, exists },
    minimumAmount: minimum.toString(),
    line: walletPayToLine(config, wallet, mint, minimum),
  };
}
