import { type Address, address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from "../../../../src/chain/token-programs";
import type { DecodedTransaction } from "../../../../src/chain/wire-transaction";
import { getFundPaymentInstruction } from "../../../../src/rails/sla-escrow/program/instructions";
import { checkEscrowFundingTransaction, type EscrowPolicy } from "../../../../src/rails/sla-escrow/verify-rules";
import { decodedInstruction, messageOf, reasonOf } from "../../../support/rule-results";

/**
 * The sla-escrow funding rules (src/rails/sla-escrow/verify-rules.ts), one case per rule with the reason /verify
 * answers. The sponsored guards are sponsored-rules.test.ts, pr402's set-up steps funding-shells.test.ts;
 * this file holds the rest. FundPayment is encoded by our real instruction encoder; the header is written out.
 */
const PROGRAM = address("SLAEsc1111111111111111111111111111111111111");

let buyer: Address;
let facilitator: Address;
let stranger: Address;
let fund: Instruction;

beforeAll(async () => {
  const signers = await Promise.all(Array.from({ length: 11 }, () => generateKeyPairSigner()));
  const [b, f, s, seller, oracle, bank, config, escrow, payment, escrowAta, buyerAta] = signers.map(
    (k) => k.address,
  ) as Address[];
  [buyer, facilitator, stranger] = [b!, f!, s!];
  fund = getFundPaymentInstruction({
    programId: PROGRAM,
    bank: bank!,
    config: config!,
    escrow: escrow!,
    payment: payment!,
    kind: "spl",
    buyer: signers[0]!,
    seller: seller!,
    mint: address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"),
    escrowAta: escrowAta!,
    buyerAta: buyerAta!,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
    oracleAuthority: oracle!,
    paymentUid: new Uint8Array(32).fill(3),
    slaHash: new Uint8Array(32),
    amount: 1_000_000n,
    ttlSeconds: 3_600n,
  });
});

const policy = (overrides: Partial<EscrowPolicy> = {}): EscrowPolicy => ({
  programId: PROGRAM,
  facilitator,
  sponsorshipAllowed: true,
  maxComputeUnitLimit: 80_000,
  maxComputeUnitPriceMicroLamports: 1_000_000n,
  ...overrides,
});

/** Buyer-paid by default (the buyer is fee payer and sole signer); `sponsored` puts the facilitator first. */
function tx(
  instructions: Instruction[],
  header: Partial<
    Pick<DecodedTransaction, "feePayer" | "numRequiredSignatures" | "staticAccounts" | "usesAddressLookupTables">
  > & { sponsored?: boolean } = {},
): DecodedTransaction {
  const feePayer = header.feePayer ?? (header.sponsored ? facilitator : buyer);
  return {
    wireBytes: new Uint8Array(),
    wireBase64: "",
    messageBytes: new Uint8Array(),
    version: 0,
    signatures: [],
    staticAccounts: header.staticAccounts ?? (header.sponsored ? [facilitator, buyer] : [buyer]),
    numRequiredSignatures: header.numRequiredSignatures ?? (header.sponsored ? 2 : 1),
    numReadonlySignedAccounts: 0,
    numReadonlyUnsignedAccounts: 0,
    feePayer,
    recentBlockhash: "",
    usesAddressLookupTables: header.usesAddressLookupTables ?? false,
    instructions: instructions.map(decodedInstruction),
  };
}

const limit = (units = 60_000) => getSetComputeUnitLimitInstruction(units);
const price = (microLamports = 1_000n) => getSetComputeUnitPriceInstruction(microLamports);
const check = (instructions: Instruction[], header: Parameters<typeof tx>[1] = {}, rules = policy()) =>
  checkEscrowFundingTransaction(tx(instructions, header), rules);

describe("sla-escrow funding rules: accepted shapes", () => {
  it("buyer-paid: ComputeBudget and one FundPayment, the buyer fee payer and sole signer", () => {
    expect(check([limit(), price(), fund])).toMatchObject({ ok: true, funding: { buyer, sponsored: false } });
  });

  it("sponsored: the facilitator fee payer, two signers, a capped limit", () => {
    expect(check([limit(), price(), fund], { sponsored: true })).toMatchObject({
      ok: true,
      funding: { buyer, sponsored: true },
    });
  });
});

describe("sla-escrow funding rules: one case per rejection", () => {
  it("address lookup tables", () => {
    expect(reasonOf(check([limit(), fund], { usesAddressLookupTables: true }))).toBe(
      "invalid_sla_escrow_payload_lookup_tables",
    );
  });

  it("two SetComputeUnitLimit (or two price) instructions", () => {
    expect(reasonOf(check([limit(), limit(), fund]))).toBe("invalid_sla_escrow_payload_compute_budget");
    expect(reasonOf(check([price(), price(), fund]))).toBe("invalid_sla_escrow_payload_compute_budget");
  });

  it("a ComputeBudget instruction other than limit and price", () => {
    const heapFrame: Instruction = {
      programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS,
      data: new Uint8Array([1, 0, 0, 4, 0]),
    };
    expect(reasonOf(check([heapFrame, fund]))).toBe("invalid_sla_escrow_payload_compute_budget");
  });

  it("a second FundPayment", () => {
    expect(reasonOf(check([fund, fund]))).toBe("invalid_sla_escrow_payload_multiple_fundings");
  });

  it("another program after FundPayment", () => {
    const result = check([fund, { programAddress: MEMO_PROGRAM_ADDRESS, data: new Uint8Array([1]) }]);
    expect(reasonOf(result)).toBe("invalid_sla_escrow_payload_unexpected_instruction");
    expect(messageOf(result)).toMatch(/Only ComputeBudget instructions may follow FundPayment/);
  });

  it("a program other than ComputeBudget, the escrow program and the set-up steps", () => {
    const result = check([{ programAddress: MEMO_PROGRAM_ADDRESS, data: new Uint8Array([1]) }, fund]);
    expect(reasonOf(result)).toBe("invalid_sla_escrow_payload_unexpected_instruction");
    expect(messageOf(result)).toMatch(/holds only ComputeBudget and one FundPayment/);
  });

  it("an escrow-program instruction that is not a FundPayment (other discriminator, or wrong length)", () => {
    const other = { ...fund, data: Uint8Array.from([9, ...fund.data!.slice(1)]) };
    const short = { ...fund, data: fund.data!.slice(0, -1) };
    for (const instruction of [other, short]) {
      const result = check([limit(), instruction]);
      expect(reasonOf(result)).toBe("invalid_sla_escrow_payload_unexpected_instruction");
      expect(messageOf(result)).toMatch(/is not a FundPayment/);
    }
  });

  it("no FundPayment", () => {
    expect(reasonOf(check([limit(), price()]))).toBe("invalid_sla_escrow_payload_missing_funding");
  });

  it("the facilitator in an instruction of a buyer-paid funding", () => {
    const naming = { ...limit(), accounts: [{ address: facilitator, role: 0 as const }] };
    expect(reasonOf(check([naming, fund]))).toBe("invalid_sla_escrow_payload_fee_payer_in_instruction");
  });

  it("sponsored while this facilitator does not sponsor", () => {
    expect(reasonOf(check([limit(), fund], { sponsored: true }, policy({ sponsorshipAllowed: false })))).toBe(
      "invalid_sla_escrow_payload_sponsorship_disabled",
    );
  });

  it("buyer-paid with a fee payer other than the buyer", () => {
    expect(reasonOf(check([limit(), fund], { feePayer: stranger, staticAccounts: [stranger, buyer] }))).toBe(
      "invalid_sla_escrow_payload_fee_payer",
    );
  });

  it("buyer-paid with a second signer", () => {
    expect(reasonOf(check([limit(), fund], { numRequiredSignatures: 2, staticAccounts: [buyer, stranger] }))).toBe(
      "invalid_sla_escrow_payload_signers",
    );
  });

  it("buyer-paid with the facilitator among the transaction's accounts", () => {
    const result = check([limit(), fund], { staticAccounts: [buyer, facilitator] });
    expect(reasonOf(result)).toBe("invalid_sla_escrow_payload_fee_payer_in_instruction");
    expect(messageOf(result)).toMatch(/may not appear in a buyer-paid funding/);
  });
});
