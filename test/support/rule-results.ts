import type { Instruction } from "@solana/kit";
import type { DecodedInstruction } from "../../src/chain/wire-transaction";

/**
 * The reason string a rule result puts on the wire, or "accepted". Rule files return their rejection either flat
 * (`{ ok: false, reason }`) or nested (`{ ok: false, rejection: { reason } }`); the tests assert the reason, not
 * the shape. A result without `ok: false` (e.g. the accepted requirements of checkCommonRequirements) is accepted.
 */
export function reasonOf(result: object): string {
  if (!isRejection(result)) return "accepted";
  const rejected = result as { reason?: string; rejection?: { reason: string } };
  return rejected.rejection?.reason ?? rejected.reason ?? "(no reason)";
}

/** A kit instruction as the wire decoder reports it (program, account addresses in order, data). */
export function decodedInstruction(ix: Instruction): DecodedInstruction {
  return {
    programAddress: ix.programAddress,
    accounts: (ix.accounts ?? []).map((account) => account.address),
    data: Uint8Array.from(ix.data ?? []),
  };
}

/** The sentence a rule result puts on the wire next to its reason ("" when accepted). */
export function messageOf(result: object): string {
  if (!isRejection(result)) return "";
  const rejected = result as { message?: string; rejection?: { message: string } };
  return rejected.rejection?.message ?? rejected.message ?? "";
}

function isRejection(result: object): boolean {
  return (result as { ok?: unknown }).ok === false;
}
