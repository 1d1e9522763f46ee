import * as v from "valibot";
import { SELLER_PREVIEW_SCHEMES } from "../../directory/sellers/seller-inputs";
import { Address, DecimalAmount, Instant, Integer } from "../responses/fields";
import { ProviderEntrySchema } from "./providers-responses";

/** Success bodies of the seller routes (routes/sellers.ts) and of the wallet challenges the resource routes share. */

export const ChallengeResponseSchema = v.looseObject({
  wallet: Address,
  action: v.string(),
  message: v.string(),
  expiresUnix: Integer,
  ttlSeconds: Integer,
});

/** A challenge issued for a registration's terms: the same, with the terms its message names. */
export const RegisterChallengeResponseSchema = v.looseObject({
  ...ChallengeResponseSchema.entries,
  terms: v.object({
    asset: v.string(),
    payToForm: v.picklist(["vault", "wallet"]),
    serviceUrl: v.string(),
    listingOptIn: v.string(),
    discovery: v.string(),
  }),
});

const ProvisioningStatusSchema = v.looseObject({ asset: v.string(), recovered: DecimalAmount, total: DecimalAmount });

const VaultPdaPreviewSchema = v.looseObject({
  label: v.string(),
  mint: Address,
  vaultPda: Address,
  solStoragePda: Address,
});

/** pr402's SchemeOnboardInfo (src/facilitator.rs): one rail of the preview, and the rail lookup's body. */
export const RailInfoSchema = v.looseObject({
  label: v.string(),
  role: v.string(),
  /**
   * Null until the address exists on chain (a vault not yet activated, an escrow not created): never an address that
   * cannot be paid.
   */
  payTo: v.nullable(Address),
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

/**
 * The preview's rails, named by the directory (http/ names no scheme itself: test/unit/repo/rail-boundaries.test.ts).
 */
const [EXACT_SCHEME, ...OTHER_PREVIEW_SCHEMES] = SELLER_PREVIEW_SCHEMES;

/**
 * The exact rail in its wallet `payTo` form (src/rails/exact/wallet-seller-view.ts): payTo is the seller's own wallet.
 */
const WalletRailInfoSchema = v.looseObject({
  scheme: v.literal(EXACT_SCHEME),
  label: v.string(),
  role: v.string(),
  payTo: Address,
  payToKind: v.literal("wallet"),
  payToResolve: v.literal("seller.wallet"),
  feeBps: v.literal("0"),
  status: v.picklist(["Active", "NotProvisioned"]),
  tokenAccount: v.looseObject({
    asset: v.string(),
    mint: Address,
    tokenProgram: Address,
    address: Address,
    exists: v.boolean(),
  }),
  minimumAmount: DecimalAmount,
  line: v.looseObject({
    scheme: v.literal(EXACT_SCHEME),
    network: v.string(),
    payTo: Address,
    asset: Address,
    amount: DecimalAmount,
    maxTimeoutSeconds: Integer,
    extra: v.record(v.string(), v.unknown()),
  }),
});

const PayToForms = v.array(v.picklist(["vault", "wallet"]));

export const SellerPreviewResponseSchema = v.looseObject({
  wallet: Address,
  /** pr402's OnboardResponse.facilitator: the service's name; fee payer and network are in facilitatorInfo. */
  facilitator: v.string(),
  facilitatorInfo: v.looseObject({ feePayer: Address, network: v.string() }),
  schemes: v.looseObject({
    // The vault form's block (pr402's), or the wallet form's alone where no UniversalSettle program is configured;
    // absent with neither.
    [EXACT_SCHEME]: v.optional(
      v.union([
        v.looseObject({
          ...RailInfoSchema.entries,
          payToForms: PayToForms,
          walletPayTo: v.optional(WalletRailInfoSchema),
        }),
        v.looseObject({ ...WalletRailInfoSchema.entries, payToForms: PayToForms }),
      ]),
    ),
    ...Object.fromEntries(OTHER_PREVIEW_SCHEMES.map((scheme) => [scheme, RailInfoSchema])),
  }),
  /** The rails (or exact payTo forms) this deployment does not offer, and why (as /supported's notOffered). */
  notOffered: v.array(
    v.looseObject({
      scheme: v.string(),
      payToForm: v.optional(v.string()),
      reason: v.literal("rail_not_enabled"),
      why: v.string(),
    }),
  ),
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

export const SellerRetireResponseSchema = v.looseObject({
  wallet: Address,
  retiredRowCount: Integer,
  note: v.optional(v.string()),
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
  /**
   * What the settlement is to the seller: `sale`, or `deposit` (a buyer's ceiling locked for a later claim, whose
   * claim is the sale: count sales only, or one sale shows twice); null on rows recorded before roles were.
   */
  role: v.nullable(v.picklist(["sale", "deposit"])),
});

export const SellerPaymentsResponseSchema = v.looseObject({
  entries: v.array(SellerPaymentEntrySchema),
  nextCursor: v.nullable(v.string()),
});
