/**
 * The UniversalSettle stand-in (localnet/programs/universal-settle, a development fixture) executing
 * the facilitator's own CreateVault and Sweep instructions (src/chain/program/universal-settle) in litesvm.
 * Fee arithmetic under test (README): fee = max(fee_bps × amount / 10,000, min fee), discounted rate
 * for sovereign vaults; a non-sovereign, unprovisioned vault withholds recovery (to the fee receiver)
 * until a Config target is reached.
 */
import { type Address, address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { beforeEach, describe, expect, it } from "vitest";
import { UNIVERSAL_SETTLE_STANDIN_ERROR as E } from "../../localnet/programs/errors";
import { UNIVERSAL_SETTLE_DEVNET_PROGRAM_ID } from "../../localnet/programs/index";
import {
  getSplitVaultDecoder,
  getUniversalSettleConfigEncoder,
  type UniversalSettleConfig,
} from "../../src/rails/exact/program/accounts";
import { getCreateVaultInstruction, getSweepInstruction } from "../../src/rails/exact/program/instructions";
import {
  feeShardIndexOf,
  findFeeShardPda,
  findFeeShardSolStoragePda,
  findUniversalSettleConfigPda,
  findVaultPda,
  findVaultSolStoragePda,
} from "../../src/rails/exact/program/pda";
import {
  AccountRole,
  createAta,
  createMint,
  createStandInChain,
  dataOf,
  fundedSigner,
  LAMPORTS_PER_SOL,
  lamportsOf,
  mintTo,
  ownerOf,
  placeAccount,
  send,
  sendOk,
  type TestMint,
  TOKEN_2022_PROGRAM_ADDRESS,
  tokenBalance,
  transferSol,
  withAccount,
  withAccountRole,
} from "./harness";

const PROGRAM_ID = address(UNIVERSAL_SETTLE_DEVNET_PROGRAM_ID);

const MIN_FEE_RAW = 10_000n;
const MIN_FEE_LAMPORTS = 10_000n;
const PROVISIONING_FEE_LAMPORTS = 10_000_000n;
const PROVISIONING_FEE_RAW = 1_000_000n;
const FEE_BPS = 100n;
const DISCOUNTED_FEE_BPS = 90n;

/** The documented split, computed independently of the program. */
function expectedSplit(amount: bigint, sovereign: boolean, minFee: bigint, stillToRecover: bigint) {
  const bps = sovereign ? DISCOUNTED_FEE_BPS : FEE_BPS;
  let fee = (amount * bps) / 10_000n;
  if (fee < minFee) fee = minFee;
  const net = amount - fee;
  const withheld = sovereign ? 0n : net < stillToRecover ? net : stillToRecover;
  return { fee, withheld, payout: net - withheld };
}

interface World {
  svm: LiteSVM;
  facilitator: KeyPairSigner;
  feeDestination: KeyPairSigner;
  config: Address;
  rentZero: bigint;
}

async function placeConfig(svm: LiteSVM, feeDestination: Address, overrides: Partial<UniversalSettleConfig> = {}) {
  const [config] = await findUniversalSettleConfigPda(PROGRAM_ID);
  const value: UniversalSettleConfig = {
    authority: feeDestination,
    feeDestination,
    updatedAtUnixSeconds: 0n,
    minFeeAmountRaw: MIN_FEE_RAW,
    minFeeAmountLamports: MIN_FEE_LAMPORTS,
    provisioningFeeLamports: PROVISIONING_FEE_LAMPORTS,
    provisioningFeeRaw: PROVISIONING_FEE_RAW,
    feeBps: Number(FEE_BPS),
    discountedFeeBps: Number(DISCOUNTED_FEE_BPS),
    useFeeShard: false,
    shardCount: 0,
    ...overrides,
  };
  placeAccount(svm, config, PROGRAM_ID, getUniversalSettleConfigEncoder().encode(value));
  return config;
}

async function newWorld(): Promise<World> {
  const svm = createStandInChain();
  const facilitator = await fundedSigner(svm);
  const feeDestination = await fundedSigner(svm, 1n);
  const config = await placeConfig(svm, feeDestination.address);
  return { svm, facilitator, feeDestination, config, rentZero: svm.minimumBalanceForRentExemption(0n) };
}

interface Vault {
  seller: KeyPairSigner;
  vault: Address;
  solStorage: Address;
}

async function vaultAddresses(seller: KeyPairSigner): Promise<Vault> {
  const [vault] = await findVaultPda(PROGRAM_ID, seller.address);
  const [solStorage] = await findVaultSolStoragePda(PROGRAM_ID, vault);
  return { seller, vault, solStorage };
}

function createVaultIx(payer: KeyPairSigner, v: Vault) {
  return getCreateVaultInstruction({
    programId: PROGRAM_ID,
    payer,
    vault: v.vault,
    solStorage: v.solStorage,
    seller: v.seller.address,
  });
}

/** A vault provisioned by the facilitator (or by the seller itself when `sovereign`). */
async function newVault(w: World, sovereign = false): Promise<Vault> {
  const seller = await fundedSigner(w.svm, 1n);
  const v = await vaultAddresses(seller);
  const payer = sovereign ? seller : w.facilitator;
  await sendOk(w.svm, payer, [createVaultIx(payer, v)]);
  return v;
}

function readVault(w: World, v: Vault) {
  return getSplitVaultDecoder().decode(dataOf(w.svm, v.vault));
}

function sweepSolIx(w: World, v: Vault, amount: bigint, feeReceiver: Address = w.feeDestination.address) {
  return getSweepInstruction({
    kind: "sol",
    programId: PROGRAM_ID,
    payer: w.facilitator,
    vault: v.vault,
    config: w.config,
    amount,
    solStorage: v.solStorage,
    seller: v.seller.address,
    feeReceiver,
  });
}

describe("UniversalSettle stand-in: CreateVault", () => {
  let w: World;
  beforeEach(async () => {
    w = await newWorld();
  });

  it("creates a facilitator-provisioned vault: not sovereign, not provisioned, SOL storage funded", async () => {
    const seller = await generateKeyPairSigner();
    const v = await vaultAddresses(seller);
    const [, bump] = await findVaultPda(PROGRAM_ID, seller.address);
    await sendOk(w.svm, w.facilitator, [createVaultIx(w.facilitator, v)]);

    expect(ownerOf(w.svm, v.vault)).toBe(PROGRAM_ID);
    expect(dataOf(w.svm, v.vault).length).toBe(64);
    expect(readVault(w, v)).toEqual({
      seller: seller.address,
      solRecoveredLamports: 0n,
      splRecoveredRaw: 0n,
      isProvisioned: false,
      bump,
      isSovereign: false,
    });
    expect(lamportsOf(w.svm, v.vault)).toBe(w.svm.minimumBalanceForRentExemption(64n));
    expect(ownerOf(w.svm, v.solStorage)).toBe(address("11111111111111111111111111111111"));
    expect(lamportsOf(w.svm, v.solStorage)).toBe(w.rentZero);
  });

  it("marks the vault sovereign (and provisioned) when the seller pays", async () => {
    const v = await newVault(w, true);
    const vault = readVault(w, v);
    expect(vault.isSovereign).toBe(true);
    expect(vault.isProvisioned).toBe(true);
  });

  it("fails on an existing vault", async () => {
    const v = await newVault(w);
    const again = await send(w.svm, w.facilitator, [createVaultIx(w.facilitator, v)]);
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.customCode).toBe(E.VaultAlreadyExists);
  });

  it("rejects a vault address that is not PDA(vault, seller)", async () => {
    const v = await vaultAddresses(await generateKeyPairSigner());
    const other = await vaultAddresses(await generateKeyPairSigner());
    const result = await send(w.svm, w.facilitator, [createVaultIx(w.facilitator, { ...v, vault: other.vault })]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.customCode).toBe(E.InvalidVaultAddress);
  });

  it("rejects a SOL storage that is not PDA(sol_storage, vault)", async () => {
    const v = await vaultAddresses(await generateKeyPairSigner());
    const other = await vaultAddresses(await generateKeyPairSigner());
    const result = await send(w.svm, w.facilitator, [
      createVaultIx(w.facilitator, { ...v, solStorage: other.solStorage }),
    ]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.customCode).toBe(E.InvalidSolStorage);
  });

  it("requires the payer's signature", async () => {
    const payer = await fundedSigner(w.svm, 1n);
    const v = await vaultAddresses(await generateKeyPairSigner());
    const unsigned = withAccountRole(createVaultIx(payer, v), 0, AccountRole.WRITABLE);
    const result = await send(w.svm, w.facilitator, [unsigned]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.customCode).toBe(E.MissingSignature);
  });

  it("rejects a wrong System program account", async () => {
    const v = await vaultAddresses(await generateKeyPairSigner());
    const ix = withAccount(createVaultIx(w.facilitator, v), 3, w.config);
    const result = await send(w.svm, w.facilitator, [ix]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.customCode).toBe(E.InvalidSystemProgram);
  });

  it("keeps payments that reached the SOL storage before the vault existed", async () => {
    const buyer = await fundedSigner(w.svm);
    const v = await vaultAddresses(await generateKeyPairSigner());
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    await sendOk(w.svm, w.facilitator, [createVaultIx(w.facilitator, v)]);
    expect(lamportsOf(w.svm, v.solStorage)).toBe(LAMPORTS_PER_SOL);
  });

  it("still creates a vault whose address already received lamports", async () => {
    const donor = await fundedSigner(w.svm);
    const v = await vaultAddresses(await generateKeyPairSigner());
    await transferSol(w.svm, donor, v.vault, 1_000_000n);
    await sendOk(w.svm, w.facilitator, [createVaultIx(w.facilitator, v)]);
    expect(ownerOf(w.svm, v.vault)).toBe(PROGRAM_ID);
    expect(readVault(w, v).seller).toBe(v.seller.address);
    expect(lamportsOf(w.svm, v.vault)).toBe(w.svm.minimumBalanceForRentExemption(64n));
  });
});

describe("UniversalSettle stand-in: Sweep SOL", () => {
  let w: World;
  let buyer: KeyPairSigner;
  beforeEach(async () => {
    w = await newWorld();
    buyer = await fundedSigner(w.svm, 1000n);
  });

  async function sweepAndMeasure(v: Vault, amount: bigint) {
    const seller0 = lamportsOf(w.svm, v.seller.address);
    const fee0 = lamportsOf(w.svm, w.feeDestination.address);
    const storage0 = lamportsOf(w.svm, v.solStorage);
    await sendOk(w.svm, w.facilitator, [sweepSolIx(w, v, amount)]);
    return {
      toSeller: lamportsOf(w.svm, v.seller.address) - seller0,
      toFee: lamportsOf(w.svm, w.feeDestination.address) - fee0,
      fromStorage: storage0 - lamportsOf(w.svm, v.solStorage),
    };
  }

  it("sweeps everything of a new vault: 1% fee, recovery withheld up to the target, then provisioned", async () => {
    const v = await newVault(w);
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    const moved = await sweepAndMeasure(v, 0n);
    const split = expectedSplit(LAMPORTS_PER_SOL, false, MIN_FEE_LAMPORTS, PROVISIONING_FEE_LAMPORTS);
    expect(split).toEqual({ fee: 10_000_000n, withheld: 10_000_000n, payout: 980_000_000n });
    expect(moved).toEqual({ toSeller: split.payout, toFee: split.fee + split.withheld, fromStorage: LAMPORTS_PER_SOL });
    expect(lamportsOf(w.svm, v.solStorage)).toBe(w.rentZero);
    const vault = readVault(w, v);
    expect(vault.solRecoveredLamports).toBe(PROVISIONING_FEE_LAMPORTS);
    expect(vault.isProvisioned).toBe(true);

    // Provisioned: the next sweep withholds nothing.
    await transferSol(w.svm, buyer, v.solStorage, 2n * LAMPORTS_PER_SOL);
    const next = await sweepAndMeasure(v, 0n);
    expect(next).toEqual({ toSeller: 1_980_000_000n, toFee: 20_000_000n, fromStorage: 2n * LAMPORTS_PER_SOL });
  });

  it("recovers across several sweeps until the target is reached", async () => {
    const v = await newVault(w);
    await transferSol(w.svm, buyer, v.solStorage, 5_000_000n);
    const first = await sweepAndMeasure(v, 0n);
    // fee 50,000; the whole net (4,950,000) is withheld toward the 10,000,000 target.
    expect(first).toEqual({ toSeller: 0n, toFee: 5_000_000n, fromStorage: 5_000_000n });
    expect(readVault(w, v)).toMatchObject({ solRecoveredLamports: 4_950_000n, isProvisioned: false });

    await transferSol(w.svm, buyer, v.solStorage, 10_000_000n);
    const second = await sweepAndMeasure(v, 0n);
    const split = expectedSplit(10_000_000n, false, MIN_FEE_LAMPORTS, PROVISIONING_FEE_LAMPORTS - 4_950_000n);
    expect(split).toEqual({ fee: 100_000n, withheld: 5_050_000n, payout: 4_850_000n });
    expect(second).toEqual({ toSeller: split.payout, toFee: split.fee + split.withheld, fromStorage: 10_000_000n });
    expect(readVault(w, v)).toMatchObject({ solRecoveredLamports: PROVISIONING_FEE_LAMPORTS, isProvisioned: true });
  });

  it("charges the discounted rate and withholds nothing for a sovereign vault", async () => {
    const v = await newVault(w, true);
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    const moved = await sweepAndMeasure(v, 0n);
    expect(moved).toEqual({ toSeller: 991_000_000n, toFee: 9_000_000n, fromStorage: LAMPORTS_PER_SOL });
    expect(readVault(w, v).solRecoveredLamports).toBe(0n);
  });

  it("sweeps a partial amount and charges the minimum fee when the rate is below it", async () => {
    const v = await newVault(w, true);
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    const moved = await sweepAndMeasure(v, 500_000n);
    // 0.9% of 500,000 = 4,500 < the 10,000 minimum.
    expect(moved).toEqual({ toSeller: 490_000n, toFee: 10_000n, fromStorage: 500_000n });
  });

  it("fails with AmountBelowMinimumFee below the minimum fee", async () => {
    const v = await newVault(w, true);
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    const result = await send(w.svm, w.facilitator, [sweepSolIx(w, v, MIN_FEE_LAMPORTS - 1n)]);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.customCode).toBe(E.AmountBelowMinimumFee);
      expect(result.logs.join("\n")).toContain("below the minimum fee");
    }
  });

  it("fails when asked for more than the vault holds, or for everything of an empty vault", async () => {
    const v = await newVault(w);
    const empty = await send(w.svm, w.facilitator, [sweepSolIx(w, v, 0n)]);
    expect(empty.ok || empty.customCode).toBe(E.NothingToSweep);
    await transferSol(w.svm, buyer, v.solStorage, 1_000_000n);
    const tooMuch = await send(w.svm, w.facilitator, [sweepSolIx(w, v, 1_000_001n)]);
    expect(tooMuch.ok || tooMuch.customCode).toBe(E.InsufficientVaultBalance);
  });

  it("pays only the vault's seller and the Config's fee destination", async () => {
    const v = await newVault(w);
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    const thief = await fundedSigner(w.svm, 1n);
    const wrongSeller = await send(w.svm, w.facilitator, [withAccount(sweepSolIx(w, v, 0n), 4, thief.address)]);
    expect(wrongSeller.ok || wrongSeller.customCode).toBe(E.InvalidSellerAccount);
    const wrongFee = await send(w.svm, w.facilitator, [sweepSolIx(w, v, 0n, thief.address)]);
    expect(wrongFee.ok || wrongFee.customCode).toBe(E.InvalidFeeReceiver);
  });

  it("checks the SOL storage, config and vault accounts", async () => {
    const v = await newVault(w);
    const other = await newVault(w);
    await transferSol(w.svm, buyer, v.solStorage, LAMPORTS_PER_SOL);
    await transferSol(w.svm, buyer, other.solStorage, LAMPORTS_PER_SOL);
    const wrongStorage = await send(w.svm, w.facilitator, [withAccount(sweepSolIx(w, v, 0n), 3, other.solStorage)]);
    expect(wrongStorage.ok || wrongStorage.customCode).toBe(E.InvalidSolStorage);

    // A Config-shaped account that is not the Config PDA.
    const fakeConfig = (await generateKeyPairSigner()).address;
    placeAccount(w.svm, fakeConfig, PROGRAM_ID, dataOf(w.svm, w.config));
    const wrongConfig = await send(w.svm, w.facilitator, [withAccount(sweepSolIx(w, v, 0n), 2, fakeConfig)]);
    expect(wrongConfig.ok || wrongConfig.customCode).toBe(E.InvalidConfig);

    // A vault-shaped account that is not the vault PDA of its seller.
    const fakeVault = (await generateKeyPairSigner()).address;
    placeAccount(w.svm, fakeVault, PROGRAM_ID, dataOf(w.svm, v.vault));
    const wrongVault = await send(w.svm, w.facilitator, [withAccount(sweepSolIx(w, v, 0n), 1, fakeVault)]);
    expect(wrongVault.ok || wrongVault.customCode).toBe(E.InvalidVaultAddress);

    const readonlyVault = await send(w.svm, w.facilitator, [
      withAccountRole(sweepSolIx(w, v, 0n), 1, AccountRole.READONLY),
    ]);
    expect(readonlyVault.ok || readonlyVault.customCode).toBe(E.AccountNotWritable);

    const unsigned = await send(w.svm, buyer, [withAccountRole(sweepSolIx(w, v, 0n), 0, AccountRole.WRITABLE)]);
    expect(unsigned.ok || unsigned.customCode).toBe(E.MissingSignature);
  });

  it("pays the seller's fee shard SOL storage when sharding is on", async () => {
    const sharded = await newWorld();
    const shardCount = 4;
    await placeConfig(sharded.svm, sharded.feeDestination.address, { useFeeShard: true, shardCount });
    const v = await newVault(sharded, true);
    const shardBuyer = await fundedSigner(sharded.svm);
    await transferSol(sharded.svm, shardBuyer, v.solStorage, LAMPORTS_PER_SOL);
    const [shard] = await findFeeShardPda(PROGRAM_ID, feeShardIndexOf(v.seller.address, shardCount));
    const [shardSol] = await findFeeShardSolStoragePda(PROGRAM_ID, shard);
    const toDestination = await send(sharded.svm, sharded.facilitator, [sweepSolIx(sharded, v, 0n)]);
    expect(toDestination.ok || toDestination.customCode).toBe(E.InvalidFeeReceiver);
    await sendOk(sharded.svm, sharded.facilitator, [sweepSolIx(sharded, v, 0n, shardSol)]);
    expect(lamportsOf(sharded.svm, shardSol)).toBe(9_000_000n);
  });
});

describe("UniversalSettle stand-in: Sweep SPL", () => {
  let w: World;
  let usdc: TestMint;
  beforeEach(async () => {
    w = await newWorld();
    usdc = await createMint(w.svm, await fundedSigner(w.svm), 6);
  });

  interface SplVault extends Vault {
    vaultAta: Address;
    sellerAta: Address;
    feeAta: Address;
  }

  async function newSplVault(mint: TestMint, sovereign: boolean, deposit: bigint): Promise<SplVault> {
    const v = await newVault(w, sovereign);
    const vaultAta = await createAta(w.svm, mint, v.vault);
    const sellerAta = await createAta(w.svm, mint, v.seller.address);
    const feeAta = await createAta(w.svm, mint, w.feeDestination.address);
    if (deposit > 0n) await mintTo(w.svm, mint, vaultAta, deposit);
    return { ...v, vaultAta, sellerAta, feeAta };
  }

  function sweepSplIx(v: SplVault, amount: bigint, mint: TestMint = usdc) {
    return getSweepInstruction({
      kind: "spl",
      programId: PROGRAM_ID,
      payer: w.facilitator,
      vault: v.vault,
      config: w.config,
      amount,
      vaultAta: v.vaultAta,
      sellerAta: v.sellerAta,
      feeReceiverAta: v.feeAta,
      mint: mint.mint,
      tokenProgram: mint.tokenProgram,
    });
  }

  it("splits a sweep of a facilitator-provisioned vault: fee, recovery, payout", async () => {
    const v = await newSplVault(usdc, false, 5_000_000n);
    await sendOk(w.svm, w.facilitator, [sweepSplIx(v, 0n)]);
    const split = expectedSplit(5_000_000n, false, MIN_FEE_RAW, PROVISIONING_FEE_RAW);
    expect(split).toEqual({ fee: 50_000n, withheld: 1_000_000n, payout: 3_950_000n });
    expect(tokenBalance(w.svm, v.sellerAta)).toBe(split.payout);
    expect(tokenBalance(w.svm, v.feeAta)).toBe(split.fee + split.withheld);
    expect(tokenBalance(w.svm, v.vaultAta)).toBe(0n);
    // Reaching the SPL target provisions the vault: later SOL sweeps withhold nothing either.
    expect(readVault(w, v)).toMatchObject({ splRecoveredRaw: PROVISIONING_FEE_RAW, isProvisioned: true });
  });

  it("charges a sovereign vault the discounted rate", async () => {
    const v = await newSplVault(usdc, true, 5_000_000n);
    await sendOk(w.svm, w.facilitator, [sweepSplIx(v, 0n)]);
    expect(tokenBalance(w.svm, v.sellerAta)).toBe(4_955_000n);
    expect(tokenBalance(w.svm, v.feeAta)).toBe(45_000n);
  });

  it("works with a Token-2022 mint", async () => {
    const mint22 = await createMint(w.svm, usdc.authority, 6, TOKEN_2022_PROGRAM_ADDRESS);
    const v = await newSplVault(mint22, true, 2_000_000n);
    await sendOk(w.svm, w.facilitator, [sweepSplIx(v, 1_000_000n, mint22)]);
    expect(tokenBalance(w.svm, v.sellerAta)).toBe(990_000n);
    expect(tokenBalance(w.svm, v.feeAta)).toBe(10_000n);
    expect(tokenBalance(w.svm, v.vaultAta)).toBe(1_000_000n);
  });

  it("fails below the minimum fee", async () => {
    const v = await newSplVault(usdc, true, 5_000_000n);
    const result = await send(w.svm, w.facilitator, [sweepSplIx(v, MIN_FEE_RAW - 1n)]);
    expect(result.ok || result.customCode).toBe(E.AmountBelowMinimumFee);
  });

  it("refuses token accounts that do not belong to the seller, the fee destination or the vault", async () => {
    const v = await newSplVault(usdc, false, 5_000_000n);
    const stranger = await generateKeyPairSigner();
    const strangerAta = await createAta(w.svm, usdc, stranger.address);
    const seller = await send(w.svm, w.facilitator, [withAccount(sweepSplIx(v, 0n), 4, strangerAta)]);
    expect(seller.ok || seller.customCode).toBe(E.InvalidSellerAccount);
    const fee = await send(w.svm, w.facilitator, [withAccount(sweepSplIx(v, 0n), 5, strangerAta)]);
    expect(fee.ok || fee.customCode).toBe(E.InvalidFeeReceiver);
    await mintTo(w.svm, usdc, strangerAta, 5_000_000n);
    const source = await send(w.svm, w.facilitator, [withAccount(sweepSplIx(v, 0n), 3, strangerAta)]);
    expect(source.ok || source.customCode).toBe(E.InvalidVaultTokenAccount);
  });

  it("checks the mint and the token program", async () => {
    const v = await newSplVault(usdc, false, 5_000_000n);
    const otherMint = await createMint(w.svm, usdc.authority, 6);
    const mintMismatch = await send(w.svm, w.facilitator, [withAccount(sweepSplIx(v, 0n), 6, otherMint.mint)]);
    expect(mintMismatch.ok || mintMismatch.customCode).toBe(E.InvalidMint);
    const badProgram = await send(w.svm, w.facilitator, [withAccount(sweepSplIx(v, 0n), 7, PROGRAM_ID)]);
    expect(badProgram.ok || badProgram.customCode).toBe(E.InvalidTokenProgram);
  });
});
