/**
 * The Squads Multisig v4 stand-in (localnet/programs/squads/squads.c) on the local chain runs what the official
 * @sqds/multisig SDK builds: a member creates, proposes and approves a vault transaction holding a TransferChecked out
 * of the vault's token account, then the SDK's vaultTransactionExecute moves the tokens by CPI signed by the vault
 * PDA, in a transaction another key pays for (as the facilitator will). Runs over RPC because the SDK reads the
 * chain with a web3.js Connection.
 */
import { address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { Connection } from "@solana/web3.js";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTERS } from "../../src/platform/config/networks";
import {
  fundedSigner,
  latestLifetime,
  send,
  signedTransaction,
  startTestChain,
  type TestChain,
} from "../localnet/helpers";
import {
  executeInstruction,
  placeMultisig,
  proposeTransferInstructions,
  type SquadsVault,
} from "../support/smart-wallets/squads";

const USDC = address(CLUSTERS.devnet.usdcMint);
const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");

let chain: TestChain;
let connection: Connection;
let feePayer: KeyPairSigner;

beforeAll(async () => {
  chain = await startTestChain();
  connection = new Connection(chain.localnet.url, "confirmed");
  feePayer = await fundedSigner(chain);
});
afterAll(async () => {
  await chain.localnet.close();
});

const rpc = async (method: string, params: unknown[]) => {
  const reply = await chain.raw(method, params);
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result;
};

async function tokenAmount(account: string): Promise<bigint> {
  const { value } = await chain.rpc.getTokenAccountBalance(address(account)).send();
  return BigInt(value.amount);
}

async function squadsWorld(threshold = 1) {
  const member = await fundedSigner(chain);
  const wallet: SquadsVault = await placeMultisig(rpc, [member.address], threshold);
  await rpc("requestTokenAirdrop", [wallet.vault, "5000000"]);
  const [source] = await findAssociatedTokenPda({ owner: wallet.vault, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  const seller = await generateKeyPairSigner();
  const [destination] = await findAssociatedTokenPda({
    owner: seller.address,
    mint: USDC,
    tokenProgram: TOKEN_PROGRAM,
  });
  const create = await signedTransaction(
    feePayer,
    [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: feePayer,
        ata: destination,
        owner: seller.address,
        mint: USDC,
      }),
    ],
    await latestLifetime(chain),
  );
  await send(chain, create.wire);
  return { member, wallet, source, destination };
}

describe("Squads Multisig v4 stand-in", () => {
  it(
    "executes an approved vault transaction's TransferChecked, signed by the vault, in a transaction another key " +
      "pays",
    async () => {
      const { member, wallet, source, destination } = await squadsWorld();
      const transfer = { source, mint: USDC, destination, amount: 1_250_000n, decimals: 6 };
      const proposal = await proposeTransferInstructions(connection, wallet, member, transfer);
      expect(proposal.transactionIndex).toBe(1n);
      await send(chain, (await signedTransaction(member, proposal.instructions, await latestLifetime(chain))).wire);

      const execute = await executeInstruction(connection, wallet, proposal.transactionIndex, member);
      const memberLamports = (await chain.rpc.getBalance(member.address).send()).value;
      const payment = await signedTransaction(feePayer, [execute], await latestLifetime(chain));
      await send(chain, payment.wire);
      expect(await tokenAmount(source)).toBe(3_750_000n);
      expect(await tokenAmount(destination)).toBe(1_250_000n);
      expect((await chain.rpc.getBalance(member.address).send()).value).toBe(memberLamports);

      // Executed once: the proposal is spent.
      const again = await signedTransaction(feePayer, [execute], await latestLifetime(chain));
      await expect(send(chain, again.wire)).rejects.toThrow();
      expect(await tokenAmount(destination)).toBe(1_250_000n);
    },
  );

  it("refuses to execute before the threshold is reached", async () => {
    const { member, wallet, source, destination } = await squadsWorld(2);
    const proposal = await proposeTransferInstructions(connection, wallet, member, {
      source,
      mint: USDC,
      destination,
      amount: 1n,
      decimals: 6,
    });
    await send(chain, (await signedTransaction(member, proposal.instructions, await latestLifetime(chain))).wire);
    const execute = await executeInstruction(connection, wallet, proposal.transactionIndex, member);
    const payment = await signedTransaction(feePayer, [execute], await latestLifetime(chain));
    const simulated = (await rpc("simulateTransaction", [payment.wire, { encoding: "base64" }])) as {
      value: { err: unknown };
    };
    expect(simulated.value.err).toEqual({ InstructionError: [0, { Custom: 9111 }] }); // InvalidProposalStatus
    expect(await tokenAmount(destination)).toBe(0n);
  });
});
