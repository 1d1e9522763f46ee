import * as v from "valibot";
import { Address, DecimalAmount, Integer, UNSIGNED_TRANSACTION_ENTRIES } from "../../../http/responses/fields";

/**
 * Success bodies of the exact rail's routes: the payment builder, the seller's activation, the vault snapshot, the
 * sweep.
 */

export const ExactBuildResponseSchema = v.looseObject({
  ...UNSIGNED_TRANSACTION_ENTRIES,
  destination: Address,
  notes: v.array(v.string()),
});

export const ProvisionResponseSchema = v.looseObject({
  schemaVersion: v.string(),
  wallet: Address,
  asset: v.string(),
  assetMint: Address,
  vaultPda: Address,
  solStoragePda: Address,
  vaultTokenAta: v.optional(Address),
  alreadyProvisioned: v.boolean(),
  statusCode: v.picklist(["ALREADY_PROVISIONED", "VAULT_AND_ATA", "VAULT_ONLY", "ATA_ONLY"]),
  transaction: v.optional(v.string()),
  recentBlockhash: v.optional(v.string()),
  recentBlockhashExpiresAt: v.optional(Integer),
  feePayer: Address,
  payer: Address,
  payerSignatureIndex: Integer,
  notes: v.array(v.string()),
});

export const VaultSnapshotResponseSchema = v.looseObject({
  seller: Address,
  programId: Address,
  splitVaultPda: Address,
  vaultSolStoragePda: Address,
  vaultExists: v.boolean(),
  spendableLamports: Integer,
  spendableLamportsDecimal: DecimalAmount,
  vaultSplAta: v.nullable(Address),
  splAmountRaw: Integer,
  splAmountRawDecimal: DecimalAmount,
  splDecimals: v.nullable(Integer),
  splBalanceScope: v.picklist(["vault_ata", "owner_wallet"]),
  sellerSplAta: v.nullable(Address),
  sellerSplAtaExists: v.nullable(v.boolean()),
  sweepBlockedReason: v.nullable(v.literal("seller_token_account_missing")),
});

const SweepItemSchema = v.looseObject({
  wallet: Address,
  settlementMode: v.picklist(["native_sol", "spl"]),
  splMint: v.nullable(Address),
  /** Decimal strings, as every amount this service writes (pr402 writes integers here; docs/pr402-compatibility.md). */
  availableRaw: v.nullable(DecimalAmount),
  thresholdRaw: DecimalAmount,
  status: v.picklist(["eligible", "ok", "skipped", "failed"]),
  action: v.string(),
  signature: v.nullable(v.string()),
  error: v.nullable(v.string()),
});

export const SweepResponseSchema = v.looseObject({
  dryRun: v.boolean(),
  scanned: Integer,
  attempted: Integer,
  succeeded: Integer,
  skippedBelowThreshold: Integer,
  failed: Integer,
  items: v.array(SweepItemSchema),
});
