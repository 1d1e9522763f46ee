/**
 * Our payment-channels client (src/chain/program/payment-channels) against the official @x402/svm 2.27
 * upto code, byte for byte: every instruction the official client, server and facilitator build is
 * compared with ours (data and account metas), decoded with our codecs, and then executed for real
 * against the stand-in in litesvm: the official open transaction, the official claim
 * (Ed25519 voucher + settle-and-seal + distribute) and the official reclaim.
 */
import {
  type AccountRole,
  type Address,
  decompileTransactionMessage,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
  partiallySignTransaction,
  signBytes,
} from "@solana/kit";
import { FailedTransactionMetadata } from "litesvm";
import { beforeAll, describe, expect, it } from "vitest";
import { ProgramDataError } from "../../src/chain/program/program-data-error";
import { CLUSTERS } from "../../src/platform/config/networks";
import { CHANNEL_STATUS, decodeChannel, getChannelEncoder } from "../../src/rails/upto/program/accounts";
import {
  getDistributeInstructionDataCodec,
  getOpenInstructionDataCodec,
  getReclaimInstruction,
  getSettleAndSealInstructionDataCodec,
} from "../../src/rails/upto/program/instructions";
import {
  findChannelPda,
  findEventAuthorityPda,
  PAYMENT_CHANNELS_PROGRAM_ADDRESS,
} from "../../src/rails/upto/program/pda";
import {
  decodeVoucherMessage,
  encodeVoucherMessage,
  getEd25519VoucherInstruction,
} from "../../src/rails/upto/program/voucher";
import { dataOf, lamportsOf, sendOk, tokenBalance } from "./harness";
import { loadOfficialPaymentChannels, type OfficialPaymentChannels } from "./official-payment-channels";
import {
  BUYER_INITIAL_TOKENS,
  type ChannelWorld,
  createChannelWorld,
  distributeInstruction,
  openInstruction,
  settleAndSealInstruction,
  splitsOf,
} from "./payment-channels-world";

const DEVNET = CLUSTERS.devnet.network;
let official: OfficialPaymentChannels;

beforeAll(async () => {
  official = await loadOfficialPaymentChannels();
});

function metas(instruction: Instruction): { address: Address; role: AccountRole }[] {
  return (instruction.accounts ?? []).map(({ address, role }) => ({ address, role }));
}

function bytes(instruction: Instruction): number[] {
  return [...(instruction.data ?? new Uint8Array())];
}

/** The official open transaction (buyer-signed), as the official upto client builds it. */
async function officialOpen(w: ChannelWorld, deposit: bigint) {
  return official.buildOpenPaymentChannelTransaction({
    payer: w.buyer,
    payee: w.facilitator.address,
    mint: w.mint.mint,
    authorizedSigner: w.authorizer.address,
    feePayer: w.facilitator.address,
    tokenProgram: w.mint.tokenProgram,
    openSlot: w.svm.getClock().slot,
    gracePeriod: official.DEFAULT_GRACE_PERIOD_SECONDS,
    deposit,
    recipients: splitsOf(w),
    blockhash: { blockhash: w.svm.latestBlockhash(), lastValidBlockHeight: 0n },
  });
}

/** The official open's payment-channels instruction, decompiled from the wire transaction. */
function openInstructionOf(wire: string): { data: Uint8Array; accounts: Address[] } {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
  const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes));
  const found = message.instructions.find((ix) => ix.programAddress === PAYMENT_CHANNELS_PROGRAM_ADDRESS);
  if (found === undefined) throw new Error("no payment-channels instruction in the official open");
  return { data: new Uint8Array(found.data ?? []), accounts: (found.accounts ?? []).map((meta) => meta.address) };
}

describe("our payment-channels codecs = the official @x402/svm upto codecs", () => {
  it("voucher message: same 50 bytes both ways", async () => {
    const w = await createChannelWorld();
    const { opened } = await openInstruction(w, { deposit: 1n });
    const voucher = { channelId: opened.channel, cumulativeAmount: 0x0011_2233_4455_6677n, expiresAt: 1_900_000_000n };
    const theirs = official.encodeVoucherMessageBytes(voucher);
    expect([...encodeVoucherMessage(voucher)]).toEqual([...theirs]);
    expect(decodeVoucherMessage(theirs)).toEqual(voucher);
  });

  it("channel PDA and event authority", async () => {
    const w = await createChannelWorld();
    const seeds = {
      payer: w.buyer.address,
      payee: w.facilitator.address,
      mint: w.mint.mint,
      authorizedSigner: w.authorizer.address,
      salt: 0xfedc_ba98_7654_3210n,
      openSlot: 123_456n,
    };
    const [ours] = await findChannelPda(seeds);
    expect(ours).toBe(await official.findPaymentChannelPda(seeds));
    const [eventAuthority] = await findEventAuthorityPda();
    expect(eventAuthority).toBe("75c2huVzDW1Eq4kD86by5392sjdJzuAT195XNgP2f2tX"); // the stand-in's hard-coded PDA
  });

  it("open: the official client's instruction data and accounts equal ours, and decode with our codec", async () => {
    const w = await createChannelWorld();
    const open = await officialOpen(w, 2_500_000n);
    const theirs = openInstructionOf(open.transaction);
    const decoded = getOpenInstructionDataCodec().decode(theirs.data);
    expect(decoded).toEqual({
      salt: open.salt,
      deposit: 2_500_000n,
      gracePeriod: official.DEFAULT_GRACE_PERIOD_SECONDS,
      openSlot: open.openSlot,
      recipients: splitsOf(w),
    });
    const ours = await openInstruction(w, {
      deposit: 2_500_000n,
      salt: open.salt,
      openSlot: open.openSlot,
      gracePeriod: decoded.gracePeriod,
    });
    expect(bytes(ours.instruction)).toEqual([...theirs.data]);
    expect(metas(ours.instruction).map((meta) => meta.address)).toEqual(theirs.accounts);
    expect(ours.opened.channel).toBe(open.channelId);
  });

  it("settle-and-seal with its Ed25519 voucher instruction", async () => {
    const w = await createChannelWorld();
    const { opened } = await openInstruction(w, { deposit: 1_000n });
    const voucher = { channelId: opened.channel, cumulativeAmount: 777n, expiresAt: 0n };
    const signatureBase58 = await official.signVoucher(w.authorizer, voucher);
    const [theirEd25519, theirSettle] = official.buildSettleAndSealInstructions({
      channelId: opened.channel,
      payeeSigner: w.facilitator,
      voucher: { ...voucher, authorizedSigner: w.authorizer.address, signatureBase58 },
    });
    const ourEd25519 = getEd25519VoucherInstruction({
      signer: w.authorizer.address,
      signature: getBase58Encoder().encode(signatureBase58),
      message: encodeVoucherMessage(voucher),
    });
    expect(theirEd25519!.programAddress).toBe(ourEd25519.programAddress);
    expect(bytes(ourEd25519)).toEqual(bytes(theirEd25519!));
    const ourSettle = settleAndSealInstruction(w, opened.channel, true);
    expect(bytes(ourSettle)).toEqual(bytes(theirSettle!));
    expect(metas(ourSettle)).toEqual(metas(theirSettle!));
    expect(getSettleAndSealInstructionDataCodec().decode(theirSettle!.data!)).toEqual({ hasVoucher: 1 });

    const [cancel] = official.buildSettleAndSealInstructions({ channelId: opened.channel, payeeSigner: w.facilitator });
    expect(bytes(settleAndSealInstruction(w, opened.channel, false))).toEqual(bytes(cancel!));
  });

  it("distribute (devnet treasury) and reclaim", async () => {
    const w = await createChannelWorld();
    const { opened } = await openInstruction(w, { deposit: 1_000n });
    const theirs = await official.buildDistributeInstruction({
      channelId: opened.channel,
      mint: w.mint.mint,
      network: DEVNET,
      payee: w.facilitator.address,
      payer: w.buyer.address,
      rentPayer: w.facilitator.address,
      splits: splitsOf(w),
      tokenProgram: w.mint.tokenProgram,
    });
    const ours = distributeInstruction(w, opened);
    expect(bytes(ours)).toEqual(bytes(theirs));
    expect(metas(ours)).toEqual(metas(theirs));
    expect(getDistributeInstructionDataCodec().decode(theirs.data!)).toEqual({ recipients: splitsOf(w) });

    const theirReclaim = official.buildReclaimInstruction({
      channelId: opened.channel,
      rentPayer: w.facilitator.address,
    });
    const ourReclaim = getReclaimInstruction({
      programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS,
      channel: opened.channel,
      rentPayer: w.facilitator.address,
    });
    expect(bytes(ourReclaim)).toEqual(bytes(theirReclaim));
    expect(metas(ourReclaim)).toEqual(metas(theirReclaim));
  });

  it("our instruction-data decoders refuse another discriminator, a short body and trailing bytes", async () => {
    const w = await createChannelWorld();
    const codec = getDistributeInstructionDataCodec();
    const good = new Uint8Array(codec.encode({ recipients: splitsOf(w) }));
    expect(codec.decode(good)).toEqual({ recipients: splitsOf(w) });
    expect(() => codec.decode(Uint8Array.of(1, ...good.slice(1)))).toThrow(ProgramDataError);
    expect(codec.safeDecode(good.slice(0, good.length - 1))).toBeNull();
    expect(codec.safeDecode(Uint8Array.of(...good, 0))).toBeNull();
    expect(getSettleAndSealInstructionDataCodec().safeDecode(Uint8Array.of(4))).toBeNull();
  });

  it("our decoder reads the channel the stand-in writes, and our encoder writes the same 256 bytes back", async () => {
    const w = await createChannelWorld();
    const { instruction, opened } = await openInstruction(w, { deposit: 5n });
    await sendOk(w.svm, w.facilitator, [instruction]);
    const onChain = dataOf(w.svm, opened.channel);
    const channel = decodeChannel(onChain)!;
    expect([...getChannelEncoder().encode(channel)]).toEqual([...onChain]);
    expect(decodeChannel(new Uint8Array(256))).toBeNull();
    expect(decodeChannel(onChain.slice(0, 255))).toBeNull();
  });
});

describe("the official upto transactions executed against the stand-in", () => {
  it(
    "official open (buyer-signed, facilitator co-signs) → official claim → balances to the unit → official " +
      "reclaim",
    async () => {
      const w = await createChannelWorld();
      const deposit = 3_000_000n;
      const open = await officialOpen(w, deposit);
      const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(open.transaction));
      const signed = await partiallySignTransaction([w.facilitator.keyPair], transaction);
      const result = w.svm.sendTransaction(signed as never);
      if (result instanceof FailedTransactionMetadata)
        throw new Error(`official open failed: ${String(result.err())}\n${result.meta().logs().join("\n")}`);
      w.svm.expireBlockhash();
      const channel = decodeChannel(dataOf(w.svm, open.channelId as Address))!;
      expect(channel).toMatchObject({
        status: CHANNEL_STATUS.OPEN,
        deposit,
        payer: w.buyer.address,
        payee: w.facilitator.address,
        salt: open.salt,
      });
      expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - deposit);

      // The official facilitator's claim: Ed25519 voucher + settle-and-seal + distribute in one transaction.
      const used = 1_234_567n;
      const voucher = { channelId: open.channelId, cumulativeAmount: used, expiresAt: 0n };
      const signatureBase58 = await official.signVoucher(w.authorizer, voucher);
      const claim = [
        ...official.buildSettleAndSealInstructions({
          channelId: open.channelId,
          payeeSigner: w.facilitator,
          voucher: { ...voucher, authorizedSigner: w.authorizer.address, signatureBase58 },
        }),
        await official.buildDistributeInstruction({
          channelId: open.channelId,
          mint: w.mint.mint,
          network: DEVNET,
          payee: w.facilitator.address,
          payer: w.buyer.address,
          rentPayer: w.facilitator.address,
          splits: splitsOf(w),
          tokenProgram: w.mint.tokenProgram,
        }),
      ];
      await sendOk(w.svm, w.facilitator, claim);
      expect(tokenBalance(w.svm, w.sellerAta)).toBe(used);
      expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS - used);
      expect(decodeChannel(dataOf(w.svm, open.channelId as Address))!.status).toBe(CHANNEL_STATUS.DISTRIBUTED);

      w.svm.warpToSlot(open.openSlot + official.OPEN_SLOT_WINDOW + 1n);
      const rent = lamportsOf(w.svm, open.channelId as Address);
      const before = lamportsOf(w.svm, w.facilitator.address);
      await sendOk(w.svm, w.facilitator, [
        official.buildReclaimInstruction({ channelId: open.channelId, rentPayer: w.facilitator.address }),
      ]);
      expect(w.svm.getAccount(open.channelId as Address).exists).toBe(false);
      expect(lamportsOf(w.svm, w.facilitator.address)).toBe(before + rent - 5_000n);
    },
  );

  it(
    "the official facilitator's zero-charge check composes: open + cancel (settle-and-seal without voucher) + " +
      "distribute in one transaction",
    async () => {
      const w = await createChannelWorld();
      const { instruction, opened } = await openInstruction(w, { deposit: 50_000n });
      await sendOk(w.svm, w.facilitator, [
        instruction,
        ...official.buildSettleAndSealInstructions({ channelId: opened.channel, payeeSigner: w.facilitator }),
        await official.buildDistributeInstruction({
          channelId: opened.channel,
          mint: w.mint.mint,
          network: DEVNET,
          payee: w.facilitator.address,
          payer: w.buyer.address,
          rentPayer: w.facilitator.address,
          splits: splitsOf(w),
          tokenProgram: w.mint.tokenProgram,
        }),
      ]);
      expect(tokenBalance(w.svm, w.buyerAta)).toBe(BUYER_INITIAL_TOKENS);
      expect(decodeChannel(dataOf(w.svm, opened.channel))!.status).toBe(CHANNEL_STATUS.DISTRIBUTED);
    },
  );

  it(
    "a voucher signed with our encoder verifies under the official signature check path (same message " + "bytes)",
    async () => {
      const w = await createChannelWorld();
      const { opened } = await openInstruction(w, { deposit: 1n });
      const voucher = { channelId: opened.channel, cumulativeAmount: 1n, expiresAt: 0n };
      const ours = await signBytes(w.authorizer.keyPair.privateKey, encodeVoucherMessage(voucher));
      const theirs = getBase58Encoder().encode(await official.signVoucher(w.authorizer, voucher));
      expect([...ours]).toEqual([...theirs]); // Ed25519 is deterministic: same key + same message
    },
  );
});
