import { AccountRole, address, createNoopSigner, type Address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { CLUSTERS } from "../../../src/config/networks";
import { NATIVE_SOL_ESCROW_MINT } from "../../../src/programs/sla-escrow/pda";
import {
  CONFIRM_ORACLE_INSTRUCTION_DATA_SIZE,
  FUND_PAYMENT_INSTRUCTION_DATA_SIZE,
  FUND_PAYMENT_V2_INSTRUCTION_DATA_SIZE,
  MUTUAL_ACTION,
  MUTUAL_ACTION_INSTRUCTION_DATA_SIZE,
  RESOLVE_WITH_SPLIT_INSTRUCTION_DATA_SIZE,
  SLA_ESCROW_INSTRUCTION,
  decodeAcceptMutualActionInstructionData,
  decodeApproveDeliveryInstructionData,
  decodeConfirmOracleInstructionData,
  decodeDisputePaymentInstructionData,
  decodeExtendPaymentTtlInstructionData,
  decodeFundPaymentInstructionData,
  decodeFundPaymentV2InstructionData,
  decodeProposeMutualActionInstructionData,
  decodeResolveWithSplitInstructionData,
  decodeSubmitDeliveryInstructionData,
  getAcceptMutualActionInstruction,
  getApproveDeliveryInstruction,
  getClosePaymentInstruction,
  getClosePaymentInstructionDataDecoder,
  getConfirmOracleInstruction,
  getDisputePaymentInstruction,
  getExtendPaymentTtlInstruction,
  getFundPaymentInstruction,
  getFundPaymentInstructionDataDecoder,
  getFundPaymentInstructionDataEncoder,
  getFundPaymentV2Instruction,
  getProposeMutualActionInstruction,
  getRefundPaymentInstruction,
  getReleasePaymentInstruction,
  getReleasePaymentInstructionDataDecoder,
  getResolveWithSplitInstruction,
  getSubmitDeliveryInstruction,
  parseFundPaymentInstruction,
  parseFundPaymentV2Instruction,
  type FundPaymentInstructionData,
} from "../../../src/programs/sla-escrow/instructions";
import { ProgramDataError } from "../../../src/programs/program-data-error";
import { addressFromBytes, bytes, fill32, seq32, zeros } from "./byte-vectors";

const programId = address(CLUSTERS.devnet.slaEscrowProgramId);
const SYSTEM = address("11111111111111111111111111111111");
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const ATA_PROGRAM = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");

const { WRITABLE_SIGNER: SW, READONLY_SIGNER: S, WRITABLE: W, READONLY: R } = AccountRole;
const metas = (...pairs: [Address, AccountRole][]) => pairs.map(([address, role]) => ({ address, role }));

// Distinct addresses for every account position.
const seller = addressFromBytes(seq32(1));
const mint = addressFromBytes(seq32(33));
const oracle = addressFromBytes(seq32(65));
const buyer = addressFromBytes(seq32(161));
const bank = addressFromBytes(seq32(162));
const config = addressFromBytes(seq32(163));
const escrow = addressFromBytes(seq32(164));
const payment = addressFromBytes(seq32(165));
const solStorage = addressFromBytes(seq32(166));
const escrowAta = addressFromBytes(seq32(167));
const buyerAta = addressFromBytes(seq32(168));
const sellerAta = addressFromBytes(seq32(169));
const paymentExt = addressFromBytes(seq32(170));
const adjudicator = addressFromBytes(seq32(171));
const adjudicatorAta = addressFromBytes(seq32(172));
const keeper = addressFromBytes(seq32(173));
const pdas = { programId, bank, config, escrow, payment };

const uid = Uint8Array.from(seq32(97));
const slaHash = Uint8Array.from(fill32(0x5a));

const fundPaymentData: FundPaymentInstructionData = {
  seller,
  mint,
  oracleAuthority: oracle,
  paymentUid: uid,
  slaHash,
  amount: 1_000_000n,
  ttlSeconds: 600n,
};
const fundPaymentBody = [
  ...seq32(1), // @1 seller
  ...seq32(33), // @33 mint
  ...seq32(65), // @65 oracle_authority
  ...seq32(97), // @97 payment_uid
  ...fill32(0x5a), // @129 sla_hash
  ...[0x40, 0x42, 0x0f, 0, 0, 0, 0, 0], // @161 amount = 1,000,000
  ...[0x58, 0x02, 0, 0, 0, 0, 0, 0], // @169 ttl_seconds = 600
];
const fundPaymentBytes = bytes([0], fundPaymentBody); // @0 discriminator FundPayment = 0

describe("FundPayment (0)", () => {
  it("encodes the 177-byte layout and decodes back", () => {
    expect(FUND_PAYMENT_INSTRUCTION_DATA_SIZE).toBe(177);
    expect(fundPaymentBytes.length).toBe(177);
    expect(getFundPaymentInstructionDataEncoder().encode(fundPaymentData)).toEqual(fundPaymentBytes);
    expect(getFundPaymentInstructionDataDecoder().decode(fundPaymentBytes)).toEqual(fundPaymentData);
    expect(decodeFundPaymentInstructionData(fundPaymentBytes)).toEqual(fundPaymentData);
  });

  it("rejects other lengths and discriminators", () => {
    expect(decodeFundPaymentInstructionData(fundPaymentBytes.subarray(0, 176))).toBeNull();
    expect(decodeFundPaymentInstructionData(bytes(fundPaymentBytes, [0]))).toBeNull();
    const v2Disc = fundPaymentBytes.slice();
    v2Disc[0] = 8;
    expect(decodeFundPaymentInstructionData(v2Disc)).toBeNull();
    expect(() => getFundPaymentInstructionDataDecoder().decode(v2Disc)).toThrow(ProgramDataError);
  });

  it("builds the SPL account list", () => {
    const instruction = getFundPaymentInstruction({
      kind: "spl",
      ...pdas,
      buyer,
      escrowAta,
      buyerAta,
      tokenProgram: TOKEN,
      ...fundPaymentData,
    });
    expect(instruction.programAddress).toBe(programId);
    expect(instruction.accounts).toEqual(
      metas(
        [buyer, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [mint, R],
        [escrowAta, W],
        [buyerAta, W],
        [TOKEN, R],
        [SYSTEM, R],
      ),
    );
    expect(instruction.data).toEqual(fundPaymentBytes);
  });

  it("builds the SOL account list with the zero mint in data and accounts", () => {
    const instruction = getFundPaymentInstruction({
      kind: "sol",
      ...pdas,
      buyer,
      solStorage,
      seller,
      oracleAuthority: oracle,
      paymentUid: uid,
      slaHash,
      amount: 1_000_000n,
      ttlSeconds: 600n,
    });
    expect(instruction.accounts).toEqual(
      metas(
        [buyer, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [NATIVE_SOL_ESCROW_MINT, R],
        [solStorage, W],
        [SYSTEM, R],
      ),
    );
    // @33..64 mint = 32 zero bytes
    expect(instruction.data).toEqual(bytes([0], seq32(1), zeros(32), fundPaymentBody.slice(64)));
  });

  it("refuses an SPL funding of the zero mint and hashes of the wrong size", () => {
    const base = { kind: "spl" as const, ...pdas, buyer, escrowAta, buyerAta, tokenProgram: TOKEN, ...fundPaymentData };
    expect(() => getFundPaymentInstruction({ ...base, mint: NATIVE_SOL_ESCROW_MINT })).toThrow(RangeError);
    expect(() => getFundPaymentInstruction({ ...base, slaHash: new Uint8Array(33) })).toThrow(RangeError);
  });

  it("is recognised by parseFundPaymentInstruction (SPL and SOL)", () => {
    const spl = getFundPaymentInstruction({
      kind: "spl",
      ...pdas,
      buyer: createNoopSigner(buyer),
      escrowAta,
      buyerAta,
      tokenProgram: TOKEN,
      ...fundPaymentData,
    });
    const parsed = parseFundPaymentInstruction(spl, programId);
    expect(parsed?.kind).toBe("spl");
    expect(parsed?.data).toEqual(fundPaymentData);
    if (parsed?.kind === "spl") {
      expect(parsed.accounts.buyer).toEqual({ address: buyer, role: SW });
      expect(parsed.accounts.escrow.address).toBe(escrow);
      expect(parsed.accounts.escrowAta.address).toBe(escrowAta);
      expect(parsed.accounts.tokenProgram.address).toBe(TOKEN);
    }

    const sol = getFundPaymentInstruction({ kind: "sol", ...pdas, buyer, solStorage, ...fundPaymentData });
    const parsedSol = parseFundPaymentInstruction(sol, programId);
    expect(parsedSol?.kind).toBe("sol");
    if (parsedSol?.kind === "sol") expect(parsedSol.accounts.solStorage.address).toBe(solStorage);
  });

  it("is not recognised with another program, extra or missing accounts, or V2 data", () => {
    const spl = getFundPaymentInstruction({
      kind: "spl",
      ...pdas,
      buyer,
      escrowAta,
      buyerAta,
      tokenProgram: TOKEN,
      ...fundPaymentData,
    });
    expect(parseFundPaymentInstruction(spl, address(CLUSTERS.mainnet.slaEscrowProgramId))).toBeNull();
    expect(parseFundPaymentInstruction({ ...spl, accounts: [...spl.accounts, { address: bank, role: R }] }, programId)).toBeNull();
    expect(parseFundPaymentInstruction({ ...spl, accounts: spl.accounts.slice(0, 9) }, programId)).toBeNull();
    expect(parseFundPaymentInstruction({ programAddress: programId, data: spl.data }, programId)).toBeNull();
    expect(parseFundPaymentInstruction({ ...spl, data: undefined }, programId)).toBeNull();
    // An SPL account list (10) with SOL data (needs 8) does not match either.
    const solData = bytes([0], seq32(1), zeros(32), fundPaymentBody.slice(64));
    expect(parseFundPaymentInstruction({ ...spl, data: solData }, programId)).toBeNull();
  });
});

describe("FundPaymentV2 (8)", () => {
  const v2Data = {
    ...fundPaymentData,
    closureDelayOverrideSeconds: 0n,
    refundCooldownOverrideSeconds: 3_600n,
    deliveryCutoffOverrideSeconds: 300n,
    arbitrationWindowSeconds: 86_400n,
    minOracleTip: 1_000n,
  };
  const v2Bytes = bytes(
    [8], // @0 discriminator FundPaymentV2 = 8
    fundPaymentBody, // @1..176 the FundPayment body
    [0, 0, 0, 0, 0, 0, 0, 0], // @177 closure_delay_override = 0
    [0x10, 0x0e, 0, 0, 0, 0, 0, 0], // @185 refund_cooldown_override = 3,600
    [0x2c, 0x01, 0, 0, 0, 0, 0, 0], // @193 delivery_cutoff_override = 300
    [0x80, 0x51, 0x01, 0, 0, 0, 0, 0], // @201 arbitration_window_seconds = 86,400
    [0xe8, 0x03, 0, 0, 0, 0, 0, 0], // @209 min_oracle_tip = 1,000
  );

  it("encodes the 217-byte layout and decodes back", () => {
    expect(FUND_PAYMENT_V2_INSTRUCTION_DATA_SIZE).toBe(217);
    expect(v2Bytes.length).toBe(217);
    const instruction = getFundPaymentV2Instruction({
      kind: "spl",
      ...pdas,
      buyer,
      escrowAta,
      buyerAta,
      tokenProgram: TOKEN,
      paymentExt,
      ...v2Data,
    });
    expect(instruction.data).toEqual(v2Bytes);
    expect(decodeFundPaymentV2InstructionData(v2Bytes)).toEqual(v2Data);
    expect(decodeFundPaymentV2InstructionData(fundPaymentBytes)).toBeNull();
    expect(decodeFundPaymentInstructionData(v2Bytes)).toBeNull();
  });

  it("appends PaymentExt (w) to the FundPayment list", () => {
    const spl = getFundPaymentV2Instruction({
      kind: "spl",
      ...pdas,
      buyer,
      escrowAta,
      buyerAta,
      tokenProgram: TOKEN,
      paymentExt,
      ...v2Data,
    });
    expect(spl.accounts).toEqual(
      metas(
        [buyer, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [mint, R],
        [escrowAta, W],
        [buyerAta, W],
        [TOKEN, R],
        [SYSTEM, R],
        [paymentExt, W],
      ),
    );
    const sol = getFundPaymentV2Instruction({ kind: "sol", ...pdas, buyer, solStorage, paymentExt, ...v2Data });
    expect(sol.accounts).toEqual(
      metas(
        [buyer, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [NATIVE_SOL_ESCROW_MINT, R],
        [solStorage, W],
        [SYSTEM, R],
        [paymentExt, W],
      ),
    );
    const parsed = parseFundPaymentV2Instruction(sol, programId);
    expect(parsed?.kind).toBe("sol");
    expect(parsed?.accounts.paymentExt.address).toBe(paymentExt);
    expect(parsed?.data.minOracleTip).toBe(1_000n);
    expect(parseFundPaymentInstruction(sol, programId)).toBeNull();
    expect(parseFundPaymentV2Instruction(spl, programId)?.kind).toBe("spl");
  });
});

describe("ReleasePayment (1) / RefundPayment (2) — account list chosen for the stand-in", () => {
  it("data is the bare discriminator", () => {
    const release = getReleasePaymentInstruction({ kind: "sol", ...pdas, keeper, solStorage, recipient: seller });
    const refund = getRefundPaymentInstruction({ kind: "sol", ...pdas, keeper, solStorage, recipient: buyer });
    expect(release.data).toEqual(Uint8Array.of(1));
    expect(refund.data).toEqual(Uint8Array.of(2));
    expect(() => getReleasePaymentInstructionDataDecoder().decode(Uint8Array.of(1))).not.toThrow();
    expect(() => getReleasePaymentInstructionDataDecoder().decode(Uint8Array.of(1, 0))).toThrow(ProgramDataError);
    expect(() => getReleasePaymentInstructionDataDecoder().decode(Uint8Array.of(2))).toThrow(ProgramDataError);
  });

  it("SOL: keeper (s,w), bank, config, escrow (w), payment (w), mint, SOL storage (w), recipient (w), System", () => {
    const release = getReleasePaymentInstruction({ kind: "sol", ...pdas, keeper, solStorage, recipient: seller });
    expect(release.accounts).toEqual(
      metas(
        [keeper, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [NATIVE_SOL_ESCROW_MINT, R],
        [solStorage, W],
        [seller, W],
        [SYSTEM, R],
      ),
    );
  });

  it("SPL: keeper (s,w), bank, config, escrow (w), payment (w), mint, escrow ATA (w), recipient ATA (w), token program", () => {
    const refund = getRefundPaymentInstruction({
      kind: "spl",
      ...pdas,
      keeper,
      mint,
      escrowAta,
      recipientAta: buyerAta,
      tokenProgram: TOKEN,
    });
    expect(refund.accounts).toEqual(
      metas(
        [keeper, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [mint, R],
        [escrowAta, W],
        [buyerAta, W],
        [TOKEN, R],
      ),
    );
  });
});

describe("ClosePayment (3)", () => {
  it("caller (s), buyer (w), bank, config, escrow (w), payment (w), System; data [3]", () => {
    const instruction = getClosePaymentInstruction({ ...pdas, caller: keeper, buyer });
    expect(instruction.accounts).toEqual(
      metas([keeper, S], [buyer, W], [bank, R], [config, R], [escrow, W], [payment, W], [SYSTEM, R]),
    );
    expect(instruction.data).toEqual(Uint8Array.of(3));
    expect(() => getClosePaymentInstructionDataDecoder().decode(Uint8Array.of(3))).not.toThrow();
  });
});

describe("ExtendPaymentTTL (4)", () => {
  it("[4] ‖ additional_seconds i64 (9 bytes); buyer (s,w), bank, config, escrow, payment (w)", () => {
    const instruction = getExtendPaymentTtlInstruction({ ...pdas, buyer, additionalSeconds: 3_600n });
    expect(instruction.data).toEqual(Uint8Array.of(4, 0x10, 0x0e, 0, 0, 0, 0, 0, 0));
    expect(decodeExtendPaymentTtlInstructionData(instruction.data)).toEqual({ additionalSeconds: 3_600n });
    expect(instruction.accounts).toEqual(metas([buyer, SW], [bank, R], [config, R], [escrow, R], [payment, W]));
  });
});

describe("SubmitDelivery (5) / ApproveDelivery (7)", () => {
  const deliveryHash = Uint8Array.from(fill32(0x11));

  it("[5|7] ‖ delivery_hash (33 bytes); signer (s,w), bank, config, escrow, payment (w)", () => {
    const submit = getSubmitDeliveryInstruction({ ...pdas, seller, deliveryHash });
    const approve = getApproveDeliveryInstruction({ ...pdas, buyer, deliveryHash });
    expect(submit.data).toEqual(bytes([5], fill32(0x11)));
    expect(approve.data).toEqual(bytes([7], fill32(0x11)));
    expect(submit.data.length).toBe(33);
    expect(submit.accounts).toEqual(metas([seller, SW], [bank, R], [config, R], [escrow, R], [payment, W]));
    expect(approve.accounts).toEqual(metas([buyer, SW], [bank, R], [config, R], [escrow, R], [payment, W]));
    expect(decodeSubmitDeliveryInstructionData(submit.data)).toEqual({ deliveryHash });
    expect(decodeApproveDeliveryInstructionData(approve.data)).toEqual({ deliveryHash });
    expect(decodeSubmitDeliveryInstructionData(approve.data)).toBeNull();
  });
});

describe("ConfirmOracle (6)", () => {
  it("encodes 73 bytes; oracle (s), bank, config, escrow, payment (w)", () => {
    const data = {
      deliveryHash: Uint8Array.from(fill32(0x11)),
      resolutionHash: Uint8Array.from(fill32(0x22)),
      reason: 0x0304,
      state: 1,
    };
    const instruction = getConfirmOracleInstruction({ ...pdas, oracle, ...data });
    const expected = bytes(
      [6], // @0 discriminator
      fill32(0x11), // @1 delivery_hash
      fill32(0x22), // @33 resolution_hash
      [0x04, 0x03], // @65 reason u16 = 0x0304
      [1], // @67 state = approved
      [0, 0, 0, 0, 0], // @68 padding
    );
    expect(CONFIRM_ORACLE_INSTRUCTION_DATA_SIZE).toBe(73);
    expect(instruction.data).toEqual(expected);
    expect(decodeConfirmOracleInstructionData(expected)).toEqual(data);
    expect(instruction.accounts).toEqual(metas([oracle, S], [bank, R], [config, R], [escrow, R], [payment, W]));
  });
});

describe("ProposeMutualAction (9) / AcceptMutualAction (10) / DisputePayment (11)", () => {
  const action = { action: MUTUAL_ACTION.EXTEND_TTL, value: 3_600n, pubkey: seller };
  const actionBody = [
    2, // @1 action = extend TTL
    ...[0, 0, 0, 0, 0, 0, 0], // @2 padding
    ...[0x10, 0x0e, 0, 0, 0, 0, 0, 0], // @9 value i64 = 3,600
    ...seq32(1), // @17 pubkey
  ];

  it("encode 49 bytes; party (s,w), bank, config, escrow, payment (w), PaymentExt (w)", () => {
    const propose = getProposeMutualActionInstruction({ ...pdas, paymentExt, party: buyer, ...action });
    const accept = getAcceptMutualActionInstruction({ ...pdas, paymentExt, party: seller, ...action });
    expect(MUTUAL_ACTION_INSTRUCTION_DATA_SIZE).toBe(49);
    expect(propose.data).toEqual(bytes([9], actionBody));
    expect(accept.data).toEqual(bytes([10], actionBody));
    expect(decodeProposeMutualActionInstructionData(propose.data)).toEqual(action);
    expect(decodeAcceptMutualActionInstructionData(accept.data)).toEqual(action);
    expect(decodeAcceptMutualActionInstructionData(propose.data)).toBeNull();
    expect(propose.accounts).toEqual(
      metas([buyer, SW], [bank, R], [config, R], [escrow, R], [payment, W], [paymentExt, W]),
    );
    expect(accept.accounts[0]).toEqual({ address: seller, role: SW });
  });

  it("DisputePayment: [11] ‖ dispute_reason_hash (33 bytes)", () => {
    const disputeReasonHash = Uint8Array.from(fill32(0x77));
    const dispute = getDisputePaymentInstruction({ ...pdas, paymentExt, buyer, disputeReasonHash });
    expect(dispute.data).toEqual(bytes([11], fill32(0x77)));
    expect(decodeDisputePaymentInstructionData(dispute.data)).toEqual({ disputeReasonHash });
    expect(dispute.accounts).toEqual(
      metas([buyer, SW], [bank, R], [config, R], [escrow, R], [payment, W], [paymentExt, W]),
    );
  });
});

describe("ResolveWithSplit (12)", () => {
  const data = {
    sellerBps: 7_500,
    reason: 0x0201,
    resolutionHash: Uint8Array.from(fill32(0x33)),
    expectedDeliveryHash: Uint8Array.from(fill32(0x44)),
  };
  const expected = bytes(
    [12], // @0 discriminator
    [0x4c, 0x1d], // @1 seller_bps = 7,500
    [0x01, 0x02], // @3 reason = 0x0201
    [0, 0, 0, 0], // @5 padding
    fill32(0x33), // @9 resolution_hash
    fill32(0x44), // @41 expected_delivery_hash
  );
  const common = { ...pdas, paymentExt, adjudicator, seller, buyer, ...data };

  it("encodes 73 bytes and decodes back", () => {
    expect(RESOLVE_WITH_SPLIT_INSTRUCTION_DATA_SIZE).toBe(73);
    const instruction = getResolveWithSplitInstruction({ kind: "sol", ...common, solStorage });
    expect(instruction.data).toEqual(expected);
    expect(decodeResolveWithSplitInstructionData(expected)).toEqual(data);
  });

  it("SOL account list", () => {
    const instruction = getResolveWithSplitInstruction({ kind: "sol", ...common, solStorage });
    expect(instruction.accounts).toEqual(
      metas(
        [adjudicator, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [NATIVE_SOL_ESCROW_MINT, R],
        [solStorage, W],
        [seller, W],
        [buyer, W],
        [SYSTEM, R],
        [paymentExt, W],
        [buyer, W],
      ),
    );
  });

  it("SPL account list", () => {
    const instruction = getResolveWithSplitInstruction({
      kind: "spl",
      ...common,
      mint,
      escrowAta,
      sellerAta,
      buyerAta,
      adjudicatorAta,
      tokenProgram: TOKEN,
    });
    expect(instruction.accounts).toEqual(
      metas(
        [adjudicator, SW],
        [bank, R],
        [config, R],
        [escrow, W],
        [payment, W],
        [mint, R],
        [escrowAta, W],
        [sellerAta, W],
        [seller, R],
        [buyerAta, W],
        [buyer, R],
        [TOKEN, R],
        [ATA_PROGRAM, R],
        [SYSTEM, R],
        [paymentExt, W],
        [buyer, W],
        [adjudicatorAta, W],
      ),
    );
  });
});

describe("discriminator table", () => {
  it("matches the ABI", () => {
    expect(Object.values(SLA_ESCROW_INSTRUCTION)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });
});
