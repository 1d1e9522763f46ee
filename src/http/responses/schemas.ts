import * as v from "valibot";
import { PaymentRequirementsSchema } from "../../x402/schemas";

/**
 * Success bodies of the agent-facing routes, documented in /openapi.json and /agent-tools.json. Loose objects:
 * the listed members are promised, more may be added. A worker test parses live responses with them, so a
 * route that drifts from its documented shape fails the build.
 */
const Address = v.string();
const DecimalAmount = v.pipe(v.string(), v.regex(/^\d+$/));

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

/** What every payment builder answers: UnsignedTransactionFields (src/solana/unsigned-transaction.ts) and the verify body template. */
const UNSIGNED_TRANSACTION_ENTRIES = {
  transaction: v.string(),
  verifyBodyTemplate: v.looseObject({
    x402Version: v.literal(2),
    paymentPayload: v.looseObject({ x402Version: v.literal(2), accepted: PaymentRequirementsSchema, payload: v.looseObject({ transaction: v.string() }) }),
    paymentRequirements: PaymentRequirementsSchema,
  }),
  payerSignatureIndex: v.number(),
  recentBlockhash: v.string(),
  recentBlockhashExpiresAt: v.number(),
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
  paymentPda: Address,
  programId: Address,
  notes: v.array(v.string()),
});

export const ResourceEntrySchema = v.looseObject({
  id: v.number(),
  walletPubkey: Address,
  resourceUrl: v.string(),
  httpMethod: v.string(),
  title: v.string(),
  tags: v.array(v.string()),
  scheme: v.string(),
  listingOptIn: v.boolean(),
  lastProbeOk: v.boolean(),
  registrationVerifiedAt: v.string(),
  updatedAt: v.string(),
});

export const ResourceSearchResponseSchema = v.looseObject({
  entries: v.array(ResourceEntrySchema),
  nextCursor: v.nullable(v.string()),
  notice: v.string(),
});

export const SellerPreviewResponseSchema = v.looseObject({
  wallet: Address,
  facilitator: v.looseObject({ feePayer: Address, network: v.string() }),
  schemes: v.looseObject({ exact: v.looseObject({}), "sla-escrow": v.looseObject({}) }),
  lifecycle: v.looseObject({ previewed: v.literal(true), activated: v.boolean(), verified: v.boolean() }),
});

export const ProvisionResponseSchema = v.looseObject({
  wallet: Address,
  asset: v.string(),
  assetMint: Address,
  vaultPda: Address,
  alreadyProvisioned: v.boolean(),
  statusCode: v.string(),
  transaction: v.optional(v.string()),
  feePayer: Address,
  payer: Address,
  notes: v.array(v.string()),
});
