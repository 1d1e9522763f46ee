/**
 * Release / Refund / Close of one decoded Payment, with exactly the accounts the program wants for that payment:
 * the fixed list of its kind (SOL or SPL), the PaymentExt tail of an extended payment (state 10), and the oracle's
 * tip accounts when a tip is due (docs/sla-escrow-abi.md "Instructions we build", optional tails). Every address is
 * derived from the Payment account itself, never from a caller, since the program pays only the recorded seller, buyer
 * and oracle.
 */
import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import type { AddressOrSigner, ProgramInstruction } from "../../../chain/program/instruction-accounts";
import { PAYMENT_STATE, type Payment, RESOLUTION_STATE } from "./accounts";
import { getClosePaymentInstruction, getRefundPaymentInstruction, getReleasePaymentInstruction } from "./instructions";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findEscrowSolStoragePda,
  findPaymentExtPda,
  NATIVE_SOL_ESCROW_MINT,
} from "./pda";

/**
 * docs/sla-escrow-abi.md, ABI §5.3 / §5.4: the tip accounts are required iff oracle_fee_bps > 0 and a verdict was
 * recorded.
 */
export function isOracleTipDue(payment: Payment): boolean {
  return payment.oracleFeeBps > 0 && payment.resolutionState !== RESOLUTION_STATE.PENDING;
}

interface PayoutFacts {
  programId: Address;
  /** Signs and pays the network fee (for SPL, also any token account the program creates). */
  caller: AddressOrSigner;
  paymentAddress: Address;
  payment: Payment;
  /** The mint's owner (Token or Token-2022); ignored for native SOL. */
  tokenProgram: Address | null;
}

interface BuiltPayout {
  instruction: ProgramInstruction;
  /**
   * Token accounts the payout pays into (SPL only). The program creates a missing seller or oracle ATA at the
   * caller's expense and refuses a missing buyer account; a keeper that must not pay anyone's rent checks these.
   */
  paysIntoTokenAccounts: Address[];
}

export async function buildPayoutInstruction(kind: "release" | "refund", facts: PayoutFacts): Promise<BuiltPayout> {
  const { programId, payment } = facts;
  const mint = payment.mint;
  const [[bank], [config]] = await Promise.all([findBankPda(programId), findEscrowConfigPda(programId)]);
  const [escrow] = await findEscrowPda(programId, mint, bank);
  const base = { programId, bank, config, escrow, payment: facts.paymentAddress, caller: facts.caller };
  const extended =
    payment.state === PAYMENT_STATE.FUNDED_EXTENDED
      ? { paymentExt: (await findPaymentExtPda(programId, payment.paymentUid, bank))[0], buyer: payment.buyer }
      : undefined;
  const tipDue = isOracleTipDue(payment);

  if (mint === NATIVE_SOL_ESCROW_MINT) {
    const [solStorage] = await findEscrowSolStoragePda(programId, mint, bank, escrow);
    const oracleTip = tipDue ? { oracle: payment.oracleAuthority } : undefined;
    const instruction =
      kind === "release"
        ? getReleasePaymentInstruction({
            ...base,
            kind: "sol",
            solStorage,
            seller: payment.seller,
            extended,
            oracleTip,
          })
        : getRefundPaymentInstruction({ ...base, kind: "sol", solStorage, buyer: payment.buyer, extended, oracleTip });
    return { instruction, paysIntoTokenAccounts: [] };
  }

  const tokenProgram = facts.tokenProgram;
  if (tokenProgram === null) throw new TypeError("an SPL payout needs the mint's token program");
  const ata = async (owner: Address) => (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0];
  const [escrowAta, recipientAta, oracleAta] = await Promise.all([
    ata(escrow),
    ata(kind === "release" ? payment.seller : payment.buyer),
    tipDue ? ata(payment.oracleAuthority) : Promise.resolve(undefined),
  ]);
  const oracleTip = tipDue ? { oracle: payment.oracleAuthority, oracleAta } : undefined;
  const common = { ...base, kind: "spl" as const, mint, escrowAta, tokenProgram, extended, oracleTip };
  const instruction =
    kind === "release"
      ? getReleasePaymentInstruction({ ...common, sellerAta: recipientAta, seller: payment.seller })
      : getRefundPaymentInstruction({ ...common, buyerAta: recipientAta });
  return { instruction, paysIntoTokenAccounts: oracleAta === undefined ? [recipientAta] : [recipientAta, oracleAta] };
}

/** ClosePayment of a settled payment: its rent goes back to the recorded buyer (docs/sla-escrow-abi.md, ABI §5.5). */
export async function buildClosePaymentInstruction(
  facts: Omit<PayoutFacts, "tokenProgram">,
): Promise<ProgramInstruction> {
  const { programId, payment } = facts;
  const [[bank], [config]] = await Promise.all([findBankPda(programId), findEscrowConfigPda(programId)]);
  const [escrow] = await findEscrowPda(programId, payment.mint, bank);
  return getClosePaymentInstruction({
    programId,
    bank,
    config,
    escrow,
    payment: facts.paymentAddress,
    caller: facts.caller,
    buyer: payment.buyer,
  });
}
