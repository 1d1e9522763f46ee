import * as v from "valibot";
import { PaymentRequirementsSchema } from "../../x402/schemas";
import { LISTED_SCHEMES } from "../../directory/resources/listed-schemes";
import { SELLER_PREVIEW_SCHEMES } from "../../directory/sellers/seller-inputs";

/**
 * Success bodies of the agent-facing routes, documented in /openapi.json and /agent-tools.json. Loose objects:
 * the listed members are promised, more may be added. A worker test parses live responses with them, so a
 * route that drifts from its documented shape fails the build.
 */
const Address = v.string();
const DecimalAmount = v.pipe(v.string(), v.regex(/^\d+$/));
const Integer = v.pipe(v.number(), v.integer());
/** The preview's rails, named by the directory (http/ names no scheme itself: test/unit/rail-boundaries.test.ts). */
const [EXACT_SCHEME, ESCROW_SCHEME] = SELLER_PREVIEW_SCHEMES;
/** RFC 3339 instant (pr402 documents these as `format: date-time`). */
const Instant = v.string();

export const SupportedResponseSchema = v.looseObject({
  kinds: v.array(v.looseObject({ x402Version: v.literal(2), scheme: v.string(), network: v.string(), extra: v.record(v.string(), v.unknown()) })),
  extensions: v.array(v.string()),
  signers: v.record(v.string(), v.array(Address)),
});

export const CapabilitiesResponseSchema = v.looseObject({
  schemaVersion: v.string(),
  x402Version: v.literal(2),
  network: v.string(),
  feePayer: Address,
  supported: SupportedResponseSchema,
  features: v.record(v.string(), v.boolean()),
  httpEndpoints: v.record(v.string(), v.looseObject({ method: v.string(), path: v.string() })),
  agentManifest: v.record(v.string(), v.string()),
});

export const VerifyResponseSchema = v.looseObject({
  isValid: v.boolean(),
  valid: v.boolean(),
  payer: v.optional(Address),
  invalidReason: v.optional(v.string()),
  correlationId: v.string(),
});

export const SettleResponseSchema = v.looseObject({
  success: v.boolean(),
  payer: v.optional(Address),
  transaction: v.string(),
  network: v.string(),
  alreadySettled: v.optional(v.boolean()),
  /** upto only: the amount settled in atomic units (the deposit for a deposit, the charge for a claim), as the official facilitator answers. */
  amount: v.optional(DecimalAmount),
  errorReason: v.optional(v.string()),
  correlationId: v.string(),
});

export const SettlementStatusResponseSchema = v.looseObject({
  signature: v.string(),
  state: v.picklist(["pending", "confirmed", "failed"]),
  scheme: v.string(),
  network: v.string(),
  payer: v.nullable(Address),
  payTo: Address,
  asset: Address,
  amount: DecimalAmount,
  settledAt: v.nullable(v.string()),
  /** The x402 payment-identifier id the payment carried, when it carried one. */
  paymentId: v.optional(v.string()),
});

/** What every payment builder answers: UnsignedTransactionFields (src/chain/unsigned-transaction.ts) and the verify body template. */
const UNSIGNED_TRANSACTION_ENTRIES = {
  x402Version: v.literal(2),
  transaction: v.string(),
  verifyBodyTemplate: v.looseObject({
    x402Version: v.literal(2),
    paymentPayload: v.looseObject({ x402Version: v.literal(2), accepted: PaymentRequirementsSchema, payload: v.looseObject({ transaction: v.string() }) }),
    paymentRequirements: PaymentRequirementsSchema,
  }),
  payerSignatureIndex: Integer,
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: Integer,
  feePayer: Address,
  payer: Address,
  signerPubkeys: v.array(Address),
};

export const ExactBuildResponseSchema = v.looseObject({
  ...UNSIGNED_TRANSACTION_ENTRIES,
  destination: Address,
  notes: v.array(v.string()),
});

export const EscrowBuildResponseSchema = v.looseObject({
  ...UNSIGNED_TRANSACTION_ENTRIES,
  slaFundTxNetworkFeePayer: v.picklist(["buyer", "facilitator"]),
  payTo: Address,
  paymentUid: v.optional(v.string()),
  paymentUidHex: v.string(),
  paymentPda: Address,
  programId: Address,
  notes: v.array(v.string()),
});

/** The upto deposit builder: the same unsigned-transaction fields, but the payload is the official client's UptoSvmPayload. */
export const UptoDepositBuildResponseSchema = v.looseObject({
  ...UNSIGNED_TRANSACTION_ENTRIES,
  verifyBodyTemplate: v.looseObject({
    x402Version: v.literal(2),
    paymentPayload: v.looseObject({
      x402Version: v.literal(2),
      accepted: PaymentRequirementsSchema,
      payload: v.looseObject({
        channelId: Address,
        deposit: DecimalAmount,
        expiresAt: Integer,
        from: Address,
        maxAmount: DecimalAmount,
        nonce: DecimalAmount,
        openSlot: DecimalAmount,
        openTransaction: v.string(),
        authorizedSigner: Address,
        validAfter: Integer,
      }),
    }),
    paymentRequirements: PaymentRequirementsSchema,
  }),
  channelId: Address,
  escrowTokenAccount: Address,
  deposit: DecimalAmount,
  gracePeriodSeconds: Integer,
  openSlot: DecimalAmount,
  programId: Address,
  notes: v.array(v.string()),
});

export const ResourceEntrySchema = v.looseObject({
  id: Integer,
  walletPubkey: Address,
  resourceUrl: v.string(),
  httpMethod: v.string(),
  title: v.string(),
  description: v.optional(v.string()),
  useCase: v.optional(v.string()),
  category: v.optional(v.string()),
  tags: v.array(v.string()),
  scheme: v.picklist(LISTED_SCHEMES),
  network: v.optional(v.string()),
  intentContractUrl: v.optional(v.string()),
  merchantOrigin: v.optional(v.string()),
  sellerResourceId: v.optional(v.string()),
  listingOptIn: v.boolean(),
  lastProbeOk: v.boolean(),
  lastProbeAt: v.optional(Instant),
  registrationVerifiedAt: Instant,
  updatedAt: Instant,
});

export const ResourceSearchResponseSchema = v.looseObject({
  entries: v.array(ResourceEntrySchema),
  nextCursor: v.nullable(v.string()),
  notice: v.string(),
});

/** pr402's PublicResourceSingle `{entry, notice}`; the entry's members are repeated at the top level for our earlier clients. */
export const ResourceSingleResponseSchema = v.looseObject({ ...ResourceEntrySchema.entries, entry: ResourceEntrySchema, notice: v.string() });

export const ProviderEntrySchema = v.looseObject({
  walletPubkey: Address,
  settlementMode: v.picklist(["native_sol", "spl"]),
  splMint: v.optional(Address),
  splitVaultPda: v.optional(Address),
  serviceUrl: v.string(),
  displayName: v.optional(v.string()),
  description: v.optional(v.string()),
  tags: v.array(v.string()),
  serviceMetadata: v.optional(v.record(v.string(), v.unknown())),
  listingOptIn: v.boolean(),
  registrationVerifiedAt: Instant,
  updatedAt: Instant,
});

export const ProvidersPageResponseSchema = v.looseObject({
  entries: v.array(ProviderEntrySchema),
  nextCursor: v.nullable(v.string()),
  notice: v.string(),
});

/** pr402's PublicProviderSingle `{entry, notice}`, with the entry's members also at the top level. */
export const ProviderSingleResponseSchema = v.looseObject({ ...ProviderEntrySchema.entries, entry: ProviderEntrySchema, notice: v.string() });

export const DirectoryStatsResponseSchema = v.looseObject({
  network: v.string(),
  providers: v.looseObject({ total: Integer }),
  resources: v.looseObject({ total: Integer, byScheme: v.record(v.string(), Integer) }),
  asOf: Instant,
});

export const ChallengeResponseSchema = v.looseObject({
  wallet: Address,
  action: v.string(),
  message: v.string(),
  expiresUnix: Integer,
  ttlSeconds: Integer,
});

const ProvisioningStatusSchema = v.looseObject({ asset: v.string(), recovered: DecimalAmount, total: DecimalAmount });

const VaultPdaPreviewSchema = v.looseObject({ label: v.string(), mint: Address, vaultPda: Address, solStoragePda: Address });

/** pr402's SchemeOnboardInfo (src/facilitator.rs): one rail of the preview, and the rail lookup's body. */
export const RailInfoSchema = v.looseObject({
  label: v.string(),
  role: v.string(),
  payTo: Address,
  vaultPda: Address,
  solStoragePda: Address,
  tokenPda: v.nullable(Address),
  feeBps: v.pipe(v.string(), v.regex(/^\d{1,5}$/)),
  status: v.picklist(["Sovereign", "Active", "NotProvisioned"]),
  isSovereign: v.boolean(),
  provisioningStatus: v.nullable(ProvisioningStatusSchema),
  bankPda: v.optional(Address),
  payToKind: v.picklist(["splitVault", "escrowPda"]),
  payToResolve: v.picklist(["onboard.vaultPda", "discovery.vaultPda"]),
  vaultPdaPreviewMint: v.optional(Address),
  vaultPdaPreviews: v.optional(v.array(VaultPdaPreviewSchema)),
});

/** The exact rail in its wallet `payTo` form (src/directory/sellers/wallet-rail-view.ts): payTo is the seller's own wallet. */
const WalletRailInfoSchema = v.looseObject({
  scheme: v.literal(EXACT_SCHEME),
  label: v.string(),
  role: v.string(),
  payTo: Address,
  payToKind: v.literal("wallet"),
  payToResolve: v.literal("seller.wallet"),
  feeBps: v.literal("0"),
  status: v.picklist(["Active", "NotProvisioned"]),
  tokenAccount: v.looseObject({ asset: v.string(), mint: Address, tokenProgram: Address, address: Address, exists: v.boolean() }),
  minimumAmount: DecimalAmount,
  line: v.looseObject({ scheme: v.literal(EXACT_SCHEME), network: v.string(), payTo: Address, asset: Address, amount: DecimalAmount, maxTimeoutSeconds: Integer, extra: v.record(v.string(), v.unknown()) }),
});

const PayToForms = v.array(v.picklist(["vault", "wallet"]));

export const SellerPreviewResponseSchema = v.looseObject({
  wallet: Address,
  /** pr402's OnboardResponse.facilitator: the service's name; fee payer and network are in facilitatorInfo. */
  facilitator: v.string(),
  facilitatorInfo: v.looseObject({ feePayer: Address, network: v.string() }),
  schemes: v.looseObject({
    // The vault form's block (pr402's), or the wallet form's alone where no UniversalSettle program is configured; absent with neither.
    [EXACT_SCHEME]: v.optional(
      v.union([
        v.looseObject({ ...RailInfoSchema.entries, payToForms: PayToForms, walletPayTo: v.optional(WalletRailInfoSchema) }),
        v.looseObject({ ...WalletRailInfoSchema.entries, payToForms: PayToForms }),
      ]),
    ),
    [ESCROW_SCHEME]: RailInfoSchema,
  }),
  /** The exact payTo forms this deployment does not offer, and why (as /supported's notOffered). */
  notOffered: v.array(v.looseObject({ scheme: v.string(), payToForm: v.string(), reason: v.literal("rail_not_enabled"), why: v.string() })),
  lifecycle: v.looseObject({
    previewed: v.literal(true),
    activated: v.boolean(),
    verified: v.boolean(),
    nextStep: v.optional(v.picklist(["activate", "create_token_account", "verify"])),
    blockedReason: v.optional(v.literal("seller_token_account_missing")),
    sellerTokenAccount: v.optional(Address),
  }),
});

/** pr402 answers register with the preview body (OnboardResponse); ours adds the verified provider entry. */
export const SellerRegisterResponseSchema = v.looseObject({
  ...SellerPreviewResponseSchema.entries,
  verified: v.literal(true),
  provider: v.looseObject({ ...ProviderEntrySchema.entries, serviceUrl: v.nullable(v.string()) }),
  note: v.string(),
});

export const SellerRetireResponseSchema = v.looseObject({ wallet: Address, retiredRowCount: Integer, note: v.optional(v.string()) });

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

/** pr402's BuildSlaEscrowV2TxResponse and BuildSubmitDeliveryTxResponse, and our party-builder fields. */
export const PartyBuildResponseSchema = v.looseObject({
  x402Version: v.literal(2),
  transaction: v.string(),
  payerSignatureIndex: Integer,
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: Integer,
  feePayer: Address,
  payer: Address,
  signerPubkeys: v.array(Address),
  programId: Address,
  paymentPda: Address,
  paymentExtPda: Address,
  paymentUidHex: v.string(),
  notes: v.array(v.string()),
});

/** pr402's BuildFundPaymentV2TxResponse. */
export const EscrowV2BuildResponseSchema = v.looseObject({
  ...PartyBuildResponseSchema.entries,
  payTo: Address,
  paymentUid: v.string(),
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

const SellerPaymentEntrySchema = v.looseObject({
  correlationId: v.string(),
  verifyAt: v.optional(v.nullable(Instant)),
  verifyOk: v.optional(v.nullable(v.boolean())),
  settleAt: v.optional(v.nullable(Instant)),
  settleOk: v.optional(v.nullable(v.boolean())),
  settlementSignature: v.optional(v.nullable(v.string())),
  payerWallet: v.optional(v.nullable(Address)),
  scheme: v.optional(v.nullable(v.string())),
  amount: v.optional(v.nullable(v.string())),
  asset: v.optional(v.nullable(v.string())),
  createdAt: Instant,
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

export const SellerPaymentsResponseSchema = v.looseObject({ entries: v.array(SellerPaymentEntrySchema), nextCursor: v.nullable(v.string()) });

/** pr402's BuildSlaEscrowSettleTxResponse (all optional there) with our unsigned-transaction fields. */
export const EscrowSettleBuildResponseSchema = v.looseObject({
  x402Version: v.literal(2),
  action: v.picklist(["release_payment", "refund_payment"]),
  unsignedTransaction: v.string(),
  transaction: v.string(),
  paymentUidHex: v.string(),
  paymentPda: Address,
  programId: Address,
  feePayer: Address,
  payerSignatureIndex: Integer,
  signerPubkeys: v.array(Address),
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: Integer,
  notes: v.array(v.string()),
});

/** pr402's SlaEscrowSettleResponse / SlaEscrowCloseResponse counters next to the keeper's report. */
export const KeeperPassResponseSchema = v.looseObject({
  considered: Integer,
  succeeded: Integer,
  skipped: Integer,
  failed: Integer,
  items: v.array(v.looseObject({})),
  dryRun: v.boolean(),
  released: Integer,
  refunded: Integer,
  ignored: v.array(v.string()),
});
