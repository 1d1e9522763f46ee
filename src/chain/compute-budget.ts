import type { Instruction } from "@solana/kit";
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from "./token-programs";

/** ComputeBudget instruction discriminators (first data byte). */
export const SET_COMPUTE_UNIT_LIMIT_DISCRIMINATOR = 2;
export const SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR = 3;

/** `[2] ‖ u32 units` */
export function getSetComputeUnitLimitInstruction(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = SET_COMPUTE_UNIT_LIMIT_DISCRIMINATOR;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, accounts: [], data };
}

/** `[3] ‖ u64 micro-lamports per compute unit` */
export function getSetComputeUnitPriceInstruction(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, accounts: [], data };
}

export type ComputeBudgetInstruction =
  | { kind: "setComputeUnitLimit"; units: number }
  | { kind: "setComputeUnitPrice"; microLamports: bigint }
  | { kind: "other"; discriminator: number | undefined };

/** Reads a ComputeBudget instruction's data; wrong lengths count as "other" so the verifier refuses them. */
export function parseComputeBudgetData(data: Uint8Array): ComputeBudgetInstruction {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data[0] === SET_COMPUTE_UNIT_LIMIT_DISCRIMINATOR && data.length === 5)
    return { kind: "setComputeUnitLimit", units: view.getUint32(1, true) };
  if (data[0] === SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR && data.length === 9)
    return { kind: "setComputeUnitPrice", microLamports: view.getBigUint64(1, true) };
  return { kind: "other", discriminator: data[0] };
}
