import type { Instruction } from "@solana/kit";
import type { DecodedInstruction } from "../../src/solana/wire-transaction";

/**
 * The reason string a rule result puts on the wire, or "accepted". Rule files return their rejection either flat
 * (`{ ok: false, reason }`) or nested (`{ ok: false, rejection: { reason } }`); the tests assert the reason, not
 * the shape.
 */
export function reasonOf(result: { ok: boolean }): string {
  if (result.ok) return "accepted";
  const rejected = result as { reason?: string; rejection?: { reason: string } };
  return rejected.rejection?.reason ?? rejected.reason ?? "(no reason)";
}

/** A kit instruction as the wire decoder reports it (program, account addresses in order, data). */
export function decodedInstruction(ix: Instruction): DecodedInstruction {
  return { programAddress: ix.programAddress, accounts: (ix.accounts ?? []).map((account) => account.address), data: Uint8Array.from(ix.data ?? []) };
}

/** The sentence a rule result puts on the wire next to its reason ("" when accepted). */
export function messageOf(result: { ok: boolean }): string {
  if (result.ok) return "";
  const rejected = result as { message?: string; rejection?: { message: string } };
  return rejected.rejection?.message ?? rejected.message ?? "";
}
