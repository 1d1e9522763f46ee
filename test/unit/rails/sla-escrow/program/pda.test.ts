import {
  type Address,
  address,
  getAddressEncoder,
  getProgramDerivedAddress,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { CLUSTERS } from "../../../../../src/platform/config/networks";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../../src/rails/sla-escrow/cluster-defaults";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findEscrowSolStoragePda,
  findPaymentExtPda,
  findPaymentPda,
  NATIVE_SOL_ESCROW_MINT,
} from "../../../../../src/rails/sla-escrow/program/pda";
import { addressFromBytes, independentPda, seq32, zeros } from "../../byte-vectors";

const programId = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
const addressEncoder = getAddressEncoder();
const utf8 = (text: string) => new TextEncoder().encode(text);
const raw = (value: Address) => Uint8Array.from(addressEncoder.encode(value));
const literal = (seeds: (string | ReadonlyUint8Array)[]) =>
  getProgramDerivedAddress({ programAddress: programId, seeds });

const usdc = address(CLUSTERS.devnet.usdcMint);
const uid = Uint8Array.from(seq32(1));

describe("NATIVE_SOL_ESCROW_MINT", () => {
  it("is the all-zero pubkey (32 '1's, the System program id)", () => {
    expect(NATIVE_SOL_ESCROW_MINT).toBe("1".repeat(32));
    expect(raw(NATIVE_SOL_ESCROW_MINT)).toEqual(Uint8Array.from(zeros(32)));
  });
});

describe("SLA-Escrow PDAs", () => {
  it('Bank = ["bank"], Config = ["config"]', async () => {
    const bank = await literal(["bank"]);
    expect(await findBankPda(programId)).toEqual(bank);
    const [bankBytes, bankBump] = independentPda(raw(programId), [utf8("bank")]);
    expect(bank).toEqual([addressFromBytes(bankBytes), bankBump]);
    expect(await findEscrowConfigPda(programId)).toEqual(await literal(["config"]));
  });

  it('Escrow = ["escrow", mint, bank], in that order', async () => {
    const [bank] = await findBankPda(programId);
    const expected = await literal(["escrow", raw(usdc), raw(bank)]);
    expect(await findEscrowPda(programId, usdc, bank)).toEqual(expected);
    const [swapped] = await literal(["escrow", raw(bank), raw(usdc)]);
    expect(expected[0]).not.toBe(swapped);
  });

  it("native SOL escrow uses 32 zero bytes as the mint seed", async () => {
    const [bank] = await findBankPda(programId);
    const [escrowBytes, bump] = independentPda(raw(programId), [utf8("escrow"), new Uint8Array(32), raw(bank)]);
    expect(await findEscrowPda(programId, NATIVE_SOL_ESCROW_MINT, bank)).toEqual([addressFromBytes(escrowBytes), bump]);
  });

  it('SOL storage = ["sol_storage", mint, bank, escrow]', async () => {
    const [bank] = await findBankPda(programId);
    const [escrow] = await findEscrowPda(programId, NATIVE_SOL_ESCROW_MINT, bank);
    expect(await findEscrowSolStoragePda(programId, NATIVE_SOL_ESCROW_MINT, bank, escrow)).toEqual(
      await literal(["sol_storage", new Uint8Array(32), raw(bank), raw(escrow)]),
    );
  });

  it('Payment = ["payment", uid32, bank] and PaymentExt = ["payment_ext", uid32, bank]', async () => {
    const [bank] = await findBankPda(programId);
    const payment = await literal(["payment", uid, raw(bank)]);
    const paymentExt = await literal(["payment_ext", uid, raw(bank)]);
    expect(await findPaymentPda(programId, uid, bank)).toEqual(payment);
    expect(await findPaymentExtPda(programId, uid, bank)).toEqual(paymentExt);
    expect(payment[0]).not.toBe(paymentExt[0]);
    const [otherUid] = await findPaymentPda(programId, Uint8Array.from(seq32(2)), bank);
    expect(otherUid).not.toBe(payment[0]);
  });

  it("rejects a uid that is not exactly 32 bytes", async () => {
    const [bank] = await findBankPda(programId);
    await expect(findPaymentPda(programId, uid.subarray(0, 31), bank)).rejects.toThrow(RangeError);
    await expect(findPaymentExtPda(programId, new Uint8Array(33), bank)).rejects.toThrow(RangeError);
  });

  it("depends on the program id", async () => {
    const [devnetBank] = await findBankPda(programId);
    const [mainnetBank] = await findBankPda(address(SLA_ESCROW_CLUSTER_DEFAULTS.mainnet.programId));
    expect(devnetBank).not.toBe(mainnetBank);
  });
});
