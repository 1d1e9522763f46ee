import { type Address, generateKeyPairSigner, type Instruction } from "@solana/kit";
import { getAdvanceNonceAccountInstruction } from "@solana-program/system";
import { beforeAll, describe, expect, it } from "vitest";
import { jsonParsedInstruction } from "../../../../../localnet/parsed-instructions";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../../src/chain/compute-budget";
import { MEMO_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../../../../src/chain/token-programs";
import type { DecodedTransaction } from "../../../../../src/chain/wire-transaction";
import { DEFAULT_SMART_WALLET_PROGRAMS } from "../../../../../src/rails/exact/config";
import {
  callsSmartWallet,
  checkSmartWalletTransaction,
  findSmartWalletPayment,
  type SmartWalletPolicy,
} from "../../../../../src/rails/exact/smart-wallet/rules";
import { EXACT_REQUIRED_SIGNATURES } from "../../../../../src/rails/exact/verify-rules";
import { decodedInstruction, reasonOf } from "../../../../support/rule-results";

/**
 * The smart-wallet rules of the exact rail (src/rails/exact/smart-wallet/rules.ts), one case per rule, each starting
 * from a payment they accept and changing one thing. The inner instructions are in the shape a node answers
 * (built by the local chain's own parser, localnet/parsed-instructions.ts, from raw instruction bytes). Each guard
 * here is a money rule of docs/money-rules.md "Smart-wallet payments": deleting it makes its case fail.
 */
const SWIG = "swigypWHEksbC64pWKwah1WTeh9JXwx8H1rJHLdbQMB" as Address;
const AMOUNT = 10_000n;

let feePayer: Address;
let owner: Address;
let walletPda: Address;
let source: Address;
let destination: Address;
let mint: Address;
let elsewhere: Address;

beforeAll(async () => {
  const keys = (await Promise.all(Array.from({ length: 7 }, () => generateKeyPairSigner()))).map((k) => k.address);
  [feePayer, owner, walletPda, source, destination, mint, elsewhere] = keys as [
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
  ];
});

const policy = (overrides: Partial<SmartWalletPolicy> = {}): SmartWalletPolicy => ({
  feePayer,
  allowedPrograms: new Set(DEFAULT_SMART_WALLET_PROGRAMS),
  maxComputeUnits: 400_000,
  maxPriorityFeeMicroLamports: 50_000n,
  ...overrides,
});

const walletCall = (accounts: Address[] = [walletPda, owner]): Instruction => ({
  programAddress: SWIG,
  accounts: accounts.map((address) => ({ address, role: 0 })),
  data: new Uint8Array([11, 0]),
});

function tx(instructions: Instruction[], header: Partial<DecodedTransaction> = {}): DecodedTransaction {
  return {
    wireBytes: new Uint8Array(),
    wireBase64: "",
    messageBytes: new Uint8Array(),
    version: 0,
    signatures: [],
    staticAccounts: [feePayer, owner],
    numRequiredSignatures: EXACT_REQUIRED_SIGNATURES,
    numReadonlySignedAccounts: 0,
    numReadonlyUnsignedAccounts: 0,
    feePayer,
    recentBlockhash: "",
    usesAddressLookupTables: false,
    instructions: instructions.map(decodedInstruction),
    ...header,
  };
}

const standard = () => [
  getSetComputeUnitLimitInstruction(200_000),
  getSetComputeUnitPriceInstruction(1n),
  walletCall(),
];

describe("before the simulation", () => {
  it("accepts a wallet call with compute instructions and a memo", () => {
    const memo: Instruction = { programAddress: MEMO_PROGRAM_ADDRESS, data: new TextEncoder().encode("nonce") };
    expect(checkSmartWalletTransaction(tx([...standard(), memo]), policy())).toBeNull();
    expect(callsSmartWallet(tx(standard()), policy().allowedPrograms)).toBe(true);
  });

  it("takes a transaction to the smart-wallet path only when it calls a listed wallet program", () => {
    expect(callsSmartWallet(tx(standard()), new Set(["SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf"]))).toBe(false);
  });

  it("refuses the fee payer in a top-level instruction's accounts", () => {
    const result = checkSmartWalletTransaction(tx([walletCall([walletPda, owner, feePayer])]), policy());
    expect(reasonOf({ ok: false, rejection: result })).toBe("invalid_exact_svm_smart_wallet_fee_payer_not_isolated");
  });

  it("refuses a top-level program outside the list", () => {
    const other: Instruction = { programAddress: elsewhere, data: new Uint8Array([1]) };
    expect(checkSmartWalletTransaction(tx([...standard(), other]), policy())?.reason).toBe(
      "invalid_exact_svm_smart_wallet_program_not_allowed",
    );
  });

  it("refuses lookup tables, a durable nonce and a third signer", async () => {
    expect(checkSmartWalletTransaction(tx(standard(), { usesAddressLookupTables: true }), policy())?.reason).toBe(
      "invalid_exact_svm_payload_address_lookup_tables",
    );
    const nonceAuthority = await generateKeyPairSigner();
    const advance = getAdvanceNonceAccountInstruction({ nonceAccount: elsewhere, nonceAuthority });
    expect(checkSmartWalletTransaction(tx([advance, ...standard()]), policy())?.reason).toBe(
      "invalid_exact_svm_payload_durable_nonce",
    );
    expect(checkSmartWalletTransaction(tx(standard(), { numRequiredSignatures: 3 }), policy())?.reason).toBe(
      "invalid_exact_svm_payload_excessive_signers",
    );
  });

  it("caps compute units and the priority fee with the smart-wallet limits", () => {
    const units = [getSetComputeUnitLimitInstruction(400_001), walletCall()];
    expect(checkSmartWalletTransaction(tx(units), policy())?.reason).toBe(
      "invalid_exact_svm_smart_wallet_compute_units_too_high",
    );
    const price = [
      getSetComputeUnitLimitInstruction(200_000),
      getSetComputeUnitPriceInstruction(50_001n),
      walletCall(),
    ];
    expect(checkSmartWalletTransaction(tx(price), policy())?.reason).toBe(
      "invalid_exact_svm_smart_wallet_priority_fee_too_high",
    );
    const implied = [getSetComputeUnitPriceInstruction(1n), walletCall(), walletCall(), walletCall()];
    expect(checkSmartWalletTransaction(tx(implied), policy())?.reason).toBe(
      "invalid_exact_svm_smart_wallet_compute_units_too_high",
    );
  });

  it("holds extra.memo to exactly one Memo carrying it", () => {
    expect(checkSmartWalletTransaction(tx(standard()), policy({ memo: "order-1" }))?.reason).toBe(
      "invalid_exact_svm_payload_memo_count",
    );
  });
});

// Inner instructions as the node reports them, from raw bytes.
const tokenIx = (data: number[], accounts: Address[]) =>
  jsonParsedInstruction({ programId: TOKEN_PROGRAM_ADDRESS, accounts, data: Uint8Array.from(data), stackHeight: 2 });
const u64 = (value: bigint) => Array.from(new Uint8Array(new BigUint64Array([value]).buffer));
const transferChecked = (to: Address = destination, amount = AMOUNT, from: Address = source) =>
  tokenIx([12, ...u64(amount), 6], [from, mint, to, walletPda]);
const inner = (...instructions: unknown[]) => [{ index: 2, instructions }];
const expected = () => ({ feePayer, mint, destination, amount: AMOUNT });

describe("what the simulation shows", () => {
  it("finds the one TransferChecked into the payee's account, its authority the payer", () => {
    const found = findSmartWalletPayment(inner(transferChecked()), expected());
    expect(found).toEqual({
      ok: true,
      transfer: {
        kind: "spl",
        source,
        destination,
        authority: walletPda,
        amount: AMOUNT,
        mint,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
        decimals: 6,
      },
    });
  });

  it("refuses a second matching transfer in a later inner instruction", () => {
    const result = findSmartWalletPayment(inner(transferChecked(), transferChecked()), expected());
    expect(reasonOf(result)).toBe("invalid_exact_svm_smart_wallet_multiple_matching_transfers");
  });

  it("refuses a transfer of another amount, or into another account, or none at all", () => {
    expect(reasonOf(findSmartWalletPayment(inner(transferChecked(destination, AMOUNT - 1n)), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_transfer_mismatch",
    );
    expect(reasonOf(findSmartWalletPayment(inner(transferChecked(elsewhere)), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_transfer_mismatch",
    );
    expect(reasonOf(findSmartWalletPayment(inner(), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_no_transfer_in_simulation",
    );
    expect(reasonOf(findSmartWalletPayment(null, expected()))).toBe("invalid_exact_svm_smart_wallet_simulation_failed");
  });

  it("refuses an inner instruction that uses the fee payer", () => {
    const drain = jsonParsedInstruction({
      programId: "11111111111111111111111111111111",
      accounts: [feePayer, elsewhere],
      data: Uint8Array.from([2, 0, 0, 0, ...u64(1_000_000n)]),
      stackHeight: 2,
    });
    expect(reasonOf(findSmartWalletPayment(inner(transferChecked(), drain), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_fee_payer_not_isolated",
    );
  });

  it("refuses a close of the payee's account after the payment, and any transfer out of it", () => {
    const close = tokenIx([9], [destination, elsewhere, walletPda]);
    expect(reasonOf(findSmartWalletPayment(inner(transferChecked(), close), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_destination_touched",
    );
    const takeBack = transferChecked(elsewhere, AMOUNT, destination);
    expect(reasonOf(findSmartWalletPayment(inner(transferChecked(), takeBack), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_destination_touched",
    );
    // The same close, as a node that could not parse it reports it (partially decoded).
    const rawClose = { programId: TOKEN_PROGRAM_ADDRESS, accounts: [destination, elsewhere, walletPda], data: "A" };
    expect(reasonOf(findSmartWalletPayment(inner(transferChecked(), rawClose), expected()))).toBe(
      "invalid_exact_svm_smart_wallet_destination_touched",
    );
  });
});
