/**
 * SLA-Escrow account codecs (docs/sla-escrow-abi.md "Account layouts"): 8-byte Steel header (byte 0 =
 * discriminator) + `repr(C)` body. PaymentExt is opaque in the ABI, so it has no codec.
 *
 * `getXDecoder().decode` throws ProgramDataError on a wrong length or discriminator; `decodeX` returns
 * null instead and is the one to use on RPC data. Amounts without a unit suffix are in base units of
 * the escrow's mint (lamports for native SOL). Timestamps are the chain clock's unix seconds.
 */
import {
  type Address,
  type FixedSizeCodec,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  getAddressDecoder,
  getAddressEncoder,
  getBooleanDecoder,
  getBooleanEncoder,
  getI64Decoder,
  getI64Encoder,
  getStructDecoder,
  getStructEncoder,
  getU8Decoder,
  getU8Encoder,
  getU16Decoder,
  getU16Encoder,
  getU64Decoder,
  getU64Encoder,
  padRightDecoder,
  padRightEncoder,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { getBytes32Decoder, getBytes32Encoder } from "../../../chain/program/bytes32-codec";
import {
  ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
  type DiscriminatedCodecs,
  getDiscriminatedCodecs,
} from "../../../chain/program/discriminated-codec";

/** Byte 0 of every SLA-Escrow account. */
const SLA_ESCROW_ACCOUNT_DISCRIMINATOR = {
  BANK: 100,
  CONFIG: 101,
  ESCROW: 102,
  PAYMENT: 103,
  AUTHORITY_TRANSFER: 104,
} as const;

export const BANK_ACCOUNT_SIZE = 56;
export const ESCROW_CONFIG_ACCOUNT_SIZE = 40;
export const ESCROW_ACCOUNT_SIZE = 128;
export const PAYMENT_BODY_SIZE_BYTES = 376;
export const PAYMENT_ACCOUNT_SIZE = 384;

/** Payment.state. Values outside this table may appear in newer program versions; keep them opaque. */
export const PAYMENT_STATE = {
  FUNDED: 0,
  RELEASED: 1,
  REFUNDED: 2,
  /** v0.5: funded with FundPaymentV2 (has a PaymentExt). */
  FUNDED_EXTENDED: 10,
} as const;

/** Payment.resolution_state (also the `state` byte of ConfirmOracle). */
export const RESOLUTION_STATE = {
  PENDING: 0,
  APPROVED: 1,
  REJECTED: 2,
} as const;

function accountCodecs<T>(
  subject: string,
  discriminator: number,
  bodyEncoder: FixedSizeEncoder<T>,
  bodyDecoder: FixedSizeDecoder<T>,
): DiscriminatedCodecs<T> {
  // Accounts are read "at least": fields a newer program appends must not make the account unreadable.
  return getDiscriminatedCodecs(
    subject,
    discriminator,
    ACCOUNT_DISCRIMINATOR_PREFIX_SIZE_BYTES,
    bodyEncoder,
    bodyDecoder,
    "at_least",
  );
}

// ---------------------------------------------------------------------------------------------------
// Bank (48)

export interface Bank {
  /** @0 */
  authority: Address;
  /** @32 i64 */
  openAtUnixSeconds: bigint;
  /** @40 u16 */
  feeBps: number;
  // @42 6 bytes padding
}

const bank = accountCodecs<Bank>(
  "SLA-Escrow Bank account",
  SLA_ESCROW_ACCOUNT_DISCRIMINATOR.BANK,
  getStructEncoder([
    ["authority", getAddressEncoder()],
    ["openAtUnixSeconds", getI64Encoder()],
    ["feeBps", padRightEncoder(getU16Encoder(), 6)],
  ]),
  getStructDecoder([
    ["authority", getAddressDecoder()],
    ["openAtUnixSeconds", getI64Decoder()],
    ["feeBps", padRightDecoder(getU16Decoder(), 6)],
  ]),
);

export function getBankEncoder(): FixedSizeEncoder<Bank> {
  return bank.encoder;
}
export function getBankDecoder(): FixedSizeDecoder<Bank> {
  return bank.decoder;
}
/** Null unless at least 56 bytes (the layout; later bytes ignored) with discriminator 100. */
export const decodeBank: (data: ReadonlyUint8Array) => Bank | null = bank.safeDecode;

// ---------------------------------------------------------------------------------------------------
// Config (32): program-wide defaults copied into each Payment at funding

export interface EscrowConfig {
  /** @0 i64 */
  closureDelaySeconds: bigint;
  /** @8 i64 */
  refundCooldownSeconds: bigint;
  /** @16 i64 (300 by default): SubmitDelivery must land before expires_at − this. */
  deliveryCutoffSeconds: bigint;
  /** @24 i64 */
  updatedAtUnixSeconds: bigint;
}

const escrowConfig = accountCodecs<EscrowConfig>(
  "SLA-Escrow Config account",
  SLA_ESCROW_ACCOUNT_DISCRIMINATOR.CONFIG,
  getStructEncoder([
    ["closureDelaySeconds", getI64Encoder()],
    ["refundCooldownSeconds", getI64Encoder()],
    ["deliveryCutoffSeconds", getI64Encoder()],
    ["updatedAtUnixSeconds", getI64Encoder()],
  ]),
  getStructDecoder([
    ["closureDelaySeconds", getI64Decoder()],
    ["refundCooldownSeconds", getI64Decoder()],
    ["deliveryCutoffSeconds", getI64Decoder()],
    ["updatedAtUnixSeconds", getI64Decoder()],
  ]),
);

export function getEscrowConfigEncoder(): FixedSizeEncoder<EscrowConfig> {
  return escrowConfig.encoder;
}
export function getEscrowConfigDecoder(): FixedSizeDecoder<EscrowConfig> {
  return escrowConfig.decoder;
}
/** Null unless at least 40 bytes (the layout; later bytes ignored) with discriminator 101. */
export const decodeEscrowConfig: (data: ReadonlyUint8Array) => EscrowConfig | null = escrowConfig.safeDecode;

// ---------------------------------------------------------------------------------------------------
// Escrow (120): one per (mint, bank)

export interface Escrow {
  /** @0 zero address for native SOL. */
  mint: Address;
  /** @32 the escrow's token account. */
  escrowTokens: Address;
  /** @64 i64 */
  openAtUnixSeconds: bigint;
  /** @72 */
  feeBalance: bigint;
  /** @80 */
  tokenLiquidity: bigint;
  /** @88 */
  minPaymentAmount: bigint;
  /** @96 */
  maxPaymentAmount: bigint;
  /** @104 */
  minFeeAmount: bigint;
  /** @112 u16 */
  feeBps: number;
  /** @114 u16 */
  oracleFeeBps: number;
  /** @116 byte == 1 */
  paused: boolean;
  // @117 3 bytes padding
}

const escrow = accountCodecs<Escrow>(
  "SLA-Escrow Escrow account",
  SLA_ESCROW_ACCOUNT_DISCRIMINATOR.ESCROW,
  getStructEncoder([
    ["mint", getAddressEncoder()],
    ["escrowTokens", getAddressEncoder()],
    ["openAtUnixSeconds", getI64Encoder()],
    ["feeBalance", getU64Encoder()],
    ["tokenLiquidity", getU64Encoder()],
    ["minPaymentAmount", getU64Encoder()],
    ["maxPaymentAmount", getU64Encoder()],
    ["minFeeAmount", getU64Encoder()],
    ["feeBps", getU16Encoder()],
    ["oracleFeeBps", getU16Encoder()],
    ["paused", padRightEncoder(getBooleanEncoder(), 3)],
  ]),
  getStructDecoder([
    ["mint", getAddressDecoder()],
    ["escrowTokens", getAddressDecoder()],
    ["openAtUnixSeconds", getI64Decoder()],
    ["feeBalance", getU64Decoder()],
    ["tokenLiquidity", getU64Decoder()],
    ["minPaymentAmount", getU64Decoder()],
    ["maxPaymentAmount", getU64Decoder()],
    ["minFeeAmount", getU64Decoder()],
    ["feeBps", getU16Decoder()],
    ["oracleFeeBps", getU16Decoder()],
    ["paused", padRightDecoder(getBooleanDecoder(), 3)],
  ]),
);

export function getEscrowEncoder(): FixedSizeEncoder<Escrow> {
  return escrow.encoder;
}
export function getEscrowDecoder(): FixedSizeDecoder<Escrow> {
  return escrow.decoder;
}
/** Null unless at least 128 bytes (the layout; later bytes ignored) with discriminator 102. */
export const decodeEscrow: (data: ReadonlyUint8Array) => Escrow | null = escrow.safeDecode;

// ---------------------------------------------------------------------------------------------------
// Payment (body 376, 384 on chain)

export interface Payment {
  /** @0 32 raw bytes */
  paymentUid: ReadonlyUint8Array;
  /** @32 */
  escrow: Address;
  /** @64 */
  buyer: Address;
  /** @96 */
  seller: Address;
  /** @128 */
  mint: Address;
  /** @160 */
  oracleAuthority: Address;
  /** @192 32 bytes */
  slaHash: ReadonlyUint8Array;
  /** @224 32 bytes */
  deliveryHash: ReadonlyUint8Array;
  /** @256 32 bytes */
  resolutionHash: ReadonlyUint8Array;
  /** @288 u64 */
  amount: bigint;
  /** @296 u64 */
  minFeeAmount: bigint;
  /** @304 i64 */
  createdAtUnixSeconds: bigint;
  /** @312 i64 */
  expiresAtUnixSeconds: bigint;
  /** @320 i64 */
  closedAtUnixSeconds: bigint;
  /** @328 i64 (delivery_timestamp) */
  deliveryTimestampUnixSeconds: bigint;
  /** @336 i64 */
  oracleAuthoritySetAtUnixSeconds: bigint;
  /** @344 i64 */
  closureDelaySeconds: bigint;
  /** @352 i64 */
  refundCooldownSeconds: bigint;
  /** @360 i64 */
  deliveryCutoffSeconds: bigint;
  /** @368 u16 */
  resolutionReason: number;
  /** @370 u16 */
  feeBps: number;
  /** @372 u16 */
  oracleFeeBps: number;
  /** @374 u8, see PAYMENT_STATE */
  state: number;
  /** @375 u8, see RESOLUTION_STATE */
  resolutionState: number;
}

const payment = accountCodecs<Payment>(
  "SLA-Escrow Payment account",
  SLA_ESCROW_ACCOUNT_DISCRIMINATOR.PAYMENT,
  getStructEncoder([
    ["paymentUid", getBytes32Encoder()],
    ["escrow", getAddressEncoder()],
    ["buyer", getAddressEncoder()],
    ["seller", getAddressEncoder()],
    ["mint", getAddressEncoder()],
    ["oracleAuthority", getAddressEncoder()],
    ["slaHash", getBytes32Encoder()],
    ["deliveryHash", getBytes32Encoder()],
    ["resolutionHash", getBytes32Encoder()],
    ["amount", getU64Encoder()],
    ["minFeeAmount", getU64Encoder()],
    ["createdAtUnixSeconds", getI64Encoder()],
    ["expiresAtUnixSeconds", getI64Encoder()],
    ["closedAtUnixSeconds", getI64Encoder()],
    ["deliveryTimestampUnixSeconds", getI64Encoder()],
    ["oracleAuthoritySetAtUnixSeconds", getI64Encoder()],
    ["closureDelaySeconds", getI64Encoder()],
    ["refundCooldownSeconds", getI64Encoder()],
    ["deliveryCutoffSeconds", getI64Encoder()],
    ["resolutionReason", getU16Encoder()],
    ["feeBps", getU16Encoder()],
    ["oracleFeeBps", getU16Encoder()],
    ["state", getU8Encoder()],
    ["resolutionState", getU8Encoder()],
  ]),
  getStructDecoder([
    ["paymentUid", getBytes32Decoder()],
    ["escrow", getAddressDecoder()],
    ["buyer", getAddressDecoder()],
    ["seller", getAddressDecoder()],
    ["mint", getAddressDecoder()],
    ["oracleAuthority", getAddressDecoder()],
    ["slaHash", getBytes32Decoder()],
    ["deliveryHash", getBytes32Decoder()],
    ["resolutionHash", getBytes32Decoder()],
    ["amount", getU64Decoder()],
    ["minFeeAmount", getU64Decoder()],
    ["createdAtUnixSeconds", getI64Decoder()],
    ["expiresAtUnixSeconds", getI64Decoder()],
    ["closedAtUnixSeconds", getI64Decoder()],
    ["deliveryTimestampUnixSeconds", getI64Decoder()],
    ["oracleAuthoritySetAtUnixSeconds", getI64Decoder()],
    ["closureDelaySeconds", getI64Decoder()],
    ["refundCooldownSeconds", getI64Decoder()],
    ["deliveryCutoffSeconds", getI64Decoder()],
    ["resolutionReason", getU16Decoder()],
    ["feeBps", getU16Decoder()],
    ["oracleFeeBps", getU16Decoder()],
    ["state", getU8Decoder()],
    ["resolutionState", getU8Decoder()],
  ]),
);

export function getPaymentEncoder(): FixedSizeEncoder<Payment> {
  return payment.encoder;
}
export function getPaymentDecoder(): FixedSizeDecoder<Payment> {
  return payment.decoder;
}
export function getPaymentCodec(): FixedSizeCodec<Payment> {
  return payment.codec;
}
/** Null unless at least 384 bytes (the layout; later bytes ignored) with discriminator 103. */
export const decodePayment: (data: ReadonlyUint8Array) => Payment | null = payment.safeDecode;
