/**
 * Inner instructions as a real node reports them: simulateTransaction with `innerInstructions: true` and getTransaction
 * with `jsonParsed` give the programs a node parses (System, SPL Token, Associated Token, Memo) in their parsed form
 * and the rest partially decoded. The official x402 facilitator signer's simulateTransactionWithInnerInstructions reads
 * the same answer.
 */
import { address, generateKeyPairSigner, getBase58Decoder, type KeyPairSigner } from "@solana/kit";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from "@solana-program/token";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonParsedInstruction } from "../../localnet/parsed-instructions";
import { CLUSTERS } from "../../src/platform/config/networks";
import { fundedSigner, latestLifetime, send, signedTransaction, startTestChain, type TestChain } from "./helpers";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const USDC = address(CLUSTERS.devnet.usdcMint);

let chain: TestChain;
let payer: KeyPairSigner;

beforeAll(async () => {
  chain = await startTestChain();
  payer = await fundedSigner(chain);
});
afterAll(async () => {
  await chain.localnet.close();
});

async function createAtaTransaction() {
  const owner = await generateKeyPairSigner();
  const [ata] = await findAssociatedTokenPda({ owner: owner.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  const transaction = await signedTransaction(
    payer,
    [getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: owner.address, mint: USDC })],
    await latestLifetime(chain),
  );
  return { transaction, ata, owner: owner.address };
}

describe("simulateTransaction innerInstructions", () => {
  it("answers the CPIs of each instruction, parsed as a node parses them, with their stack height", async () => {
    const { transaction, ata, owner } = await createAtaTransaction();
    const { result } = await chain.raw("simulateTransaction", [
      transaction.wire,
      { encoding: "base64", sigVerify: false, innerInstructions: true },
    ]);
    const value = (result as { value: { err: unknown; innerInstructions: unknown } }).value;
    expect(value.err).toBeNull();
    // The Associated Token program's CPIs: the account size query, the account's creation and its initialisation.
    expect(value.innerInstructions).toEqual([
      {
        index: 0,
        instructions: [
          {
            program: "spl-token",
            programId: TOKEN_PROGRAM,
            parsed: { type: "getAccountDataSize", info: { mint: USDC } },
            stackHeight: 2,
          },
          {
            program: "system",
            programId: SYSTEM_PROGRAM,
            parsed: {
              type: "createAccount",
              info: { source: payer.address, newAccount: ata, lamports: 2_039_280, space: 165, owner: TOKEN_PROGRAM },
            },
            stackHeight: 2,
          },
          {
            program: "spl-token",
            programId: TOKEN_PROGRAM,
            parsed: { type: "initializeImmutableOwner", info: { account: ata } },
            stackHeight: 2,
          },
          {
            program: "spl-token",
            programId: TOKEN_PROGRAM,
            parsed: { type: "initializeAccount3", info: { account: ata, mint: USDC, owner } },
            stackHeight: 2,
          },
        ],
      },
    ]);
  });

  it("answers null without the option, as a node does", async () => {
    const { transaction } = await createAtaTransaction();
    const { result } = await chain.raw("simulateTransaction", [transaction.wire, { encoding: "base64" }]);
    expect((result as { value: { innerInstructions: unknown } }).value.innerInstructions).toBeNull();
  });

  it("is what the official facilitator signer's simulateTransactionWithInnerInstructions returns", async () => {
    const { transaction } = await createAtaTransaction();
    const signer = toFacilitatorSvmSigner(await generateKeyPairSigner(), { defaultRpcUrl: chain.localnet.url });
    const { innerInstructions } = await signer.simulateTransactionWithInnerInstructions!(
      transaction.wire,
      CLUSTERS.devnet.network,
    );
    const parsed = innerInstructions?.[0]?.instructions.map((ix) => (ix as { parsed?: { type: string } }).parsed?.type);
    expect(parsed).toEqual(["getAccountDataSize", "createAccount", "initializeImmutableOwner", "initializeAccount3"]);
  });
});

describe("getTransaction jsonParsed", () => {
  it("parses top-level and inner instructions of known programs", async () => {
    await chain.raw("requestTokenAirdrop", [payer.address, "5000000"]);
    const receiver = await generateKeyPairSigner();
    const [source] = await findAssociatedTokenPda({ owner: payer.address, mint: USDC, tokenProgram: TOKEN_PROGRAM });
    const [destination] = await findAssociatedTokenPda({
      owner: receiver.address,
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
    });
    const transaction = await signedTransaction(
      payer,
      [
        getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: receiver.address, mint: USDC }),
        getTransferCheckedInstruction({
          source,
          mint: USDC,
          destination,
          authority: payer,
          amount: 1_250_000n,
          decimals: 6,
        }),
      ],
      await latestLifetime(chain),
    );
    await send(chain, transaction.wire);
    // Raw JSON: kit's client turns every number into a bigint.
    const { result } = await chain.raw("getTransaction", [
      transaction.signature,
      { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 },
    ]);
    const confirmed = result as unknown as {
      transaction: { message: { instructions: unknown[] } };
      meta: { innerInstructions: { index: number }[] };
    };
    expect(confirmed.transaction.message.instructions).toEqual([
      {
        program: "spl-associated-token-account",
        programId: ATA_PROGRAM,
        parsed: {
          type: "createIdempotent",
          info: {
            source: payer.address,
            account: destination,
            wallet: receiver.address,
            mint: USDC,
            systemProgram: SYSTEM_PROGRAM,
            tokenProgram: TOKEN_PROGRAM,
          },
        },
        stackHeight: null,
      },
      {
        program: "spl-token",
        programId: TOKEN_PROGRAM,
        parsed: {
          type: "transferChecked",
          info: {
            source,
            mint: USDC,
            destination,
            authority: payer.address,
            tokenAmount: { uiAmount: 1.25, decimals: 6, amount: "1250000", uiAmountString: "1.25" },
          },
        },
        stackHeight: null,
      },
    ]);
    expect(confirmed.meta.innerInstructions.map((group) => group.index)).toEqual([0]);
  });
});

describe("the parsed shapes", () => {
  const keys = Array.from({ length: 6 }, (_, i) => getBase58Decoder().decode(new Uint8Array(32).fill(i + 1)));
  const transferChecked = (accounts: string[]) =>
    jsonParsedInstruction({
      programId: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
      accounts,
      data: Uint8Array.from([12, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, 2]),
      stackHeight: 3,
    });

  it("names a multisig authority and its signers as a node does", () => {
    expect(transferChecked(keys)).toEqual({
      program: "spl-token",
      programId: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
      parsed: {
        type: "transferChecked",
        info: {
          source: keys[0],
          mint: keys[1],
          destination: keys[2],
          multisigAuthority: keys[3],
          signers: keys.slice(4),
          tokenAmount: { uiAmount: 10_000, decimals: 2, amount: "1000000", uiAmountString: "10000" },
        },
      },
      stackHeight: 3,
    });
  });

  it("falls back to the partially decoded form for an instruction it cannot parse", () => {
    expect(transferChecked(keys.slice(0, 3))).toEqual({
      programId: "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
      accounts: keys.slice(0, 3),
      data: getBase58Decoder().decode(Uint8Array.from([12, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, 2])),
      stackHeight: 3,
    });
    const unknown = jsonParsedInstruction({
      programId: keys[5]!,
      accounts: [keys[0]!],
      data: Uint8Array.of(1, 2),
      stackHeight: 2,
    });
    expect(unknown).toEqual({
      programId: keys[5],
      accounts: [keys[0]],
      data: getBase58Decoder().decode(Uint8Array.of(1, 2)),
      stackHeight: 2,
    });
  });
});
