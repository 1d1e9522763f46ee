/**
 * The upto deposit builder's transaction against the official upto client's (@x402/svm 2.27
 * buildOpenPaymentChannelTransaction, loaded from the package itself): given the same parties, salt, open slot,
 * blockhash, memo and compute price, both produce the same message bytes, so a buyer of /build-upto-deposit-tx
 * signs exactly what the official client would have signed. Pure: no chain.
 */

import {
  type Address,
  address,
  type Blockhash,
  createNoopSigner,
  generateKeyPairSigner,
  getBase64Encoder,
  getTransactionDecoder,
} from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  buildUptoDepositTransaction,
  channelSaltAtFirstBump,
  UPTO_OPEN_COMPUTE_UNIT_LIMIT,
} from "../../../../src/rails/upto/build-deposit-transaction";
import { findChannelPda, PAYMENT_CHANNELS_PROGRAM_ADDRESS } from "../../../../src/rails/upto/program/pda";
import { loadOfficialPaymentChannels } from "../../../programs/official-payment-channels";

const USDC = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const TOKEN_2022_PROGRAM = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
const BLOCKHASH = {
  blockhash: "5Ue4n9vKrr3VJ9qQBkTc2L8yBnt5rMZV4Qm8Yc6ZQvXr" as Blockhash,
  lastValidBlockHeight: 1234n,
};

const messageOf = (base64: string) => getTransactionDecoder().decode(getBase64Encoder().encode(base64));

interface Case {
  tokenProgram: Address;
  deposit: bigint;
  gracePeriodSeconds: number;
  openSlot: bigint;
  salt: bigint;
  computeUnitPriceMicroLamports: bigint;
  memo: string;
}

/**
 * The same open built by ours and by the official client (a no-op payer signer leaves its slot empty, as ours does).
 */
async function bothBuilds(c: Case) {
  const official = await loadOfficialPaymentChannels();
  const [buyer, facilitator, authorizer, seller] = await Promise.all([0, 1, 2, 3].map(() => generateKeyPairSigner()));
  const ours = await buildUptoDepositTransaction({
    programId: PAYMENT_CHANNELS_PROGRAM_ADDRESS,
    feePayer: facilitator!.address,
    payer: buyer!.address,
    mint: USDC,
    authorizedSigner: authorizer!.address,
    payTo: seller!.address,
    computeUnitLimit: UPTO_OPEN_COMPUTE_UNIT_LIMIT,
    blockhash: BLOCKHASH,
    ...c,
  });
  const theirs = await official.buildOpenPaymentChannelTransaction({
    payer: createNoopSigner(buyer!.address),
    payee: facilitator!.address,
    feePayer: facilitator!.address,
    mint: USDC,
    authorizedSigner: authorizer!.address,
    tokenProgram: c.tokenProgram,
    gracePeriod: c.gracePeriodSeconds,
    deposit: c.deposit,
    openSlot: c.openSlot,
    salt: c.salt,
    memo: c.memo,
    recipients: [{ recipient: seller!.address, bps: 10_000 }],
    blockhash: BLOCKHASH,
    computeUnitPriceMicroLamports: Number(c.computeUnitPriceMicroLamports),
  } as never);
  return { ours, theirs, buyer: buyer!, facilitator: facilitator! };
}

describe("upto deposit transaction", () => {
  for (const tokenProgram of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
    it(
      `is byte for byte the official client's open ` +
        `(${tokenProgram === TOKEN_PROGRAM ? "SPL Token" : "Token-2022"})`,
      async () => {
        const { ours, theirs, buyer, facilitator } = await bothBuilds({
          tokenProgram,
          deposit: 2_000_000n,
          gracePeriodSeconds: 900,
          openSlot: 987_654n,
          salt: 0x0123_4567_89ab_cdefn,
          computeUnitPriceMicroLamports: 1n, // the official client's default price
          memo: "a1b2c3d4e5f60718293a4b5c6d7e8f90",
        });
        expect(ours.channelId).toBe(theirs.channelId);
        expect(Buffer.from(messageOf(ours.transaction).messageBytes).toString("hex")).toBe(
          Buffer.from(messageOf(theirs.transaction).messageBytes).toString("hex"),
        );
        expect(ours.transaction).toBe(theirs.transaction);
        expect(ours.signerPubkeys).toEqual([facilitator.address, buyer.address]);
        expect(ours.payerSignatureIndex).toBe(1);
      },
    );
  }

  it("leaves out the price instruction at a price of 0, as the official client does", async () => {
    const { ours, theirs } = await bothBuilds({
      tokenProgram: TOKEN_PROGRAM,
      deposit: 5n,
      gracePeriodSeconds: 60,
      openSlot: 1n,
      salt: 7n,
      computeUnitPriceMicroLamports: 0n,
      memo: "m",
    });
    expect(ours.transaction).toBe(theirs.transaction);
    expect(messageOf(ours.transaction).messageBytes.length).toBeLessThan(
      messageOf(
        (
          await bothBuilds({
            tokenProgram: TOKEN_PROGRAM,
            deposit: 5n,
            gracePeriodSeconds: 60,
            openSlot: 1n,
            salt: 7n,
            computeUnitPriceMicroLamports: 1n,
            memo: "m",
          })
        ).ours.transaction,
      ).messageBytes.length,
    );
  });
});

describe("the channel salt", () => {
  it(
    "derives the channel and its escrow token account at the first bump, so the open's compute cost is its " + "lowest",
    async () => {
      const [payer, payee, signer] = await Promise.all([
        generateKeyPairSigner(),
        generateKeyPairSigner(),
        generateKeyPairSigner(),
      ]);
      const seeds = {
        payer: payer.address,
        payee: payee.address,
        mint: USDC,
        authorizedSigner: signer.address,
        openSlot: 42n,
      };
      for (const tokenProgram of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
        const salts = new Set<bigint>();
        for (let i = 0; i < 8; i++) {
          const salt = await channelSaltAtFirstBump(seeds, PAYMENT_CHANNELS_PROGRAM_ADDRESS, tokenProgram);
          salts.add(salt);
          const [channel, channelBump] = await findChannelPda({ ...seeds, salt }, PAYMENT_CHANNELS_PROGRAM_ADDRESS);
          const [, escrowBump] = await findAssociatedTokenPda({ owner: channel, mint: USDC, tokenProgram });
          expect([channelBump, escrowBump]).toEqual([255, 255]);
        }
        expect(salts.size, "still random").toBe(8);
      }
    },
  );
});
