import { AccountRole, type Address, address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../../src/rails/sla-escrow/cluster-defaults";
import {
  decodeFundPaymentInstructionData,
  FUND_PAYMENT_INSTRUCTION_DATA_SIZE,
  type FundPaymentInstructionData,
  getAcceptMutualActionInstruction,
  getApproveDeliveryInstruction,
  getClosePaymentInstruction,
  getConfirmOracleInstruction,
  getDisputePaymentInstruction,
  getExtendPaymentTtlInstruction,
  getFundPaymentInstruction,
  getFundPaymentV2Instruction,
  getProposeMutualActionInstruction,
  getRefundPaymentInstruction,
  getReleasePaymentInstruction,
  getResolveWithSplitInstruction,
  getSubmitDeliveryInstruction,
  MUTUAL_ACTION,
  SLA_ESCROW_INSTRUCTION,
} from "../../../../../src/rails/sla-escrow/program/instructions";
import { NATIVE_SOL_ESCROW_MINT } from "../../../../../src/rails/sla-escrow/program/pda";
import { fundPaymentV2Data, resolveWithSplitData } from "../../../../support/instruction-data";
import { addressFromBytes, bytes, fill32, seq32, zeros } from "../../byte-vectors";

const programId = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
const SYSTEM = address("11111111111111111111111111111111");
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const ATA_PROGRAM = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
const RENT_SYSVAR = address("SysvarRent111111111111111111111111111111111");

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
const oracleAta = addressFromBytes(seq32(174));
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
    const built = getFundPaymentInstruction({
      kind: "spl",
      ...pdas,
      buyer,
      escrowAta,
      buyerAta,
      tokenProgram: TOKEN,
      ...fundPaymentData,
    });
    expect(built.data).toEqual(fundPaymentBytes);
    expect(decodeFundPaymentInstructionData(fundPaymentBytes)).toEqual(fundPaymentData);
  });

  it("rejects other lengths and discriminators", () => {
    expect(decodeFundPaymentInstructionData(fundPaymentBytes.subarray(0, 176))).toBeNull();
    expect(decodeFundPaymentInstructionData(bytes(fundPaymentBytes, [0]))).toBeNull();
    const v2Disc = fundPaymentBytes.slice();
    v2Disc[0] = 8;
    expect(decodeFundPaymentInstructionData(v2Disc)).toBeNull();
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
    expect(fundPaymentV2Data.safeDecode(v2Bytes)).toEqual(v2Data);
    expect(fundPaymentV2Data.safeDecode(fundPaymentBytes)).toBeNull();
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
  });
});

/*
 * ReleasePayment / RefundPayment: the ABI's tables (docs/sla-escrow-abi.md, ABI §5.3 / §5.4), index by index, for every
 * path: SOL and SPL, with and without the oracle tip accounts, and with the extended-payment tail (pr402: PaymentExt
 * and buyer, before the tip accounts). Each row is [address, role] in ABI order.
 */
describe("ReleasePayment (1): ABI §5.3", () => {
  const head = [
    [keeper, SW],
    [bank, R],
    [config, R],
    [escrow, W],
    [payment, W],
  ] as [Address, AccountRole][];
  const sol = { ...pdas, caller: keeper, kind: "sol" as const, solStorage, seller };
  const spl = {
    ...pdas,
    caller: keeper,
    kind: "spl" as const,
    mint,
    escrowAta,
    sellerAta,
    seller,
    tokenProgram: TOKEN,
  };
  const solFixed = [...head, [NATIVE_SOL_ESCROW_MINT, R], [solStorage, W], [seller, W], [SYSTEM, R]] as [
    Address,
    AccountRole,
  ][];
  const splFixed = [
    ...head,
    [mint, R],
    [escrowAta, W],
    [sellerAta, W],
    [seller, W],
    [TOKEN, R],
    [ATA_PROGRAM, R],
    [SYSTEM, R],
  ] as [Address, AccountRole][];

  it("data is the bare discriminator [1]", () => {
    expect(getReleasePaymentInstruction(sol).data).toEqual(Uint8Array.of(1));
    expect(getReleasePaymentInstruction(spl).data).toEqual(Uint8Array.of(1));
  });
  it(
    "SOL, indices 0–8: caller (w,s), bank, config, escrow (w), payment (w), mint, sol_storage (w), seller (w), " +
      "System",
    () => {
      expect(getReleasePaymentInstruction(sol).accounts).toEqual(metas(...solFixed));
    },
  );
  it("SOL with the tip: + 9 oracle_authority (w)", () => {
    expect(getReleasePaymentInstruction({ ...sol, oracleTip: { oracle } }).accounts).toEqual(
      metas(...solFixed, [oracle, W]),
    );
  });
  it("SPL, indices 0–11: … escrow_tokens (w), seller_tokens (w), seller (w), token, associated-token, System", () => {
    expect(getReleasePaymentInstruction(spl).accounts).toEqual(metas(...splFixed));
  });
  it("SPL with the tip: + 12 oracle_tokens (w), 13 oracle_authority (w)", () => {
    expect(getReleasePaymentInstruction({ ...spl, oracleTip: { oracle, oracleAta } }).accounts).toEqual(
      metas(...splFixed, [oracleAta, W], [oracle, W]),
    );
    expect(() => getReleasePaymentInstruction({ ...spl, oracleTip: { oracle } })).toThrow(TypeError);
  });
  it("extended payment: PaymentExt (w) and buyer (w) after the fixed list, before the tip accounts", () => {
    const extended = { paymentExt, buyer };
    expect(getReleasePaymentInstruction({ ...sol, extended }).accounts).toEqual(
      metas(...solFixed, [paymentExt, W], [buyer, W]),
    );
    expect(getReleasePaymentInstruction({ ...sol, extended, oracleTip: { oracle } }).accounts).toEqual(
      metas(...solFixed, [paymentExt, W], [buyer, W], [oracle, W]),
    );
    expect(getReleasePaymentInstruction({ ...spl, extended, oracleTip: { oracle, oracleAta } }).accounts).toEqual(
      metas(...splFixed, [paymentExt, W], [buyer, W], [oracleAta, W], [oracle, W]),
    );
  });
});

describe("RefundPayment (2): ABI §5.4", () => {
  const head = [
    [keeper, SW],
    [bank, R],
    [config, R],
    [escrow, W],
    [payment, W],
  ] as [Address, AccountRole][];
  const sol = { ...pdas, caller: keeper, kind: "sol" as const, solStorage, buyer };
  const spl = { ...pdas, caller: keeper, kind: "spl" as const, mint, escrowAta, buyerAta, tokenProgram: TOKEN };
  const solFixed = [...head, [NATIVE_SOL_ESCROW_MINT, R], [solStorage, W], [buyer, W], [SYSTEM, R]] as [
    Address,
    AccountRole,
  ][];
  const splFixed = [...head, [mint, R], [escrowAta, W], [buyerAta, W], [TOKEN, R]] as [Address, AccountRole][];

  it("data is the bare discriminator [2]", () => {
    expect(getRefundPaymentInstruction(sol).data).toEqual(Uint8Array.of(2));
  });
  it("SOL, indices 0–8: … sol_storage (w), buyer (w), System", () => {
    expect(getRefundPaymentInstruction(sol).accounts).toEqual(metas(...solFixed));
  });
  it("SOL with the tip: + 9 oracle_authority (w)", () => {
    expect(getRefundPaymentInstruction({ ...sol, oracleTip: { oracle } }).accounts).toEqual(
      metas(...solFixed, [oracle, W]),
    );
  });
  it("SPL, indices 0–8: … escrow_tokens (w), buyer_tokens (w), token program", () => {
    expect(getRefundPaymentInstruction(spl).accounts).toEqual(metas(...splFixed));
  });
  it("SPL with the tip: + 9 oracle_tokens (w), 10 oracle_authority (w), 11 associated-token, 12 System", () => {
    expect(getRefundPaymentInstruction({ ...spl, oracleTip: { oracle, oracleAta } }).accounts).toEqual(
      metas(...splFixed, [oracleAta, W], [oracle, W], [ATA_PROGRAM, R], [SYSTEM, R]),
    );
  });
  it("extended payment: PaymentExt (w) and the buyer (w) as its rent recipient, before the tip accounts", () => {
    const extended = { paymentExt, buyer };
    expect(getRefundPaymentInstruction({ ...spl, extended, oracleTip: { oracle, oracleAta } }).accounts).toEqual(
      metas(...splFixed, [paymentExt, W], [buyer, W], [oracleAta, W], [oracle, W], [ATA_PROGRAM, R], [SYSTEM, R]),
    );
    expect(getRefundPaymentInstruction({ ...sol, extended }).accounts).toEqual(
      metas(...solFixed, [paymentExt, W], [buyer, W]),
    );
    // The PaymentExt's rent goes to the payment's buyer, nobody else.
    expect(() => getRefundPaymentInstruction({ ...sol, extended: { paymentExt, buyer: seller } })).toThrow(RangeError);
  });
});

describe("ClosePayment (3): ABI §5.5", () => {
  it("[3]; caller (s, not w), buyer (w), bank, config, escrow (w), payment (w), System", () => {
    const instruction = getClosePaymentInstruction({ ...pdas, caller: keeper, buyer });
    expect(instruction.accounts).toEqual(
      metas([keeper, S], [buyer, W], [bank, R], [config, R], [escrow, W], [payment, W], [SYSTEM, R]),
    );
    expect(instruction.data).toEqual(Uint8Array.of(3));
  });
});

describe("ExtendPaymentTTL (4): ABI §5.6", () => {
  it(
    "[4] ‖ additional_seconds i64 (9 bytes); 7 accounts: buyer (s), bank, config, escrow, payment (w), System, Rent " +
      "sysvar",
    () => {
      const instruction = getExtendPaymentTtlInstruction({ ...pdas, buyer, additionalSeconds: 3_600n });
      expect(instruction.data).toEqual(Uint8Array.of(4, 0x10, 0x0e, 0, 0, 0, 0, 0, 0));
      expect(instruction.accounts).toEqual(
        metas([buyer, S], [bank, R], [config, R], [escrow, R], [payment, W], [SYSTEM, R], [RENT_SYSVAR, R]),
      );
    },
  );
});

describe("SubmitDelivery (5): ABI §5.7 / ApproveDelivery (7): pr402", () => {
  const deliveryHash = Uint8Array.from(fill32(0x11));

  it("[5|7] ‖ delivery_hash (33 bytes); SubmitDelivery's seller signs (not w), ApproveDelivery's buyer (s,w)", () => {
    const submit = getSubmitDeliveryInstruction({ ...pdas, seller, deliveryHash });
    const approve = getApproveDeliveryInstruction({ ...pdas, buyer, deliveryHash });
    expect(submit.data).toEqual(bytes([5], fill32(0x11)));
    expect(approve.data).toEqual(bytes([7], fill32(0x11)));
    expect(submit.accounts).toEqual(metas([seller, S], [bank, R], [config, R], [escrow, R], [payment, W]));
    expect(approve.accounts).toEqual(metas([buyer, SW], [bank, R], [config, R], [escrow, R], [payment, W]));
  });
});

describe("ConfirmOracle (6): ABI §5.8", () => {
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
    expect(instruction.data).toEqual(expected);
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
    expect(propose.data).toEqual(bytes([9], actionBody));
    expect(accept.data).toEqual(bytes([10], actionBody));
    expect(propose.accounts).toEqual(
      metas([buyer, SW], [bank, R], [config, R], [escrow, R], [payment, W], [paymentExt, W]),
    );
    expect(accept.accounts[0]).toEqual({ address: seller, role: SW });
  });

  it("DisputePayment: [11] ‖ dispute_reason_hash (33 bytes)", () => {
    const disputeReasonHash = Uint8Array.from(fill32(0x77));
    const dispute = getDisputePaymentInstruction({ ...pdas, paymentExt, buyer, disputeReasonHash });
    expect(dispute.data).toEqual(bytes([11], fill32(0x77)));
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
    const instruction = getResolveWithSplitInstruction({ kind: "sol", ...common, solStorage });
    expect(instruction.data).toEqual(expected);
    expect(resolveWithSplitData.safeDecode(expected)).toEqual(data);
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

  it("SPL account list (pr402: the seller and buyer wallets writable)", () => {
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
        [seller, W],
        [buyerAta, W],
        [buyer, W],
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
