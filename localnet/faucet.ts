/**
 * The faucet: SOL airdrops and token mints, each landed as a real signed transaction from the
 * faucet keypair (so it shows up in getSignatureStatuses / getTransaction like on devnet, where
 * requestAirdrop is also an ordinary transfer). A memo with a counter keeps two identical requests
 * in the same slot from colliding as duplicates.
 */
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  blockhash as toBlockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToCheckedInstruction,
} from "@solana-program/token";
import { FAUCET_KEY_LABEL, localKeypair } from "./keys";
import type { LocalChain } from "./local-chain";
import { invalidParams } from "./rpc-errors";
import { readMint } from "./token-accounts";
import { submitTransaction } from "./transaction-pipeline";
import { parseWireTransaction } from "./wire-transaction";

const MEMO_PROGRAM_ID = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
/** Lamports the faucet starts with: 500 million SOL, far more than any local run needs. */
export const FAUCET_INITIAL_LAMPORTS = 500_000_000n * 1_000_000_000n;

let requestCounter = 0;

export function faucetAddress(): string {
  return localKeypair(FAUCET_KEY_LABEL).address;
}

/** Builds, signs (faucet only) and lands a transaction; returns its signature. */
function landFaucetTransaction(chain: LocalChain, instructions: Instruction[]): string {
  const faucet = localKeypair(FAUCET_KEY_LABEL);
  const latest = chain.latestBlockhash();
  const memo: Instruction = {
    programAddress: MEMO_PROGRAM_ID,
    data: new TextEncoder().encode(`localnet faucet #${++requestCounter}`),
  };
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayer(address(faucet.address), draft),
    (draft) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: toBlockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight },
        draft,
      ),
    (draft) => appendTransactionMessageInstructions([...instructions, memo], draft),
  );
  const messageBytes = new Uint8Array(compileTransaction(message).messageBytes);
  // Single signer: [shortvec 1][signature][message].
  const wireBytes = Uint8Array.from([1, ...faucet.sign(messageBytes), ...messageBytes]);
  return submitTransaction(chain, parseWireTransaction(wireBytes), { skipPreflight: false });
}

export function airdropLamports(chain: LocalChain, recipient: string, lamports: bigint): string {
  const faucet = createNoopSigner(address(faucetAddress()));
  return landFaucetTransaction(chain, [
    getTransferSolInstruction({ source: faucet, destination: address(recipient), amount: lamports }),
  ]);
}

/**
 * Mints `amountRaw` of `mint` into the wallet's associated token account, creating it if missing.
 * Works for every mint whose mint authority is the faucet (all seeded mints and localnet_createMint).
 */
export async function airdropTokens(
  chain: LocalChain,
  wallet: string,
  amountRaw: bigint,
  mint: string,
): Promise<{ signature: string; tokenAccount: string }> {
  const mintAccount = chain.getAccount(mint);
  const mintInfo = mintAccount ? readMint(mintAccount.owner, mintAccount.data) : null;
  if (mintAccount === null || mintInfo === null) throw invalidParams(`Invalid params: ${mint} is not a token mint`);
  if (mintInfo.mintAuthority !== faucetAddress()) {
    throw invalidParams(`Invalid params: the local faucet is not the mint authority of ${mint}`);
  }
  const tokenProgram = address(mintAccount.owner);
  const [tokenAccount] = await findAssociatedTokenPda({
    owner: address(wallet),
    mint: address(mint),
    tokenProgram,
  });
  const faucet = createNoopSigner(address(faucetAddress()));
  const signature = landFaucetTransaction(chain, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: faucet,
      ata: tokenAccount,
      owner: address(wallet),
      mint: address(mint),
      tokenProgram,
    }),
    getMintToCheckedInstruction(
      {
        mint: address(mint),
        token: tokenAccount,
        mintAuthority: faucet,
        amount: amountRaw,
        decimals: mintInfo.decimals,
      },
      { programAddress: tokenProgram },
    ),
  ]);
  return { signature, tokenAccount };
}
