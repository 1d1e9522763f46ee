import type { Address } from "@solana/kit";
import { parseMint } from "../../chain/mint";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { Config } from "../../platform/config/load-config";
import type { Accounts, RailStatus, SellerPreviewPart } from "../seller-view";
import { minimumPaymentRaw } from "./minimum-amount";
import { SELLER_TOKEN_ACCOUNT_MISSING } from "./sweep/plan";
import { associatedTokenAccountOf } from "./vault-addresses";
import { classifyVaultTokenAccount } from "./vault-token-account";
import { walletPayToLine } from "./wallet-line";

/**
 * The `exact` rail in its wallet `payTo` form as a seller sees it (SVC_EXACT_WALLET_PAYTO, ./pay-to-form.ts): `payTo`
 * is the seller's own wallet, the transfer lands in the wallet's own USDC token account, and there is nothing to
 * activate or sweep. The one thing that must exist is that token account: the facilitator never creates it (as the
 * official `@x402/svm` facilitator does not), so a payment to a wallet without one is refused.
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

/**
 * The wallet form's preview part: reads the USDC mint (its token program) and the wallet's ATA under both token
 * programs; its lifecycle is the token account (no vault to activate; registering checks that same account).
 */
export async function walletPreviewPart(
  config: Config,
  wallet: Address,
): Promise<SellerPreviewPart & { view(accounts: Accounts): WalletRailView }> {
  const mint = config.mints.usdc;
  const [token, token2022, minimum] = await Promise.all([
    associatedTokenAccountOf(wallet, mint, TOKEN_PROGRAM_ADDRESS),
    associatedTokenAccountOf(wallet, mint, TOKEN_2022_PROGRAM_ADDRESS),
    minimumPaymentRaw(config, mint, false),
  ]);
  const view = (accounts: Accounts) => walletRailView(config, wallet, accounts, { token, token2022, minimum });
  return {
    reads: [mint, token, token2022],
    view,
    lifecycle(accounts) {
      const { tokenAccount } = view(accounts);
      return {
        activated: tokenAccount.exists,
        blocked: tokenAccount.exists
          ? null
          : { blockedReason: SELLER_TOKEN_ACCOUNT_MISSING, sellerTokenAccount: tokenAccount.address },
      };
    },
  };
}

function walletRailView(
  config: Config,
  wallet: Address,
  accounts: Accounts,
  known: { token: Address; token2022: Address; minimum: bigint },
): WalletRailView {
  const mint = config.mints.usdc;
  const mintAccount = accounts.get(mint) ?? null;
  // USDC's token program comes from the same batch; an unreadable mint is taken as SPL Token (the USDC of every
  // cluster).
  const tokenProgram = (mintAccount && parseMint(mintAccount)?.tokenProgram) || TOKEN_PROGRAM_ADDRESS;
  const address = tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? known.token2022 : known.token;
  // Ready only as an initialized account of that mint and wallet (lamports sent to the address do not make one).
  const exists = classifyVaultTokenAccount(accounts.get(address), { tokenProgram, mint, owner: wallet }) === "ready";
  return {
    scheme: "exact",
    label: "Seller's own wallet",
    role:
      "exact payments are transferred straight into the seller's own token account for the asset (standard x402 " +
      "exact); no vault, no sweep, no facilitator fee",
    payTo: wallet,
    payToKind: "wallet",
    payToResolve: "seller.wallet",
    payToResolveNote:
      `payTo = the seller wallet ${wallet} itself, with no extra.merchantWallet (that would name a vault). ` +
      `Tokens land in ATA(owner = ${wallet}, mint), which must already exist: this facilitator never creates it. ` +
      "Native SOL cannot be paid to a wallet payTo. Put extra from GET /supported's exact kind (feePayer, compute " +
      "caps) in the line, as `line` shows.",
    feeBps: "0",
    status: exists ? "Active" : "NotProvisioned",
    isSovereign: false,
    provisioningStatus: null,
    tokenPda: null,
    tokenAccount: { asset: "USDC", mint, tokenProgram, address, exists },
    minimumAmount: known.minimum.toString(),
    line: walletPayToLine(config, wallet, mint, known.minimum),
  };
}
