/**
 * A Swig wallet built and used only through the official `@swig-wallet/kit` SDK: create it with one Ed25519 role
 * allowed everything, read it back with the SDK's own codec, and have that role sign a token transfer out of the
 * wallet (SignV2: the transfer runs by CPI signed by the swig wallet address, the PDA that owns the funds).
 * The SDK is built on @solana/kit 2; its instructions are plain objects that @solana/kit 8 accepts as they are.
 */
import type { Address, Instruction, TransactionSigner } from "@solana/kit";
import { getTransferCheckedInstruction } from "@solana-program/token";
import {
  Actions,
  createEd25519AuthorityInfo,
  findSwigPda,
  findSwigSystemAddressPdaRaw,
  getCreateSwigInstruction,
  getSignInstructions,
  getSwigCodec,
  getSwigWalletAddress,
  Swig,
} from "@swig-wallet/kit";

export interface SwigWallet {
  /** The Swig account (its roles). */
  swig: Address;
  /** The swig wallet address: the System-owned PDA that holds the funds and signs their transfers. */
  walletAddress: Address;
  /** Decodes the account's current bytes with the SDK's own codec. */
  load(data: Uint8Array): Swig;
}

/** The SDK's CreateV1 for a new wallet whose role 0 is `authority` with every permission. */
export async function createSwigInstruction(
  payer: Address,
  authority: Address,
  id: Uint8Array = crypto.getRandomValues(new Uint8Array(32)),
): Promise<{ instruction: Instruction; wallet: SwigWallet }> {
  const swig = await findSwigPda(id);
  const instruction = (await getCreateSwigInstruction({
    payer,
    id,
    actions: Actions.set().all().get(),
    authorityInfo: createEd25519AuthorityInfo(authority),
  })) as unknown as Instruction;
  const load = (data: Uint8Array) => new Swig(swig, getSwigCodec().decode(data));
  const [walletAddress] = await findSwigSystemAddressPdaRaw(swig);
  return { instruction, wallet: { swig: swig as Address, walletAddress: walletAddress.toBase58() as Address, load } };
}

/** SignV2 of role 0 (`authority` signs) running a TransferChecked out of the wallet's token account. */
export async function swigTransferInstructions(
  swig: Swig,
  authority: TransactionSigner,
  transfer: {
    source: Address;
    mint: Address;
    destination: Address;
    amount: bigint;
    decimals: number;
    tokenProgram?: Address;
  },
): Promise<Instruction[]> {
  const walletAddress = (await getSwigWalletAddress(swig)) as Address;
  const inner = getTransferCheckedInstruction(
    {
      source: transfer.source,
      mint: transfer.mint,
      destination: transfer.destination,
      authority: walletAddress,
      amount: transfer.amount,
      decimals: transfer.decimals,
    },
    transfer.tokenProgram ? { programAddress: transfer.tokenProgram } : undefined,
  );
  const instructions = (await getSignInstructions(swig, 0, [inner as never])) as unknown as Instruction[];
  // The SDK names the authority by address; attach the signer so kit signs with it.
  return instructions.map((instruction) => ({
    ...instruction,
    accounts: instruction.accounts?.map((meta) =>
      meta.address === authority.address ? { ...meta, signer: authority } : meta,
    ),
  })) as Instruction[];
}
