import { describe, expect, it } from "vitest";
import { ProgramDataError } from "../../../../../src/chain/program/program-data-error";
import {
  BANK_ACCOUNT_SIZE,
  type Bank,
  decodeBank,
  decodeEscrow,
  decodeEscrowConfig,
  decodePayment,
  ESCROW_ACCOUNT_SIZE,
  ESCROW_CONFIG_ACCOUNT_SIZE,
  type Escrow,
  type EscrowConfig,
  getBankDecoder,
  getBankEncoder,
  getEscrowConfigDecoder,
  getEscrowConfigEncoder,
  getEscrowDecoder,
  getEscrowEncoder,
  getPaymentCodec,
  getPaymentDecoder,
  getPaymentEncoder,
  PAYMENT_ACCOUNT_SIZE,
  PAYMENT_BODY_SIZE_BYTES,
  PAYMENT_STATE,
  type Payment,
  RESOLUTION_STATE,
} from "../../../../../src/rails/sla-escrow/program/accounts";
import { NATIVE_SOL_ESCROW_MINT } from "../../../../../src/rails/sla-escrow/program/pda";
import { addressFromBytes, bytes, fill32, seq32, zeros } from "../../byte-vectors";

const bank: Bank = { authority: addressFromBytes(seq32(1)), openAtUnixSeconds: -2n, feeBps: 250 };
const bankBytes = bytes(
  [100, 0, 0, 0, 0, 0, 0, 0], // @0 header: Bank = 100
  seq32(1), // @8 authority
  [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // @40 open_at i64 = -2
  [0xfa, 0x00], // @48 fee_bps = 250
  [0, 0, 0, 0, 0, 0], // @50 padding
);

const escrowConfig: EscrowConfig = {
  closureDelaySeconds: 86_400n,
  refundCooldownSeconds: 3_600n,
  deliveryCutoffSeconds: 300n,
  updatedAtUnixSeconds: 0x0102030405060708n,
};
const escrowConfigBytes = bytes(
  [101, 0, 0, 0, 0, 0, 0, 0], // @0 header: Config = 101
  [0x80, 0x51, 0x01, 0, 0, 0, 0, 0], // @8 closure_delay_seconds = 86,400
  [0x10, 0x0e, 0, 0, 0, 0, 0, 0], // @16 refund_cooldown_seconds = 3,600
  [0x2c, 0x01, 0, 0, 0, 0, 0, 0], // @24 delivery_cutoff_seconds = 300
  [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01], // @32 updated_at
);

const escrow: Escrow = {
  mint: addressFromBytes(seq32(1)),
  escrowTokens: addressFromBytes(seq32(33)),
  openAtUnixSeconds: 1n,
  feeBalance: 2n,
  tokenLiquidity: 3n,
  minPaymentAmount: 4n,
  maxPaymentAmount: 0xffff_ffff_ffff_ffffn,
  minFeeAmount: 6n,
  feeBps: 100,
  oracleFeeBps: 50,
  paused: true,
};
const escrowBytes = bytes(
  [102, 0, 0, 0, 0, 0, 0, 0], // @0 header: Escrow = 102
  seq32(1), // @8 mint
  seq32(33), // @40 escrow_tokens
  [1, 0, 0, 0, 0, 0, 0, 0], // @72 open_at
  [2, 0, 0, 0, 0, 0, 0, 0], // @80 fee_balance
  [3, 0, 0, 0, 0, 0, 0, 0], // @88 token_liquidity
  [4, 0, 0, 0, 0, 0, 0, 0], // @96 min_payment_amount
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // @104 max_payment_amount = u64::MAX
  [6, 0, 0, 0, 0, 0, 0, 0], // @112 min_fee_amount
  [0x64, 0x00], // @120 fee_bps = 100
  [0x32, 0x00], // @122 oracle_fee_bps = 50
  [0x01], // @124 paused
  [0, 0, 0], // @125 padding
);

const payment: Payment = {
  paymentUid: Uint8Array.from(seq32(1)),
  escrow: addressFromBytes(seq32(33)),
  buyer: addressFromBytes(seq32(65)),
  seller: addressFromBytes(seq32(97)),
  mint: NATIVE_SOL_ESCROW_MINT,
  oracleAuthority: addressFromBytes(seq32(129)),
  slaHash: Uint8Array.from(fill32(0xa1)),
  deliveryHash: Uint8Array.from(fill32(0xb2)),
  resolutionHash: Uint8Array.from(fill32(0xc3)),
  amount: 1_000_000n,
  minFeeAmount: 10_000n,
  createdAtUnixSeconds: 1_000n,
  expiresAtUnixSeconds: 2_000n,
  closedAtUnixSeconds: 0n,
  deliveryTimestampUnixSeconds: -1n,
  oracleAuthoritySetAtUnixSeconds: 5n,
  closureDelaySeconds: 86_400n,
  refundCooldownSeconds: 3_600n,
  deliveryCutoffSeconds: 300n,
  resolutionReason: 0x0102,
  feeBps: 100,
  oracleFeeBps: 50,
  state: PAYMENT_STATE.FUNDED_EXTENDED,
  resolutionState: RESOLUTION_STATE.REJECTED,
};
// Absolute offsets = 8 + the ABI's body offsets.
const paymentBytes = bytes(
  [103, 0, 0, 0, 0, 0, 0, 0], // @0 header: Payment = 103
  seq32(1), // @8 payment_uid
  seq32(33), // @40 escrow
  seq32(65), // @72 buyer
  seq32(97), // @104 seller
  zeros(32), // @136 mint = native SOL
  seq32(129), // @168 oracle_authority
  fill32(0xa1), // @200 sla_hash
  fill32(0xb2), // @232 delivery_hash
  fill32(0xc3), // @264 resolution_hash
  [0x40, 0x42, 0x0f, 0, 0, 0, 0, 0], // @296 amount = 1,000,000
  [0x10, 0x27, 0, 0, 0, 0, 0, 0], // @304 min_fee_amount = 10,000
  [0xe8, 0x03, 0, 0, 0, 0, 0, 0], // @312 created_at = 1,000
  [0xd0, 0x07, 0, 0, 0, 0, 0, 0], // @320 expires_at = 2,000
  [0, 0, 0, 0, 0, 0, 0, 0], // @328 closed_at = 0
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // @336 delivery_timestamp = -1
  [5, 0, 0, 0, 0, 0, 0, 0], // @344 oracle_authority_set_at = 5
  [0x80, 0x51, 0x01, 0, 0, 0, 0, 0], // @352 closure_delay_seconds = 86,400
  [0x10, 0x0e, 0, 0, 0, 0, 0, 0], // @360 refund_cooldown_seconds = 3,600
  [0x2c, 0x01, 0, 0, 0, 0, 0, 0], // @368 delivery_cutoff_seconds = 300
  [0x02, 0x01], // @376 resolution_reason = 0x0102
  [0x64, 0x00], // @378 fee_bps = 100
  [0x32, 0x00], // @380 oracle_fee_bps = 50
  [10], // @382 state = Funded-extended
  [2], // @383 resolution_state = rejected
);

describe("SLA-Escrow account codecs", () => {
  it("have the documented sizes", () => {
    expect([BANK_ACCOUNT_SIZE, ESCROW_CONFIG_ACCOUNT_SIZE, ESCROW_ACCOUNT_SIZE, PAYMENT_ACCOUNT_SIZE]).toEqual([
      56, 40, 128, 384,
    ]);
    expect(PAYMENT_BODY_SIZE_BYTES).toBe(376);
    expect([bankBytes.length, escrowConfigBytes.length, escrowBytes.length, paymentBytes.length]).toEqual([
      56, 40, 128, 384,
    ]);
  });

  it("Bank encodes to the hand-built bytes and decodes back", () => {
    expect(getBankEncoder().encode(bank)).toEqual(bankBytes);
    expect(getBankDecoder().decode(bankBytes)).toEqual(bank);
    expect(decodeBank(bankBytes)).toEqual(bank);
  });

  it("Config encodes to the hand-built bytes and decodes back", () => {
    expect(getEscrowConfigEncoder().encode(escrowConfig)).toEqual(escrowConfigBytes);
    expect(getEscrowConfigDecoder().decode(escrowConfigBytes)).toEqual(escrowConfig);
    expect(decodeEscrowConfig(escrowConfigBytes)).toEqual(escrowConfig);
  });

  it("Escrow encodes to the hand-built bytes and decodes back", () => {
    expect(getEscrowEncoder().encode(escrow)).toEqual(escrowBytes);
    expect(getEscrowDecoder().decode(escrowBytes)).toEqual(escrow);
    expect(decodeEscrow(escrowBytes)).toEqual(escrow);
  });

  it("Payment encodes to the hand-built bytes and decodes back", () => {
    expect(getPaymentEncoder().encode(payment)).toEqual(paymentBytes);
    const decoded = getPaymentDecoder().decode(paymentBytes);
    expect(decoded).toEqual(payment);
    expect(decodePayment(paymentBytes)).toEqual(payment);
    expect(getPaymentCodec().decode(getPaymentCodec().encode(payment))).toEqual(payment);
  });

  it("decoded byte fields are copies, not views of the RPC buffer", () => {
    const source = paymentBytes.slice();
    const decoded = decodePayment(source);
    source[8] = 0xee;
    expect(decoded?.paymentUid[0]).toBe(1);
  });

  it("rejects accounts shorter than the layout (including the 376-byte body without its header)", () => {
    expect(decodePayment(paymentBytes.subarray(8))).toBeNull();
    expect(() => getPaymentDecoder().decode(paymentBytes.subarray(0, 383))).toThrow(
      /SLA-Escrow Payment account: expected at least 384 bytes, got 383/,
    );
    expect(decodeBank(bankBytes.subarray(0, 48))).toBeNull();
    expect(decodeEscrowConfig(escrowConfigBytes.subarray(0, 39))).toBeNull();
    expect(decodeEscrow(escrowBytes.subarray(0, 127))).toBeNull();
  });

  it(
    'reads accounts longer than the layout ("at least", as the ABI\'s clients do): appended fields are ' + "ignored",
    () => {
      expect(decodePayment(bytes(paymentBytes, [0]))).toEqual(decodePayment(paymentBytes));
      expect(decodePayment(bytes(paymentBytes, new Array(64).fill(0xee)))).toEqual(decodePayment(paymentBytes));
      expect(decodeBank(bytes(bankBytes, [1]))).toEqual(decodeBank(bankBytes));
      expect(decodeEscrowConfig(bytes(escrowConfigBytes, [0]))).toEqual(decodeEscrowConfig(escrowConfigBytes));
      expect(decodeEscrow(bytes(escrowBytes, [7, 7]))).toEqual(decodeEscrow(escrowBytes));
      expect(decodeEscrow(bytes(escrowBytes, [7, 7]))).not.toBeNull();
    },
  );

  it("rejects wrong discriminators", () => {
    const wrong = escrowBytes.slice();
    wrong[0] = 103;
    expect(decodeEscrow(wrong)).toBeNull();
    expect(() => getEscrowDecoder().decode(wrong)).toThrow(ProgramDataError);
    expect(() => getEscrowDecoder().decode(wrong)).toThrow(/expected discriminator 102, got 103/);
    const authorityTransferLike = bankBytes.slice();
    authorityTransferLike[0] = 104;
    expect(decodeBank(authorityTransferLike)).toBeNull();
    const universalSettleConfigLike = escrowConfigBytes.slice();
    universalSettleConfigLike[0] = 0;
    expect(decodeEscrowConfig(universalSettleConfigLike)).toBeNull();
  });

  it("rejects hashes that are not 32 bytes when encoding", () => {
    expect(() => getPaymentEncoder().encode({ ...payment, slaHash: new Uint8Array(31) })).toThrow(RangeError);
  });

  it("names the states", () => {
    expect(PAYMENT_STATE).toEqual({ FUNDED: 0, RELEASED: 1, REFUNDED: 2, FUNDED_EXTENDED: 10 });
    expect(RESOLUTION_STATE).toEqual({ PENDING: 0, APPROVED: 1, REJECTED: 2 });
  });
});
