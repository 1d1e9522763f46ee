/**
 * The Swig stand-in (localnet/programs/swig/swig.c) runs what the official @swig-wallet/kit SDK builds: CreateV1 of a
 * wallet with one Ed25519 role, then SignV2 of a token transfer out of the wallet's token account, signed by the swig
 * wallet address through CPI into SPL Token, in a transaction another key pays for (as the facilitator will).
 */
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { createSwigInstruction, swigTransferInstructions } from "../support/smart-wallets/swig";
import {
  AccountRole,
  createAta,
  createMint,
  createStandInChain,
  dataOf,
  fundedSigner,
  lamportsOf,
  mintTo,
  ownerOf,
  send,
  sendOk,
  tokenBalance,
  withAccountRole,
} from "./harness";

const SWIG_PROGRAM = "swigypWHEksbC64pWKwah1WTeh9JXwx8H1rJHLdbQMB";

async function swigWorld() {
  const svm = createStandInChain();
  const feePayer = await fundedSigner(svm);
  const owner = await fundedSigner(svm);
  const { instruction, wallet } = await createSwigInstruction(owner.address, owner.address);
  await sendOk(svm, owner, [instruction]);
  const mint = await createMint(svm, feePayer, 6);
  const source = await createAta(svm, mint, wallet.walletAddress);
  await mintTo(svm, mint, source, 5_000_000n);
  const seller = await generateKeyPairSigner();
  const destination = await createAta(svm, mint, seller.address);
  return { svm, feePayer, owner, wallet, mint, source, destination };
}

describe("Swig stand-in", () => {
  it("creates the wallet the SDK asks for, readable with the SDK's own codec", async () => {
    const { svm, owner, wallet } = await swigWorld();
    expect(ownerOf(svm, wallet.swig)).toBe(SWIG_PROGRAM);
    const swig = wallet.load(dataOf(svm, wallet.swig));
    expect(swig.accountVersion()).toBe("v2");
    const [role] = swig.roles;
    expect(role?.id).toBe(0);
    expect(role?.actions.isRoot()).toBe(true);
    expect(swig.findRolesByEd25519SignerPk(owner.address as never).map((r) => r.id)).toEqual([0]);
    // The funds' owner: a System account holding its rent-exempt minimum.
    expect(ownerOf(svm, wallet.walletAddress)).toBe("11111111111111111111111111111111");
    expect(lamportsOf(svm, wallet.walletAddress)).toBe(svm.minimumBalanceForRentExemption(0n));
  });

  it("moves tokens out of the wallet by the SDK's SignV2, in a transaction another key pays for", async () => {
    const { svm, feePayer, owner, wallet, mint, source, destination } = await swigWorld();
    const swig = wallet.load(dataOf(svm, wallet.swig));
    const instructions = await swigTransferInstructions(swig, owner, {
      source,
      mint: mint.mint,
      destination,
      amount: 1_250_000n,
      decimals: 6,
    });
    const ownerLamports = lamportsOf(svm, owner.address);
    const result = await send(svm, feePayer, instructions);
    expect(result.ok, result.ok ? "" : result.logs.join("\n")).toBe(true);
    expect(tokenBalance(svm, source)).toBe(3_750_000n);
    expect(tokenBalance(svm, destination)).toBe(1_250_000n);
    expect(lamportsOf(svm, owner.address)).toBe(ownerLamports);
  });

  it("refuses a SignV2 the role's key did not sign, and one naming another key as the role's", async () => {
    const { svm, feePayer, owner, wallet, mint, source, destination } = await swigWorld();
    const swig = wallet.load(dataOf(svm, wallet.swig));
    const transfer = { source, mint: mint.mint, destination, amount: 1n, decimals: 6 };
    const [signV2] = await swigTransferInstructions(swig, owner, transfer);
    const authorityIndex = signV2!.accounts!.findIndex((meta) => meta.address === owner.address);
    const unsigned = await send(svm, feePayer, [withAccountRole(signV2!, authorityIndex, AccountRole.READONLY)]);
    expect(unsigned.ok ? null : unsigned.customCode).toBe(9009);
    const stranger = await fundedSigner(svm);
    const forged = await swigTransferInstructions(swig, stranger, transfer);
    const withStranger = forged.map((ix) => ({
      ...ix,
      accounts: ix.accounts?.map((meta) =>
        meta.address === owner.address ? { ...meta, address: stranger.address, signer: stranger } : meta,
      ),
    }));
    const refused = await send(svm, feePayer, withStranger as never);
    expect(refused.ok ? null : refused.customCode).toBe(9009);
    expect(tokenBalance(svm, destination)).toBe(0n);
  });
});
