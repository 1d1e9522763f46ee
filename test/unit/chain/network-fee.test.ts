import { address, type Instruction } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../src/chain/compute-budget";
import { networkFeeOf } from "../../../src/chain/network-fee";
import type { DecodedInstruction } from "../../../src/chain/wire-transaction";

/**
 * The settle floor lowers its balance reading by this figure after each send; the worker test holds it to the chain's
 * own fee.
 */
const transfer: DecodedInstruction = {
  programAddress: address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
  accounts: [],
  data: new Uint8Array([12]),
};
const budget = (instruction: Instruction): DecodedInstruction => ({
  programAddress: instruction.programAddress,
  accounts: [],
  data: instruction.data as Uint8Array,
});

describe("networkFeeOf", () => {
  it("is 5,000 lamports per signature without a priority fee", () => {
    expect(networkFeeOf({ numRequiredSignatures: 2, instructions: [transfer] })).toBe(10_000n);
  });

  it("adds unit price × unit limit, rounded up to a whole lamport", () => {
    const instructions = [
      budget(getSetComputeUnitLimitInstruction(20_000)),
      budget(getSetComputeUnitPriceInstruction(1n)),
      transfer,
    ];
    expect(networkFeeOf({ numRequiredSignatures: 2, instructions })).toBe(10_001n); // 20,000 micro-lamports → 1 lamport
    const pricier = [
      budget(getSetComputeUnitLimitInstruction(40_000)),
      budget(getSetComputeUnitPriceInstruction(5_000_000n)),
      transfer,
    ];
    expect(networkFeeOf({ numRequiredSignatures: 1, instructions: pricier })).toBe(5_000n + 200_000n);
  });

  it("without a unit limit, prices the cluster's default of 200,000 units per other instruction (at most 1.4M)", () => {
    const price = budget(getSetComputeUnitPriceInstruction(1_000_000n)); // 1 lamport per unit
    expect(networkFeeOf({ numRequiredSignatures: 1, instructions: [price, transfer, transfer] })).toBe(
      5_000n + 400_000n,
    );
    expect(networkFeeOf({ numRequiredSignatures: 1, instructions: [price, ...Array(10).fill(transfer)] })).toBe(
      5_000n + 1_400_000n,
    );
  });
});
