import { describe, expect, it } from "vitest";
import { ProgramDataError } from "../../../../../src/chain/program/program-data-error";
import {
  decodeSplitVault,
  decodeUniversalSettleConfig,
  feeBpsForVault,
  getSplitVaultCodec,
  getSplitVaultDecoder,
  getSplitVaultEncoder,
  getUniversalSettleConfigDecoder,
  getUniversalSettleConfigEncoder,
  SPLIT_VAULT_ACCOUNT_SIZE,
  type SplitVault,
  UNIVERSAL_SETTLE_CONFIG_ACCOUNT_SIZE,
  type UniversalSettleConfig,
} from "../../../../../src/rails/exact/program/accounts";
import { addressFromBytes, bytes, seq32, zeros } from "../../byte-vectors";

// Hand-built from docs/universal-settle-abi.md: offsets below are absolute (header 8 + body offset).
const splitVault: SplitVault = {
  seller: addressFromBytes(seq32(1)),
  solRecoveredLamports: 0x0102030405060708n,
  splRecoveredRaw: 1_000_000n,
  isProvisioned: true,
  bump: 254,
  isSovereign: true,
};
const splitVaultBytes = bytes(
  [1, 0, 0, 0, 0, 0, 0, 0], // @0 header: discriminator SplitVault = 1, bytes 1..7 zero
  seq32(1), // @8 seller = bytes 1..32
  [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01], // @40 sol_recovered u64 LE
  [0x40, 0x42, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00], // @48 spl_recovered = 1,000,000
  [0x01], // @56 is_provisioned
  [0xfe], // @57 bump = 254
  [0x01], // @58 is_sovereign
  [0, 0, 0, 0, 0], // @59 padding
);

const config: UniversalSettleConfig = {
  authority: addressFromBytes(seq32(33)),
  feeDestination: addressFromBytes(seq32(65)),
  updatedAtUnixSeconds: 0x1122334455667788n,
  minFeeAmountRaw: 10_000n,
  minFeeAmountLamports: 5_000n,
  provisioningFeeLamports: 10_000_000n,
  provisioningFeeRaw: 1_000_000n,
  feeBps: 100,
  discountedFeeBps: 90,
  useFeeShard: true,
  shardCount: 16,
};
const configBytes = bytes(
  [0, 0, 0, 0, 0, 0, 0, 0], // @0 header: discriminator Config = 0
  seq32(33), // @8 authority
  seq32(65), // @40 fee_destination
  [0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11], // @72 updated_at i64
  [0x10, 0x27, 0, 0, 0, 0, 0, 0], // @80 min_fee_amount = 10,000
  [0x88, 0x13, 0, 0, 0, 0, 0, 0], // @88 min_fee_amount_sol = 5,000
  [0x80, 0x96, 0x98, 0, 0, 0, 0, 0], // @96 provisioning_fee_sol = 10,000,000
  [0x40, 0x42, 0x0f, 0, 0, 0, 0, 0], // @104 provisioning_fee_spl = 1,000,000
  [0x64, 0x00], // @112 fee_bps = 100
  [0x5a, 0x00], // @114 discounted_fee_bps = 90
  [0x01], // @116 use_fee_shard
  [0x10], // @117 shard_count = 16
  [0, 0], // @118 padding
);

describe("SplitVault codec", () => {
  it("has the documented on-chain size", () => {
    expect(SPLIT_VAULT_ACCOUNT_SIZE).toBe(64);
    expect(splitVaultBytes.length).toBe(64);
    expect(getSplitVaultEncoder().fixedSize).toBe(64);
  });

  it("encodes to the hand-built bytes and decodes back", () => {
    expect(getSplitVaultEncoder().encode(splitVault)).toEqual(splitVaultBytes);
    expect(getSplitVaultDecoder().decode(splitVaultBytes)).toEqual(splitVault);
    expect(getSplitVaultCodec().decode(getSplitVaultCodec().encode(splitVault))).toEqual(splitVault);
    expect(decodeSplitVault(splitVaultBytes)).toEqual(splitVault);
  });

  it("reads booleans as byte == 1 (the ABI's is_provisioned == 1)", () => {
    const data = splitVaultBytes.slice();
    data[56] = 0;
    data[58] = 0;
    expect(decodeSplitVault(data)).toMatchObject({ isProvisioned: false, isSovereign: false });
  });

  it("rejects data shorter than the layout", () => {
    for (const length of [0, 8, 63]) {
      const data = new Uint8Array(length);
      data.set(splitVaultBytes.subarray(0, Math.min(length, 64)));
      expect(() => getSplitVaultDecoder().decode(data)).toThrow(ProgramDataError);
      expect(() => getSplitVaultDecoder().decode(data)).toThrow(/expected at least 64 bytes/);
      expect(decodeSplitVault(data)).toBeNull();
    }
  });

  it("reads data longer than the layout (a newer program's appended fields are ignored)", () => {
    const longer = new Uint8Array(65);
    longer.set(splitVaultBytes);
    longer[64] = 0xee;
    expect(decodeSplitVault(longer)).toEqual(decodeSplitVault(splitVaultBytes));
    expect(decodeSplitVault(longer)).not.toBeNull();
  });

  it("rejects a wrong discriminator (a Config or FeeShard account)", () => {
    for (const discriminator of [0, 2, 3, 255]) {
      const data = splitVaultBytes.slice();
      data[0] = discriminator;
      let caught: unknown;
      try {
        getSplitVaultDecoder().decode(data);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ProgramDataError);
      expect(caught).toMatchObject({ reason: "wrong_discriminator", expected: 1, actual: discriminator });
      expect(decodeSplitVault(data)).toBeNull();
    }
  });

  it("checks only byte 0 of the header, as the program does", () => {
    const data = splitVaultBytes.slice();
    data[3] = 7;
    expect(decodeSplitVault(data)).toEqual(splitVault);
  });

  it("writes zero padding even into a dirty buffer", () => {
    const buffer = new Uint8Array(64).fill(0xee);
    getSplitVaultEncoder().write(splitVault, buffer, 0);
    expect(buffer).toEqual(splitVaultBytes);
  });
});

describe("UniversalSettle Config codec", () => {
  it("has the documented on-chain size", () => {
    expect(UNIVERSAL_SETTLE_CONFIG_ACCOUNT_SIZE).toBe(120);
    expect(configBytes.length).toBe(120);
  });

  it("encodes to the hand-built bytes and decodes back", () => {
    expect(getUniversalSettleConfigEncoder().encode(config)).toEqual(configBytes);
    expect(getUniversalSettleConfigDecoder().decode(configBytes)).toEqual(config);
    expect(decodeUniversalSettleConfig(configBytes)).toEqual(config);
  });

  it('rejects a short account or a wrong discriminator; reads a longer one ("at least")', () => {
    expect(decodeUniversalSettleConfig(configBytes.subarray(0, 119))).toBeNull();
    expect(decodeUniversalSettleConfig(bytes(configBytes, zeros(1)))).toEqual(config);
    expect(() => getUniversalSettleConfigDecoder().decode(configBytes.subarray(0, 112))).toThrow(
      /UniversalSettle Config account: expected at least 120 bytes, got 112/,
    );
    const asVault = configBytes.slice();
    asVault[0] = 1;
    expect(decodeUniversalSettleConfig(asVault)).toBeNull();
    expect(() => getUniversalSettleConfigDecoder().decode(asVault)).toThrow(/expected discriminator 0, got 1/);
    // And a SplitVault is never read as a Config, nor the reverse.
    expect(decodeUniversalSettleConfig(splitVaultBytes)).toBeNull();
    expect(decodeSplitVault(configBytes)).toBeNull();
  });

  it("picks the discounted fee for sovereign vaults", () => {
    expect(feeBpsForVault(config, splitVault)).toBe(90);
    expect(feeBpsForVault(config, { ...splitVault, isSovereign: false })).toBe(100);
  });
});
