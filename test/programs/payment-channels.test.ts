/**
 * The payment-channels stand-in (localnet/programs/payment-channels) executing real transactions
 * in litesvm at the real program id: the upto lifecycle with balances to the unit, the refusals
 * with the real program's error codes, the payer's exit after the grace period, and the
 * Ed25519 precompile really verifying voucher signatures.
 */
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { PAYMENT_CHANNELS_ERROR } from "../../localnet/programs/errors";
import { CHANNEL_STATUS } from "../../src/rails/upto/program/accounts";
import { encodeDistributionPreimage } from "../../src/rails/upto/program/instructions";
import { advanceTime, lamportsOf, send, sendOk, tokenBalance, unixTime } from "./harness";
import {
  BUYER_INITIAL_TOKENS,
  type ChannelWorld,
  channelState,
  createChannelWorld,
  distributeInstruction,
  openInstruction,
  reclaimInstruction,
  requestCloseInstruction,
  sealInstruction,
  settleAndSealInstruction,
  settleInstruction,
  voucherInstruction,
  withdrawPayerInstruction,
} from "./payment-channels-world";

/** agave's PrecompileError::InvalidSignature, reported as InstructionError(index, Custom(2)). */
const PRECOMPILE_INVALID_SIGNATURE = 2;

/** The official upto open transaction's default compute-unit limit (@x402/svm OPEN_DEFAULT_COMPUTE_UNIT_LIMIT). */
const OFFICIAL_OPEN_COMPUTE_UNIT_LIMIT = 90_000n;

async function openedWorld(deposit = 1_000_000n, gracePeriod = 900) {
  const w = await createChannelWorld();
  const { instruction, opened } = await openInstruction(w, { deposit, gracePeriod });
  const result = await send(w.svm, w.facilitator, [instruction]);
  if (!result.ok) throw new Error(`open failed: ${result.error}\n${result.logs.join("\n")}`);
  return { w, opened, openComputeUnits: result.computeUnits };
}

function expectCode(result: Awaited<ReturnType<typeof send>>, code: number, instructionIndex?: number): void {
  expect(result.ok, result.ok ? "transaction succeeded" : result.logs.join("\n")).toBe(false);
  if (result.ok) return;
  expect(result.customCode, `${result.error}\n${result.logs.join("\n")}`).toBe(code);
  if (instructionIndex !== undefined) expect(result.instructionIndex).toBe(instructionIndex);
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)));
}

describe("payment-channels stand-in: open", () => {
  it("creates the channel at its PDA with the deposit escrowed, within the official open's compute limit", async () => {
    const { w, opened, openComputeUnits } = await openedWorld(1_000_000n, 600);
    const channel = channelState(w, opened.channel);
    expect(channel).toMatchObject({
      version: 1,
      status: CHANNEL_STATUS.OPEN,
      salt: opened.salt,
      deposit: 1_000_000n,
      settled: 0n,
      payoutWatermark: 0n,
      closureStartedAt: 0n,
      payerWithdrawnAt: 0n,
      gracePeriod: 600,
      payer: w.buyer.address,
      payee: w.facilitator.address,
      authorizedSigner: w.authorizer.address,
      mint: w.mint.mint,
      rentPayer: w.facilitator.address,
      openSlot: opened.openSlot,
    });
    const preimage = encodeDistributionPreimage([{ recipient: w.seller.address, bps: 10_000 }]);
    expect([...channel.distributionHash]).toEqual([...(await sha256(new Uint8Array(preimage)))]);
    expect(tokenBalance(w.svm, opened.channelAta)).toBe(1_000_000n);
    expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - 1_000_000n);
    expect(openComputeUnits).toBeLessThan(OFFICIAL_OPEN_COMPUTE_UNIT_LIMIT);
  });

  it("refuses a zero deposit, a zero grace period, a future open slot and payer = payee", async () => {
    const w = await createChannelWorld();
    const zeroDeposit = await openInstruction(w, { deposit: 0n });
    expectCode(
      await send(w.svm, w.facilitator, [zeroDeposit.instruction]),
      PAYMENT_CHANNELS_ERROR.DepositMustBeNonZero,
    );
    const zeroGrace = await openInstruction(w, { deposit: 1n, gracePeriod: 0 });
    expectCode(
      await send(w.svm, w.facilitator, [zeroGrace.instruction]),
      PAYMENT_CHANNELS_ERROR.GracePeriodMustBeNonZero,
    );
    const future = await openInstruction(w, { deposit: 1n, openSlot: w.svm.getClock().slot + 1n });
    expectCode(await send(w.svm, w.facilitator, [future.instruction]), PAYMENT_CHANNELS_ERROR.OpenSlotOutOfWindow);
    w.svm.warpToSlot(3_000n);
    const stale = await openInstruction(w, { deposit: 1n, openSlot: 1_499n });
    expectCode(await send(w.svm, w.facilitator, [stale.instruction]), PAYMENT_CHANNELS_ERROR.OpenSlotOutOfWindow);
  });
});

describe("payment-channels stand-in: the upto claim (settle-and-seal with a voucher, then distribute)", () => {
  it("pays the seller the voucher amount and returns the rest to the buyer, to the unit", async () => {
    const { w, opened } = await openedWorld(1_000_000n);
    const facilitatorLamportsBefore = lamportsOf(w.svm, w.facilitator.address);
    const channelAtaRent = lamportsOf(w.svm, opened.channelAta);

    await sendOk(w.svm, w.facilitator, [
      await voucherInstruction(opened.channel, 412_345n, w.authorizer),
      settleAndSealInstruction(w, opened.channel, true),
      distributeInstruction(w, opened),
    ]);

    expect(tokenBalance(w.svm, w.sellerAta)).toBe(412_345n);
    expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - 412_345n);
    expect(tokenBalance(w.svm, w.treasuryAta)).toBe(0n);
    expect(w.svm.getAccount(opened.channelAta).exists).toBe(false); // escrow ATA closed
    const channel = channelState(w, opened.channel);
    expect(channel.status).toBe(CHANNEL_STATUS.DISTRIBUTED); // inside the slot window: kept until Reclaim
    expect(channel.settled).toBe(412_345n);
    // The escrow ATA's rent went back to the rent payer. The fee is 5,000 lamports per signature,
    // and the Ed25519 precompile's signature counts: 2 × 5,000.
    expect(lamportsOf(w.svm, w.facilitator.address)).toBe(facilitatorLamportsBefore + channelAtaRent - 10_000n);
  });

  it("seals without a voucher (the zero-amount cancel): everything back to the buyer", async () => {
    const { w, opened } = await openedWorld(250_000n);
    await sendOk(w.svm, w.facilitator, [
      settleAndSealInstruction(w, opened.channel, false),
      distributeInstruction(w, opened),
    ]);
    expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS);
    expect(tokenBalance(w.svm, w.sellerAta)).toBe(0n);
  });

  it("refuses a voucher signed by another key (VoucherSignerMismatch)", async () => {
    const { w, opened } = await openedWorld();
    const stranger = await generateKeyPairSigner();
    const result = await send(w.svm, w.facilitator, [
      await voucherInstruction(opened.channel, 100n, stranger),
      settleAndSealInstruction(w, opened.channel, true),
    ]);
    expectCode(result, PAYMENT_CHANNELS_ERROR.VoucherSignerMismatch, 1);
    expect(channelState(w, opened.channel).status).toBe(CHANNEL_STATUS.OPEN);
  });

  it("the Ed25519 precompile fails the transaction when the signature is not the claimed signer's", async () => {
    const { w, opened } = await openedWorld();
    const stranger = await generateKeyPairSigner();
    const result = await send(w.svm, w.facilitator, [
      await voucherInstruction(opened.channel, 100n, stranger, { claimedSigner: w.authorizer.address }),
      settleAndSealInstruction(w, opened.channel, true),
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.instructionIndex).toBe(0); // the precompile itself, before the program runs
    expect(result.customCode).toBe(PRECOMPILE_INVALID_SIGNATURE);
    expect(channelState(w, opened.channel)).toMatchObject({ status: CHANNEL_STATUS.OPEN, settled: 0n });
  });

  it("refuses a voucher above the deposit (VoucherOverDeposit)", async () => {
    const { w, opened } = await openedWorld(1_000_000n);
    const result = await send(w.svm, w.facilitator, [
      await voucherInstruction(opened.channel, 1_000_001n, w.authorizer),
      settleAndSealInstruction(w, opened.channel, true),
    ]);
    expectCode(result, PAYMENT_CHANNELS_ERROR.VoucherOverDeposit, 1);
  });

  it(
    "refuses a replayed claim: the sealed channel (InvalidChannelStatus) and a non-increasing voucher " +
      "(VoucherWatermarkNotMonotonic)",
    async () => {
      const { w, opened } = await openedWorld(1_000_000n);
      const claim = [
        await voucherInstruction(opened.channel, 300_000n, w.authorizer),
        settleAndSealInstruction(w, opened.channel, true),
      ];
      await sendOk(w.svm, w.facilitator, claim);
      expectCode(await send(w.svm, w.facilitator, claim), PAYMENT_CHANNELS_ERROR.InvalidChannelStatus, 1);

      const second = await openedWorld(1_000_000n);
      const settle = [
        await voucherInstruction(second.opened.channel, 300_000n, second.w.authorizer),
        settleInstruction(second.opened.channel),
      ];
      await sendOk(second.w.svm, second.w.facilitator, settle);
      expectCode(
        await send(second.w.svm, second.w.facilitator, settle),
        PAYMENT_CHANNELS_ERROR.VoucherWatermarkNotMonotonic,
        1,
      );
      expect(channelState(second.w, second.opened.channel).settled).toBe(300_000n);
    },
  );

  it(
    "refuses a voucher for another channel, an expired one, and a settle without the Ed25519 " + "instruction",
    async () => {
      const { w, opened } = await openedWorld(1_000_000n);
      const other = await openInstruction(w, { deposit: 1n, salt: 99n });
      expectCode(
        await send(w.svm, w.facilitator, [
          await voucherInstruction(other.opened.channel, 10n, w.authorizer),
          settleAndSealInstruction(w, opened.channel, true),
        ]),
        PAYMENT_CHANNELS_ERROR.VoucherChannelMismatch,
      );
      expectCode(
        await send(w.svm, w.facilitator, [
          await voucherInstruction(opened.channel, 10n, w.authorizer, { expiresAt: unixTime(w.svm) }),
          settleAndSealInstruction(w, opened.channel, true),
        ]),
        PAYMENT_CHANNELS_ERROR.VoucherExpired,
      );
      expectCode(
        await send(w.svm, w.facilitator, [settleAndSealInstruction(w, opened.channel, true)]),
        PAYMENT_CHANNELS_ERROR.MissingEd25519Verification,
      );
    },
  );

  it("only the payee may seal (MissingRequiredSignature / InvalidChannelPayee)", async () => {
    const { w, opened } = await openedWorld();
    const impostor = { ...w, facilitator: w.buyer } satisfies ChannelWorld;
    expectCode(
      await send(w.svm, w.buyer, [settleAndSealInstruction(impostor, opened.channel, false)]),
      PAYMENT_CHANNELS_ERROR.InvalidChannelPayee,
    );
  });
});

describe("payment-channels stand-in: the buyer's exit after the grace period", () => {
  it("refuses an early withdrawal, then refunds deposit − settled once the grace period has passed", async () => {
    const grace = 600;
    const { w, opened } = await openedWorld(1_000_000n, grace);
    // The facilitator settled 150,000 while the channel was open.
    await sendOk(w.svm, w.facilitator, [
      await voucherInstruction(opened.channel, 150_000n, w.authorizer),
      settleInstruction(opened.channel),
    ]);

    expectCode(
      await send(w.svm, w.buyer, [withdrawPayerInstruction(w, opened)]),
      PAYMENT_CHANNELS_ERROR.InvalidChannelStatus,
    );
    await sendOk(w.svm, w.buyer, [requestCloseInstruction(w, opened.channel)]);
    expect(channelState(w, opened.channel)).toMatchObject({
      status: CHANNEL_STATUS.CLOSING,
      closureStartedAt: unixTime(w.svm),
    });
    expectCode(
      await send(w.svm, w.buyer, [withdrawPayerInstruction(w, opened)]),
      PAYMENT_CHANNELS_ERROR.InvalidChannelStatus,
    );
    advanceTime(w.svm, BigInt(grace - 1));
    expectCode(
      await send(w.svm, w.buyer, [sealInstruction(opened.channel)]),
      PAYMENT_CHANNELS_ERROR.SealGracePeriodNotElapsed,
    );

    advanceTime(w.svm, 1n);
    // The payee can no longer seal cooperatively once the grace period is over.
    expectCode(
      await send(w.svm, w.facilitator, [settleAndSealInstruction(w, opened.channel, false)]),
      PAYMENT_CHANNELS_ERROR.InvalidChannelStatus,
    );
    await sendOk(w.svm, w.buyer, [sealInstruction(opened.channel)]); // permissionless
    await sendOk(w.svm, w.buyer, [withdrawPayerInstruction(w, opened)]);
    expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - 150_000n);
    expect(tokenBalance(w.svm, opened.channelAta)).toBe(150_000n);
    expect(channelState(w, opened.channel).payerWithdrawnAt).toBe(unixTime(w.svm));
    expectCode(
      await send(w.svm, w.buyer, [withdrawPayerInstruction(w, opened)]),
      PAYMENT_CHANNELS_ERROR.PayerAlreadyWithdrawn,
    );

    // Distribute pays the seller what was settled and does not refund the buyer twice.
    await sendOk(w.svm, w.facilitator, [distributeInstruction(w, opened)]);
    expect(tokenBalance(w.svm, w.sellerAta)).toBe(150_000n);
    expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - 150_000n);
    expect(channelState(w, opened.channel).status).toBe(CHANNEL_STATUS.DISTRIBUTED);
  });

  it("reclaims the channel's rent for the rent payer only after the slot window", async () => {
    const { w, opened } = await openedWorld(10_000n);
    await sendOk(w.svm, w.facilitator, [
      settleAndSealInstruction(w, opened.channel, false),
      distributeInstruction(w, opened),
    ]);
    expectCode(
      await send(w.svm, w.facilitator, [reclaimInstruction(w, opened.channel)]),
      PAYMENT_CHANNELS_ERROR.ChannelCloseTooEarly,
    );

    w.svm.warpToSlot(opened.openSlot + 1_501n);
    const channelRent = lamportsOf(w.svm, opened.channel);
    const before = lamportsOf(w.svm, w.facilitator.address);
    await sendOk(w.svm, w.facilitator, [reclaimInstruction(w, opened.channel)]);
    expect(w.svm.getAccount(opened.channel).exists).toBe(false);
    expect(lamportsOf(w.svm, w.facilitator.address)).toBe(before + channelRent - 5_000n);
  });

  it("after the slot window, the sealed distribute closes the channel itself", async () => {
    const { w, opened } = await openedWorld(10_000n);
    w.svm.warpToSlot(opened.openSlot + 1_501n);
    await sendOk(w.svm, w.facilitator, [
      await voucherInstruction(opened.channel, 1n, w.authorizer),
      settleAndSealInstruction(w, opened.channel, true),
      distributeInstruction(w, opened),
    ]);
    expect(w.svm.getAccount(opened.channel).exists).toBe(false);
    expect(tokenBalance(w.svm, w.sellerAta)).toBe(1n);
    expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - 1n);
  });
});
