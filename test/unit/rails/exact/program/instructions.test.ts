import { AccountRole, address, createNoopSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { ProgramDataError } from "../../../../../src/chain/program/program-data-error";
import { ZERO_ADDRESS } from "../../../../../src/chain/program/zero-address";
import { EXACT_CLUSTER_DEFAULTS } from "../../../../../src/rails/exact/cluster-defaults";
import {
  getCreateVaultInstruction,
  getSweepInstruction,
  UNIVERSAL_SETTLE_INSTRUCTION,
} from "../../../../../src/rails/exact/program/instructions";
import { createVaultData, sweepData } from "../../../../support/instruction-data";
import { addressFromBytes, bytes, seq32, zeros } from "../../byte-vectors";

/**
 * Byte equality with docs/universal-settle-abi.md ("Instructions"): every expected data byte and account meta
 * below is written out by hand from that document, and the builders must produce exactly them.
 */

const programId = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
const SYSTEM = "11111111111111111111111111111111";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

const seller = addressFromBytes(seq32(1));
const payer = addressFromBytes(seq32(101));
const vault = addressFromBytes(seq32(133));
const solStorage = addressFromBytes(seq32(165));
const config = addressFromBytes(seq32(197));
const mint = addressFromBytes(seq32(33));
const feeReceiver = addressFromBytes(seq32(65));

describe("CreateVault", () => {
  const dataBytes = bytes(
    [1], // @0 discriminator CreateVault = 1
    seq32(1), // @1 seller
  );

  it("encodes [1] ‖ seller (33 bytes) and decodes back", () => {
    expect(UNIVERSAL_SETTLE_INSTRUCTION.CREATE_VAULT).toBe(1);
    const { data } = getCreateVaultInstruction({ programId, payer, vault, solStorage, seller });
    expect(data).toHaveLength(33);
    expect(data).toEqual(dataBytes);
    expect(createVaultData.decode(dataBytes)).toEqual({ seller });
    expect(createVaultData.safeDecode(data)).toEqual({ seller });
  });

  it("rejects wrong length and discriminator", () => {
    expect(createVaultData.safeDecode(dataBytes.subarray(0, 32))).toBeNull();
    expect(createVaultData.safeDecode(bytes(dataBytes, [0]))).toBeNull();
    const sweepDisc = dataBytes.slice();
    sweepDisc[0] = 0;
    expect(createVaultData.safeDecode(sweepDisc)).toBeNull();
    expect(() => createVaultData.decode(sweepDisc)).toThrow(ProgramDataError);
  });

  it("lists payer (s,w), vault (w), SOL storage (w), System", () => {
    const instruction = getCreateVaultInstruction({ programId, payer, vault, solStorage, seller });
    expect(instruction.programAddress).toBe(programId);
    expect(instruction.accounts).toEqual([
      { address: payer, role: AccountRole.WRITABLE_SIGNER },
      { address: vault, role: AccountRole.WRITABLE },
      { address: solStorage, role: AccountRole.WRITABLE },
      { address: SYSTEM, role: AccountRole.READONLY },
    ]);
    expect(instruction.data).toEqual(dataBytes);
  });

  it("attaches a TransactionSigner to the payer meta when given one", () => {
    const signer = createNoopSigner(payer);
    const instruction = getCreateVaultInstruction({ programId, payer: signer, vault, solStorage, seller });
    expect(instruction.accounts[0]).toEqual({ address: payer, role: AccountRole.WRITABLE_SIGNER, signer });
  });
});

describe("Sweep", () => {
  const splBytes = bytes(
    [0], // @0 discriminator Sweep = 0
    seq32(33), // @1 mint
    [0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01], // @33 amount u64 LE
    [0], // @41 is_sol = 0
    [0, 0, 0, 0, 0, 0, 0], // @42 7 zero bytes
  );
  const solBytes = bytes(
    [0], // @0 discriminator
    zeros(32), // @1 mint = 32 zero bytes for SOL
    [0, 0, 0, 0, 0, 0, 0, 0], // @33 amount 0 = everything
    [1], // @41 is_sol = 1
    [0, 0, 0, 0, 0, 0, 0], // @42
  );

  const splInput = {
    kind: "spl" as const,
    programId,
    payer,
    vault,
    config,
    vaultAta: addressFromBytes(seq32(201)),
    sellerAta: addressFromBytes(seq32(202)),
    feeReceiverAta: addressFromBytes(seq32(203)),
    mint,
    tokenProgram: address(TOKEN),
  };
  const solInput = { kind: "sol" as const, programId, payer, vault, config, solStorage, seller, feeReceiver };

  it("encodes 49 bytes for SPL and SOL and decodes back", () => {
    expect(UNIVERSAL_SETTLE_INSTRUCTION.SWEEP).toBe(0);
    const spl = { mint, amount: 0x0102030405060708n, isSol: false };
    const sol = { mint: ZERO_ADDRESS, amount: 0n, isSol: true };
    const splData = getSweepInstruction({ ...splInput, amount: spl.amount }).data;
    const solData = getSweepInstruction({ ...solInput, amount: 0n }).data;
    expect(splData).toHaveLength(49);
    expect(splData).toEqual(splBytes);
    expect(solData).toEqual(solBytes);
    expect(sweepData.decode(splBytes)).toEqual(spl);
    expect(sweepData.safeDecode(solBytes)).toEqual(sol);
  });

  it("rejects wrong length and discriminator", () => {
    expect(sweepData.safeDecode(splBytes.subarray(0, 48))).toBeNull();
    expect(sweepData.safeDecode(bytes(splBytes, [0]))).toBeNull();
    const other = splBytes.slice();
    other[0] = 1;
    expect(sweepData.safeDecode(other)).toBeNull();
    expect(() => sweepData.decode(other)).toThrow(/Sweep instruction data: expected discriminator 0, got 1/);
  });

  it("rejects amounts outside u64", () => {
    expect(() => getSweepInstruction({ ...splInput, amount: -1n })).toThrow();
    expect(() => getSweepInstruction({ ...splInput, amount: 1n << 64n })).toThrow();
  });

  it("builds the SOL account list", () => {
    const instruction = getSweepInstruction({
      kind: "sol",
      programId,
      payer,
      vault,
      config,
      solStorage,
      seller,
      feeReceiver,
      amount: 0n,
    });
    expect(instruction.accounts).toEqual([
      { address: payer, role: AccountRole.WRITABLE_SIGNER },
      { address: vault, role: AccountRole.WRITABLE },
      { address: config, role: AccountRole.READONLY },
      { address: solStorage, role: AccountRole.WRITABLE },
      { address: seller, role: AccountRole.WRITABLE },
      { address: feeReceiver, role: AccountRole.WRITABLE },
      { address: SYSTEM, role: AccountRole.READONLY },
    ]);
    expect(instruction.data).toEqual(solBytes);
  });

  it("builds the SPL account list", () => {
    const vaultAta = addressFromBytes(seq32(201));
    const sellerAta = addressFromBytes(seq32(202));
    const feeReceiverAta = addressFromBytes(seq32(203));
    const instruction = getSweepInstruction({
      kind: "spl",
      programId,
      payer,
      vault,
      config,
      vaultAta,
      sellerAta,
      feeReceiverAta,
      mint,
      tokenProgram: address(TOKEN),
      amount: 0x0102030405060708n,
    });
    expect(instruction.programAddress).toBe(programId);
    expect(instruction.accounts).toEqual([
      { address: payer, role: AccountRole.WRITABLE_SIGNER },
      { address: vault, role: AccountRole.WRITABLE },
      { address: config, role: AccountRole.READONLY },
      { address: vaultAta, role: AccountRole.WRITABLE },
      { address: sellerAta, role: AccountRole.WRITABLE },
      { address: feeReceiverAta, role: AccountRole.WRITABLE },
      { address: mint, role: AccountRole.READONLY },
      { address: TOKEN, role: AccountRole.READONLY },
    ]);
    expect(instruction.data).toEqual(splBytes);
  });

  it("refuses an SPL sweep of the zero mint", () => {
    expect(() =>
      getSweepInstruction({
        kind: "spl",
        programId,
        payer,
        vault,
        config,
        vaultAta: vault,
        sellerAta: seller,
        feeReceiverAta: feeReceiver,
        mint: ZERO_ADDRESS,
        tokenProgram: address(TOKEN),
        amount: 0n,
      }),
    ).toThrow(RangeError);
  });
});
