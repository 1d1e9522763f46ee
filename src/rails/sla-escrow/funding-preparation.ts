import type { Address } from "@solana/kit";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  WRAPPED_SOL_MINT,
} from "../../chain/token-programs";
import type { DecodedInstruction } from "../../chain/wire-transaction";

/**
 * The set-up instructions pr402's own funding builder puts before FundPayment (its src/sla_escrow_payment_build.rs):
 * creating the escrow's token account, and wrapping SOL into the buyer's wSOL account (create, System transfer,
 * SyncNative). Accepted only when the buyer is the fee payer: then every lamport they move is the buyer's, paid to
 * accounts FundPayment itself names (its accounts are checked against the derived ones afterwards), and the
 * facilitator signs nothing. A sponsored funding keeps the strict shape (ComputeBudget and FundPayment only).
 */
const ATA_CREATE_IDEMPOTENT = 1;
const SYSTEM_TRANSFER = 2;
const SYSTEM_TRANSFER_DATA_BYTES = 12;
const TOKEN_SYNC_NATIVE = 17;
const RENT_SYSVAR = "SysvarRent111111111111111111111111111111111";

/**
 * FundPayment (SPL) account positions: buyer, bank, config, escrow, payment, mint, escrowAta, buyerAta, tokenProgram.
 */
const FUND = { buyer: 0, escrow: 3, mint: 5, escrowAta: 6, buyerAta: 7, tokenProgram: 8 } as const;

export function isFundingPreparation(instruction: DecodedInstruction): boolean {
  return (
    instruction.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS ||
    instruction.programAddress === SYSTEM_PROGRAM_ADDRESS ||
    instruction.programAddress === TOKEN_PROGRAM_ADDRESS
  );
}

/** Null when every preparation is one pr402 builds for this FundPayment; otherwise why not. */
export function checkFundingPreparations(
  preparations: readonly { index: number; instruction: DecodedInstruction }[],
  funding: DecodedInstruction,
): string | null {
  const a = funding.accounts;
  const isSpl = a.length > FUND.tokenProgram && a[FUND.tokenProgram] !== SYSTEM_PROGRAM_ADDRESS;
  const buyer = a[FUND.buyer];
  const mint = a[FUND.mint];
  const wrapsSol = isSpl && mint === WRAPPED_SOL_MINT && a[FUND.tokenProgram] === TOKEN_PROGRAM_ADDRESS;
  const seen = new Set<string>();
  for (const { index, instruction } of preparations) {
    const kind = preparationKind(instruction, funding, { isSpl, buyer, mint, wrapsSol });
    if (kind === null)
      return (
        `Instruction ${index} (${instruction.programAddress}) is not a set-up step of this FundPayment (escrow ` +
        `token account, or wrapping SOL into the buyer's wSOL account)`
      );
    if (seen.has(kind)) return `Instruction ${index}: ${kind} appears twice`;
    seen.add(kind);
  }
  return null;
}

function preparationKind(
  ix: DecodedInstruction,
  funding: DecodedInstruction,
  fund: { isSpl: boolean; buyer: Address | undefined; mint: Address | undefined; wrapsSol: boolean },
): string | null {
  if (!fund.isSpl || fund.buyer === undefined) return null;
  const f = funding.accounts;
  const [k0, k1, k2, k3, k4, k5] = ix.accounts;
  if (ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS) {
    // CreateIdempotent: payer, ata, owner, mint, System, token program; the buyer pays the rent.
    if (ix.data.length !== 1 || ix.data[0] !== ATA_CREATE_IDEMPOTENT || ix.accounts.length !== 6) return null;
    if (k0 !== fund.buyer || k3 !== fund.mint || k4 !== SYSTEM_PROGRAM_ADDRESS || k5 !== f[FUND.tokenProgram])
      return null;
    if (k1 === f[FUND.escrowAta] && k2 === f[FUND.escrow]) return "the escrow token account creation";
    if (fund.wrapsSol && k1 === f[FUND.buyerAta] && k2 === fund.buyer) return "the buyer's wSOL account creation";
    return null;
  }
  if (!fund.wrapsSol) return null;
  if (ix.programAddress === SYSTEM_PROGRAM_ADDRESS) {
    const isTransfer =
      ix.data.length === SYSTEM_TRANSFER_DATA_BYTES &&
      new DataView(ix.data.buffer, ix.data.byteOffset, 4).getUint32(0, true) === SYSTEM_TRANSFER;
    return isTransfer && ix.accounts.length === 2 && k0 === fund.buyer && k1 === f[FUND.buyerAta]
      ? "the SOL transfer into the buyer's wSOL account"
      : null;
  }
  // SPL Token SyncNative on the buyer's wSOL account (pr402 passes the account alone; some clients add the Rent
  // sysvar).
  const accountsOk = ix.accounts.length === 1 || (ix.accounts.length === 2 && k1 === RENT_SYSVAR);
  return ix.data.length === 1 && ix.data[0] === TOKEN_SYNC_NATIVE && accountsOk && k0 === f[FUND.buyerAta]
    ? "the wSOL SyncNative"
    : null;
}
