import { type Address, address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { getCreateAssociatedTokenIdempotentInstruction, getSyncNativeInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { TOKEN_PROGRAM_ADDRESS, WRAPPED_SOL_MINT } from "../../../../src/chain/token-programs";
import type { DecodedInstruction, DecodedTransaction } from "../../../../src/chain/wire-transaction";
import { getFundPaymentInstruction } from "../../../../src/rails/sla-escrow/program/instructions";
import { checkEscrowFundingTransaction, type EscrowPolicy } from "../../../../src/rails/sla-escrow/verify-rules";

/**
 * The funding shells pr402's own builder produces (its src/sla_escrow_payment_build.rs: escrow token-account
 * creation, wSOL wrapping, and the sponsored variant with the compute budget after FundPayment) against our pure
 * escrow funding rules. Pure rules over decoded transactions, so no chain is needed; the FundPayment is encoded by
 * our real instruction encoder. On the old rules every shell with a set-up step failed as an unexpected instruction.
 */
const PROGRAM = address("SLAEsc1111111111111111111111111111111111111");
const USDC = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");

const decoded = (ix: Instruction): DecodedInstruction => ({
  programAddress: ix.programAddress,
  accounts: (ix.accounts ?? []).map((a) => a.address),
  data: Uint8Array.from(ix.data ?? []),
});

async function world(mint: Address) {
  const [buyer, seller, facilitator, oracle] = await Promise.all([
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
    generateKeyPairSigner(),
  ]);
  const [bank, config, escrow, payment, escrowAta, buyerAta] = await Promise.all(
    Array.from({ length: 6 }, () => generateKeyPairSigner().then((k) => k.address)),
  );
  const fund = getFundPaymentInstruction({
    programId: PROGRAM,
    bank: bank!,
    config: config!,
    escrow: escrow!,
    payment: payment!,
    kind: "spl",
    buyer,
    seller: seller.address,
    mint,
    escrowAta: escrowAta!,
    buyerAta: buyerAta!,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
    oracleAuthority: oracle.address,
    paymentUid: new Uint8Array(32).fill(7),
    slaHash: new Uint8Array(32),
    amount: 1_000_000n,
    ttlSeconds: 3_600n,
  });
  const createAta = (owner: Address, ata: Address, payer = buyer) =>
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const policy: EscrowPolicy = {
    programId: PROGRAM,
    facilitator: facilitator.address,
    sponsorshipAllowed: true,
    maxComputeUnitLimit: 80_000,
    maxComputeUnitPriceMicroLamports: 1_000_000n,
  };
  const tx = (instructions: Instruction[], sponsored = false): DecodedTransaction => ({
    wireBytes: new Uint8Array(),
    wireBase64: "",
    messageBytes: new Uint8Array(),
    version: 0,
    signatures: [],
    staticAccounts: sponsored ? [facilitator.address, buyer.address] : [buyer.address],
    numRequiredSignatures: sponsored ? 2 : 1,
    numReadonlySignedAccounts: 0,
    numReadonlyUnsignedAccounts: 0,
    feePayer: sponsored ? facilitator.address : buyer.address,
    recentBlockhash: "",
    usesAddressLookupTables: false,
    instructions: instructions.map(decoded),
  });
  const budget = [getSetComputeUnitLimitInstruction(60_000), getSetComputeUnitPriceInstruction(1_000n)];
  return {
    buyer,
    facilitator,
    escrow: escrow!,
    escrowAta: escrowAta!,
    buyerAta: buyerAta!,
    fund,
    createAta,
    policy,
    tx,
    budget,
  };
}

const verdict = (result: ReturnType<typeof checkEscrowFundingTransaction>) => (result.ok ? "ok" : result.reason);

describe("pr402's escrow funding shells", () => {
  it("buyer-paid: escrow token-account creation before FundPayment is accepted", async () => {
    const w = await world(USDC);
    expect(
      verdict(checkEscrowFundingTransaction(w.tx([...w.budget, w.createAta(w.escrow, w.escrowAta), w.fund]), w.policy)),
    ).toBe("ok");
  });

  it("buyer-paid: wrapping SOL into the buyer's wSOL account (create, transfer, SyncNative) is accepted", async () => {
    const w = await world(WRAPPED_SOL_MINT);
    const wrap = [
      w.createAta(w.buyer.address, w.buyerAta),
      getTransferSolInstruction({ source: w.buyer, destination: w.buyerAta, amount: 1_000_000n }),
      getSyncNativeInstruction({ account: w.buyerAta }),
    ];
    expect(
      verdict(
        checkEscrowFundingTransaction(
          w.tx([...w.budget, ...wrap, w.createAta(w.escrow, w.escrowAta), w.fund]),
          w.policy,
        ),
      ),
    ).toBe("ok");
  });

  it("refuses set-up steps that pay anything but FundPayment's own accounts, or appear twice", async () => {
    const w = await world(WRAPPED_SOL_MINT);
    const stranger = (await generateKeyPairSigner()).address;
    const strangerAta = (await generateKeyPairSigner()).address;
    const cases: Instruction[][] = [
      [w.createAta(stranger, strangerAta), w.fund], // someone else's token account, rent paid by the buyer's signature
      // SOL out to a stranger
      [getTransferSolInstruction({ source: w.buyer, destination: stranger, amount: 1n }), w.fund],
      [getSyncNativeInstruction({ account: strangerAta }), w.fund],
      [w.createAta(w.escrow, w.escrowAta), w.createAta(w.escrow, w.escrowAta), w.fund],
      [w.fund, w.createAta(w.escrow, w.escrowAta)], // only ComputeBudget may follow FundPayment
    ];
    for (const instructions of cases)
      expect(verdict(checkEscrowFundingTransaction(w.tx(instructions), w.policy))).toBe(
        "invalid_sla_escrow_payload_unexpected_instruction",
      );
    // Wrapping steps for a mint that is not wSOL are not a wrap.
    const usdc = await world(USDC);
    const notWsol = [
      getTransferSolInstruction({ source: usdc.buyer, destination: usdc.buyerAta, amount: 1n }),
      usdc.fund,
    ];
    expect(verdict(checkEscrowFundingTransaction(usdc.tx(notWsol), usdc.policy))).toBe(
      "invalid_sla_escrow_payload_unexpected_instruction",
    );
  });

  it(
    "sponsored: the compute budget may come after FundPayment; set-up steps and duplicate budgets keep being " +
      "refused",
    async () => {
      const w = await world(USDC);
      expect(verdict(checkEscrowFundingTransaction(w.tx([w.fund, ...w.budget], true), w.policy))).toBe("ok");
      // pr402's sponsored shell as built: budget before AND after (the runtime refuses duplicate budget instructions).
      expect(verdict(checkEscrowFundingTransaction(w.tx([...w.budget, w.fund, ...w.budget], true), w.policy))).toBe(
        "invalid_sla_escrow_payload_compute_budget",
      );
      // Any set-up step in a sponsored funding: the facilitator would pay for more than the payment.
      expect(
        verdict(
          checkEscrowFundingTransaction(
            w.tx([...w.budget, w.createAta(w.escrow, w.escrowAta), w.fund], true),
            w.policy,
          ),
        ),
      ).toBe("invalid_sla_escrow_payload_unexpected_instruction");
      // A set-up step the facilitator pays rent for is refused before anything else: the fee payer is in an
      // instruction.
      const facilitatorPaysRent = w.createAta(w.escrow, w.escrowAta, w.facilitator);
      expect(verdict(checkEscrowFundingTransaction(w.tx([facilitatorPaysRent, w.fund], true), w.policy))).not.toBe(
        "ok",
      );
      expect(
        verdict(
          checkEscrowFundingTransaction(w.tx([w.fund, getSetComputeUnitLimitInstruction(400_000)], true), w.policy),
        ),
      ).toBe("invalid_sla_escrow_payload_compute_budget");
    },
  );
});
