import { type Address, isOffCurveAddress } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import * as v from "valibot";
import { type AccountSnapshot, fetchAccounts } from "../../chain/accounts";
import { getLatestBlockhash } from "../../chain/blockhash";
import { type MintInfo, parseMint } from "../../chain/mint";
import { refusedClosableMint, refusedMintExtension } from "../../chain/token-extensions";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { resolveSellerAsset, SellerAssetInput } from "../../directory/sellers/seller-asset";
import { SCHEMA_VERSION } from "../../http/self-description/schema-version";
import type { Config } from "../../platform/config/load-config";
import { railNotEnabled } from "../../platform/config/rail-switches";
import { badRequest, type FacilitatorError } from "../../platform/errors/catalogue";
import { Base58Address } from "../../x402/schemas";
import { buildProvisionTransaction } from "./seller-provisioning-transaction";
import { deriveExactAddresses, readVault } from "./seller-view";
import { classifyVaultTokenAccount } from "./vault-token-account";

/**
 * A blockhash lands within ~150 blocks: about 60 seconds (docs/facilitator-spec.md §8), the same window the payment
 * builders quote.
 */
const BLOCKHASH_LIFETIME_SECONDS = 60;

export const ProvisionRequestSchema = v.object({ wallet: Base58Address, asset: SellerAssetInput });

export type ProvisionStatusCode = "ALREADY_PROVISIONED" | "VAULT_AND_ATA" | "VAULT_ONLY" | "ATA_ONLY";

export interface ProvisionResponse {
  wallet: Address;
  asset: string;
  assetMint: Address;
  vaultPda: Address;
  solStoragePda: Address;
  vaultTokenAta?: Address;
  alreadyProvisioned: boolean;
  statusCode: ProvisionStatusCode;
  transaction?: string;
  recentBlockhash?: string;
  recentBlockhashExpiresAt?: number;
  feePayer: Address;
  payer: Address;
  payerSignatureIndex: 0;
  notes: string[];
}

/**
 * `POST /sellers/provision-tx` (docs/facilitator-spec.md §2.5, §3.1): the seller's own activation transaction
 * (sovereign tier). Chain access: one batched read (vault, and for SPL the mint plus the vault ATA under both token
 * programs, since the owning program is only known once the mint is read) in parallel with one getLatestBlockhash.
 */
export async function buildSellerProvisioning(
  config: Config,
  request: v.InferOutput<typeof ProvisionRequestSchema>,
): Promise<ProvisionResponse> {
  const wallet = request.wallet;
  if (isOffCurveAddress(wallet))
    throw badRequest(
      `wallet: ${wallet} is off the ed25519 curve (a PDA) and cannot sign; use the seller's wallet address`,
    );
  if (wallet === config.programs.universalSettle || wallet === config.programs.slaEscrow) {
    throw badRequest(`wallet: ${wallet} is a program id, not a seller wallet`);
  }
  const asset = resolveSellerAsset(config, request.asset);
  if (!config.rails.exactVault.enabled) throw noVaultToProvision(config, wallet);
  const exact = await deriveExactAddresses(config, wallet);
  const candidates = asset.isNativeSol ? null : await vaultAtaCandidates(exact.vaultPda, asset.mint);
  const reads = [exact.vaultPda, ...(candidates ? [asset.mint, candidates.token, candidates.token2022] : [])];
  const [accounts, latest] = await Promise.all([fetchAccounts(config, reads), getLatestBlockhash(config)]);

  const vaultExists = readVault(accounts, exact) !== null;
  const vaultAccountPresent = accounts.get(exact.vaultPda) != null;
  if (!vaultExists && vaultAccountPresent) {
    throw badRequest(
      `wallet: the vault address ${exact.vaultPda} holds an account that is not a UniversalSettle vault`,
    );
  }

  let vaultTokenAccount: { ata: Address; mint: Address; tokenProgram: Address } | null = null;
  let ataExists = true;
  if (candidates) {
    const mint = readSellerMint(accounts.get(asset.mint) ?? null, asset.mint);
    const ata = mint.tokenProgram === TOKEN_2022_PROGRAM_ADDRESS ? candidates.token2022 : candidates.token;
    // Lamports sent to the ATA address do not make it a token account (the ATA program creates one over them).
    const state = classifyVaultTokenAccount(accounts.get(ata), {
      tokenProgram: mint.tokenProgram,
      mint: asset.mint,
      owner: exact.vaultPda,
    });
    if (state === "squatted") {
      throw badRequest(
        `asset: the vault token account ` +
          `address ${ata} holds an account that is not an initialized ${asset.label} token account of the vault`,
      );
    }
    ataExists = state === "ready";
    vaultTokenAccount = { ata, mint: asset.mint, tokenProgram: mint.tokenProgram };
  }

  const statusCode: ProvisionStatusCode =
    vaultExists && ataExists
      ? "ALREADY_PROVISIONED"
      : vaultExists
        ? "ATA_ONLY"
        : vaultTokenAccount
          ? "VAULT_AND_ATA"
          : "VAULT_ONLY";
  const base = {
    // Required in pr402's SellerProvisionTxResponse (public/openapi.json): the discovery schema version.
    schemaVersion: SCHEMA_VERSION,
    wallet,
    asset: asset.label,
    assetMint: asset.mint,
    vaultPda: exact.vaultPda,
    solStoragePda: exact.solStoragePda,
    ...(vaultTokenAccount ? { vaultTokenAta: vaultTokenAccount.ata } : {}),
    feePayer: wallet,
    payer: wallet,
    payerSignatureIndex: 0 as const,
  };
  if (statusCode === "ALREADY_PROVISIONED") {
    const vault = readVault(accounts, exact);
    return {
      ...base,
      alreadyProvisioned: true,
      statusCode,
      notes: [
        `The ` +
          `vault ${exact.vaultPda}${
            vaultTokenAccount ? ` and ` + `its ${asset.label} token account ${vaultTokenAccount.ata}` : ""
          } already ` +
          `exist: ` +
          `nothing to send.`,
        vault?.isSovereign
          ? "The vault is sovereign (created by the seller): the discounted fee rate applies."
          : "The vault was created by the facilitator (just-in-time provisioning): the standard fee rate applies and " +
            "its setup cost is recovered from revenue.",
      ],
    };
  }

  const transaction = buildProvisionTransaction({
    seller: wallet,
    programId: exact.programId,
    vaultPda: exact.vaultPda,
    solStoragePda: exact.solStoragePda,
    createVault: !vaultExists,
    vaultTokenAccount: ataExists ? null : vaultTokenAccount,
    blockhash: latest,
  });
  return {
    ...base,
    alreadyProvisioned: false,
    statusCode,
    transaction,
    recentBlockhash: latest.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    notes: provisionNotes(statusCode, wallet, asset.label, exact.vaultPda, vaultTokenAccount?.ata),
  };
}

/**
 * There is no vault to create where the vault form is off (no UniversalSettle program): 503 rail_not_enabled, saying
 * why and what the seller uses instead — its own wallet as payTo where the wallet form runs, else the other rails.
 */
function noVaultToProvision(config: Config, wallet: Address): FacilitatorError {
  const exactVault = config.rails.exactVault;
  const why = exactVault.enabled ? "no UniversalSettle program id" : exactVault.why;
  const instead = config.rails.exactWallet.enabled
    ? `there is no vault to create: put your own wallet ${wallet} in payTo (the wallet payTo form of exact); ` +
      `its USDC token account must exist, and GET /sellers/${wallet}/preview shows it and the line to publish`
    : "there is no vault to create, and exact to a wallet is off too (SVC_EXACT_WALLET_PAYTO): use the sla-escrow or " +
      "upto rail (GET /supported)";
  return railNotEnabled("exact (vault payTo)", `${why}; ${instead}`, {
    payToForms: config.rails.exactWallet.enabled ? ["wallet"] : [],
  });
}

function provisionNotes(
  statusCode: ProvisionStatusCode,
  wallet: Address,
  label: string,
  vault: Address,
  ata: Address | undefined,
): string[] {
  const what =
    statusCode === "VAULT_AND_ATA"
      ? `Creates the vault ${vault} (CreateVault) and its ${label} token account ${ata} (CreateIdempotent).`
      : statusCode === "VAULT_ONLY"
        ? `Creates the ` +
          `vault ${vault} (CreateVault); native SOL lands in its SOL storage PDA, no token account is needed.`
        : `The vault ${vault} exists; creates its ${label} token account ${ata} (CreateIdempotent).`;
  return [
    what,
    `Sign with ${wallet} (signature index 0) and send it yourself: the seller is both fee payer and rent payer, ` +
      "which is what makes the vault sovereign (discounted fee rate, no provisioning recovery).",
    `The blockhash is valid for about ${BLOCKHASH_LIFETIME_SECONDS} seconds; if it expires, request a new transaction.`,
  ];
}

function readSellerMint(account: AccountSnapshot | null, mint: Address): MintInfo {
  if (account === null) throw badRequest(`asset: mint ${mint} does not exist on this network`);
  const info = parseMint(account);
  if (info === null) throw badRequest(`asset: ${mint} is not an initialized SPL Token or Token-2022 mint`);
  const refused = refusedMintExtension(info) ?? refusedClosableMint(info);
  if (refused !== null) throw badRequest(`asset: ${refused}`);
  return info;
}

async function vaultAtaCandidates(vault: Address, mint: Address): Promise<{ token: Address; token2022: Address }> {
  const [[token], [token2022]] = await Promise.all([
    findAssociatedTokenPda({ owner: vault, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
    findAssociatedTokenPda({ owner: vault, mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }),
  ]);
  return { token, token2022 };
}
