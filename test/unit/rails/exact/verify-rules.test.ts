import { AccountRole, type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import { getAdvanceNonceAccountInstruction, getTransferSolInstruction } from "@solana-program/system";
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getSyncNativeInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  LIGHTHOUSE_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  WRAPPED_SOL_MINT,
} from "../../../../src/chain/token-programs";
import type { DecodedTransaction } from "../../../../src/chain/wire-transaction";
import {
  checkExactTransaction,
  EXACT_REQUIRED_SIGNATURES,
  type ExactPolicy,
} from "../../../../src/rails/exact/verify-rules";
import { decodedInstruction, messageOf, reasonOf } from "../../../support/rule-results";

/**
 * The exact rail's structural rules (src/rails/exact/verify-rules.ts), one case per rule: each starts from a
 * payment the rules accept and changes one thing, and asserts the reason /verify puts on the wire. Pure: the
 * instructions come from the real program clients; the transaction header is written out (no chain, no signatures,
 * which these rules do not read). test/worker/rails/exact/verify-rules.test.ts sends the same kind of cases through
 * /verify.
 */
const AMOUNT = 1_000_000n;
const MAX_UNITS = 200_000;
const MAX_PRICE = 50_000n;

let feePayer: Address;
let buyer: KeyPairSigner;
let mint: Address;
let source: Address;
let vaultAta: Address;
let solStorage: Address;
let stranger: Address;

beforeAll(async () => {
  const [f, b, m, s, v, st, x] = await Promise.all(Array.from({ length: 7 }, () => generateKeyPairSigner()));
  [feePayer, buyer, mint, source, vaultAta, solStorage, stranger] = [
    f!.address,
    b!,
    m!.address,
    s!.address,
    v!.address,
    st!.address,
    x!.address,
  ];
});

const splPolicy = (overrides: Partial<ExactPolicy> = {}): ExactPolicy => ({
  feePayer,
  amount: AMOUNT,
  maxComputeUnitLimit: MAX_UNITS,
  maxComputeUnitPriceMicroLamports: MAX_PRICE,
  destination: { kind: "spl", mint },
  ...overrides,
});
const solPolicy = (): ExactPolicy => splPolicy({ destination: { kind: "sol", solStorage } });
const wsolPolicy = (): ExactPolicy => splPolicy({ destination: { kind: "spl", mint: WRAPPED_SOL_MINT } });

const limit = (units = 20_000) => getSetComputeUnitLimitInstruction(units);
const price = (microLamports = 1n) => getSetComputeUnitPriceInstruction(microLamports);
const memo = (text: string): Instruction => ({
  programAddress: MEMO_PROGRAM_ADDRESS,
  data: new TextEncoder().encode(text),
});
const lighthouse = (): Instruction => ({ programAddress: LIGHTHOUSE_PROGRAM_ADDRESS, data: new Uint8Array([1, 2, 3]) });
const transferChecked = (
  overrides: Partial<{ amount: bigint; mint: Address; destination: Address; source: Address }> = {},
) =>
  getTransferCheckedInstruction({
    source: overrides.source ?? source,
    mint: overrides.mint ?? mint,
    destination: overrides.destination ?? vaultAta,
    authority: buyer,
    amount: overrides.amount ?? AMOUNT,
    decimals: 6,
  });
const solTransfer = (destination: Address = solStorage, amount = AMOUNT) =>
  getTransferSolInstruction({ source: buyer, destination, amount });

/**
 * A transaction header as the wire decoder reports it: fee payer at 0, the buyer at 1, `signers` required signatures.
 */
function tx(
  instructions: Instruction[],
  header: Partial<
    Pick<DecodedTransaction, "feePayer" | "numRequiredSignatures" | "usesAddressLookupTables" | "staticAccounts">
  > = {},
): DecodedTransaction {
  return {
    wireBytes: new Uint8Array(),
    wireBase64: "",
    messageBytes: new Uint8Array(),
    version: 0,
    signatures: [],
    staticAccounts: header.staticAccounts ?? [header.feePayer ?? feePayer, buyer.address],
    numRequiredSignatures: header.numRequiredSignatures ?? EXACT_REQUIRED_SIGNATURES,
    numReadonlySignedAccounts: 0,
    numReadonlyUnsignedAccounts: 0,
    feePayer: header.feePayer ?? feePayer,
    recentBlockhash: "",
    usesAddressLookupTables: header.usesAddressLookupTables ?? false,
    instructions: instructions.map(decodedInstruction),
  };
}

const standard = () => [limit(), price(), transferChecked(), memo("nonce")];
const check = (instructions: Instruction[], policy = splPolicy(), header = {}) =>
  checkExactTransaction(tx(instructions, header), policy);

describe("exact verify rules: accepted shapes", () => {
  it("the standard SPL payment passes and names its transfer", () => {
    expect(check(standard())).toMatchObject({
      ok: true,
      transfer: { kind: "spl", authority: buyer.address, source, destination: vaultAta, amount: AMOUNT, mint },
    });
  });

  it("a SOL payment to the vault's SOL storage passes", () => {
    expect(check([limit(), price(), solTransfer(), memo("nonce")], solPolicy())).toMatchObject({
      ok: true,
      transfer: { kind: "sol", destination: solStorage, amount: AMOUNT },
    });
  });

  it("a wSOL payment may wrap: create its own wSOL account, move SOL into it, SyncNative, then transfer", () => {
    const wrap = [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: buyer,
        ata: source,
        owner: buyer.address,
        mint: WRAPPED_SOL_MINT,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      }),
      solTransfer(source),
      getSyncNativeInstruction({ account: source }),
    ];
    // The ATA program's create instruction lists the fee payer of the creation (here the buyer), never ours.
    expect(
      reasonOf(check([limit(), price(), ...wrap, transferChecked({ mint: WRAPPED_SOL_MINT })], wsolPolicy())),
    ).toBe("accepted");
  });

  it("up to four Lighthouse guards and one Memo are free", () => {
    expect(
      reasonOf(
        check([
          limit(),
          price(),
          lighthouse(),
          lighthouse(),
          transferChecked(),
          lighthouse(),
          lighthouse(),
          memo("nonce"),
        ]),
      ),
    ).toBe("accepted");
  });
});

describe("exact verify rules: one case per rejection", () => {
  it("address lookup tables", () => {
    expect(reasonOf(check(standard(), splPolicy(), { usesAddressLookupTables: true }))).toBe(
      "invalid_exact_svm_payload_address_lookup_tables",
    );
  });

  it("a fee payer other than the facilitator", () => {
    expect(reasonOf(check(standard(), splPolicy(), { feePayer: stranger }))).toBe(
      "invalid_exact_svm_fee_payer_mismatch",
    );
  });

  it("more than two required signatures", () => {
    expect(
      reasonOf(
        check(standard(), splPolicy(), {
          numRequiredSignatures: 3,
          staticAccounts: [feePayer, buyer.address, stranger],
        }),
      ),
    ).toBe("invalid_exact_svm_payload_excessive_signers");
  });

  it("only the fee payer signs", () => {
    const result = check(standard(), splPolicy(), { numRequiredSignatures: 1 });
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_missing_signer");
    expect(messageOf(result)).toMatch(/no buyer signer/);
  });

  it("the fee payer in any instruction's accounts", () => {
    const namingFeePayer = { ...memo("nonce"), accounts: [{ address: feePayer, role: AccountRole.READONLY }] };
    expect(reasonOf(check([limit(), price(), transferChecked(), namingFeePayer]))).toBe(
      "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds",
    );
  });

  it("no instructions at all", () => {
    expect(reasonOf(check([]))).toBe("invalid_exact_svm_payload_no_transfer_instruction");
    expect(messageOf(check([]))).toMatch(/no instructions/);
  });

  it("a durable nonce (AdvanceNonceAccount first)", () => {
    const advance = getAdvanceNonceAccountInstruction({ nonceAccount: stranger, nonceAuthority: buyer });
    expect(reasonOf(check([advance, ...standard()]))).toBe("invalid_exact_svm_payload_durable_nonce");
  });

  it("two SetComputeUnitLimit instructions", () => {
    const result = check([limit(), limit(), price(), transferChecked()]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction");
    expect(messageOf(result)).toMatch(/More than one SetComputeUnitLimit/);
  });

  it("a compute unit limit above the advertised maximum", () => {
    expect(reasonOf(check([limit(MAX_UNITS + 1), price(), transferChecked()]))).toBe(
      "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high",
    );
  });

  it("two SetComputeUnitPrice instructions", () => {
    expect(reasonOf(check([limit(), price(), price(), transferChecked()]))).toBe(
      "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction",
    );
  });

  it("a compute unit price above the maximum", () => {
    expect(reasonOf(check([limit(), price(MAX_PRICE + 1n), transferChecked()]))).toBe(
      "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high",
    );
  });

  it("a ComputeBudget instruction other than limit and price (RequestHeapFrame)", () => {
    const heapFrame: Instruction = {
      programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS,
      data: new Uint8Array([1, 0, 0, 4, 0]),
    };
    expect(reasonOf(check([heapFrame, limit(), price(), transferChecked()]))).toBe(
      "invalid_exact_svm_payload_unsupported_compute_budget_instruction",
    );
  });

  it("a price without a limit whose implied limit (200,000 per instruction) exceeds the maximum", () => {
    const result = check([price(), transferChecked(), memo("nonce")]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction");
    expect(messageOf(result)).toMatch(/implied limit 400000/);
  });

  it("a fifth Lighthouse guard", () => {
    expect(reasonOf(check([limit(), price(), ...Array.from({ length: 5 }, lighthouse), transferChecked()]))).toBe(
      "invalid_exact_svm_payload_lighthouse_count",
    );
  });

  it("a second Memo", () => {
    const result = check([...standard(), memo("again")]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_memo_count");
    expect(messageOf(result)).toMatch(/At most 1 memo/);
  });

  it("a malformed TransferChecked (data cut short)", () => {
    const cut = transferChecked();
    expect(reasonOf(check([limit(), price(), { ...cut, data: cut.data.slice(0, 9) }]))).toBe(
      "invalid_exact_svm_payload_transaction_instructions",
    );
  });

  it("a token instruction other than TransferChecked (plain Transfer)", () => {
    const plain = getTransferInstruction({ source, destination: vaultAta, authority: buyer, amount: AMOUNT });
    const result = check([limit(), price(), plain]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/token instruction other than TransferChecked/);
  });

  it("a System instruction other than Transfer", () => {
    const advanceLater = getAdvanceNonceAccountInstruction({ nonceAccount: stranger, nonceAuthority: buyer });
    const result = check([limit(), price(), transferChecked(), advanceLater]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/System instruction other than Transfer/);
  });

  it("a System transfer inside a token payment", () => {
    const result = check([...standard(), solTransfer(stranger, 1n)]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/moves SOL in a payment of/);
  });

  it("an associated-token instruction outside a wSOL wrap", () => {
    const create = getCreateAssociatedTokenIdempotentInstruction({
      payer: buyer,
      ata: stranger,
      owner: buyer.address,
      mint,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const result = check([create, ...standard()]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/associated-token instruction that only a wSOL wrap may use/);
  });

  it("a program outside the allowlist", () => {
    const foreign: Instruction = { programAddress: stranger, data: new Uint8Array([0]) };
    const result = check([...standard(), foreign]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/not allowed in an exact payment/);
  });

  it("extra.memo set but no Memo", () => {
    const result = check([limit(), price(), transferChecked()], splPolicy({ memo: "order-42" }));
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_memo_count");
    expect(messageOf(result)).toMatch(/extra.memo is set/);
  });

  it("extra.memo set and a Memo carrying other bytes", () => {
    expect(
      reasonOf(check([limit(), price(), transferChecked(), memo("order-43")], splPolicy({ memo: "order-42" }))),
    ).toBe("invalid_exact_svm_payload_memo_mismatch");
    expect(
      reasonOf(check([limit(), price(), transferChecked(), memo("order-42")], splPolicy({ memo: "order-42" }))),
    ).toBe("accepted");
  });

  it("no transfer besides compute budget and memo", () => {
    const result = check([limit(), price(), memo("nonce")]);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_no_transfer_instruction");
    expect(messageOf(result)).toMatch(/no TransferChecked/);
  });

  it("two transfers", () => {
    expect(reasonOf(check([limit(), price(), transferChecked(), transferChecked()]))).toBe(
      "invalid_exact_svm_payload_multiple_transfers",
    );
  });

  it("another mint", () => {
    expect(reasonOf(check([limit(), price(), transferChecked({ mint: stranger })]))).toBe(
      "invalid_exact_svm_payload_mint_mismatch",
    );
  });

  it("a SOL payment to somewhere other than the vault's SOL storage", () => {
    expect(reasonOf(check([limit(), price(), solTransfer(stranger)], solPolicy()))).toBe(
      "invalid_exact_svm_payload_recipient_mismatch",
    );
  });

  it("an amount other than the required one, less or more", () => {
    expect(reasonOf(check([limit(), price(), transferChecked({ amount: AMOUNT - 1n })]))).toBe(
      "invalid_exact_svm_payload_amount_mismatch",
    );
    expect(reasonOf(check([limit(), price(), transferChecked({ amount: AMOUNT + 1n })]))).toBe(
      "invalid_exact_svm_payload_amount_mismatch",
    );
  });

  it("a transfer authority that does not sign the transaction", () => {
    // The buyer sits after the signer range: only the fee payer and an unrelated wallet sign.
    const header = { staticAccounts: [feePayer, stranger, buyer.address] };
    const result = check(standard(), splPolicy(), header);
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_missing_signer");
    expect(messageOf(result)).toMatch(/transfer authority is not a signer/);
  });

  it("a wSOL wrap that moves SOL anywhere but into the buyer's own wSOL source", () => {
    const wrapElsewhere = [solTransfer(stranger), getSyncNativeInstruction({ account: source })];
    const result = check(
      [limit(), price(), ...wrapElsewhere, transferChecked({ mint: WRAPPED_SOL_MINT })],
      wsolPolicy(),
    );
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/A wSOL wrap may only move SOL/);
  });

  it("a wSOL SyncNative on an account other than the transfer's source", () => {
    const syncElsewhere = [solTransfer(source), getSyncNativeInstruction({ account: stranger })];
    const result = check(
      [limit(), price(), ...syncElsewhere, transferChecked({ mint: WRAPPED_SOL_MINT })],
      wsolPolicy(),
    );
    expect(reasonOf(result)).toBe("invalid_exact_svm_payload_unknown_optional_instruction");
    expect(messageOf(result)).toMatch(/SyncNative may only target/);
  });
});
