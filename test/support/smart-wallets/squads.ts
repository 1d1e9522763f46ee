/**
 * A Squads Multisig v4 vault paying with the official `@sqds/multisig` SDK (web3.js 1.x) against the local chain:
 * the multisig account is placed with the SDK's own serializer (the stand-in implements no multisig creation), a
 * member creates, proposes and approves a vault transaction holding a TransferChecked out of the vault's token
 * account (its own transaction, its own fee), and the SDK's vaultTransactionExecute — which reads the vault
 * transaction from the chain — is the instruction of the payment another key pays for.
 */
import {
  type AccountMeta,
  AccountRole,
  type Address,
  address,
  type Instruction,
  type KeyPairSigner,
  type TransactionSigner,
} from "@solana/kit";
import { type Connection, PublicKey, TransactionInstruction, TransactionMessage } from "@solana/web3.js";
import { getTransferCheckedInstruction } from "@solana-program/token";
import * as multisig from "@sqds/multisig";

export const SQUADS_PROGRAM = "SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf" as Address;
const ALL_PERMISSIONS = 7; // Initiate | Vote | Execute

export interface SquadsVault {
  multisig: Address;
  /** Vault 0: the PDA that owns the funds and signs their transfers. */
  vault: Address;
}

/** Calls a local-chain JSON-RPC method. */
export type RawRpc = (method: string, params: unknown[]) => Promise<unknown>;

/** Places a multisig of `members` (every permission) with `threshold`, serialized by the SDK, at its real PDA. */
export async function placeMultisig(
  rpc: RawRpc,
  members: Address[],
  threshold: number,
  timeLockSeconds = 0,
): Promise<SquadsVault> {
  const createKey = PublicKey.unique();
  const [multisigPda, bump] = multisig.getMultisigPda({ createKey });
  const sorted = [...members].sort((a, b) => Buffer.compare(new PublicKey(a).toBuffer(), new PublicKey(b).toBuffer()));
  const account = multisig.accounts.Multisig.fromArgs({
    createKey,
    configAuthority: PublicKey.default,
    threshold,
    timeLock: timeLockSeconds,
    transactionIndex: 0,
    staleTransactionIndex: 0,
    rentCollector: null,
    bump,
    members: sorted.map((key) => ({ key: new PublicKey(key), permissions: { mask: ALL_PERMISSIONS } })),
  });
  const [data] = account.serialize();
  await rpc("localnet_setAccount", [
    multisigPda.toBase58(),
    { lamports: 10_000_000, dataBase64: data.toString("base64"), owner: SQUADS_PROGRAM },
  ]);
  const [vault] = multisig.getVaultPda({ multisigPda, index: 0 });
  return { multisig: multisigPda.toBase58() as Address, vault: vault.toBase58() as Address };
}

export interface TokenTransfer {
  source: Address;
  mint: Address;
  destination: Address;
  amount: bigint;
  decimals: number;
}

/**
 * The SDK's VaultTransactionCreate + ProposalCreate + ProposalApprove for a TransferChecked out of the vault, by
 * `member` (creator, rent payer and voter). Returns the instructions and the transaction index they create.
 */
export async function proposeTransferInstructions(
  connection: Connection,
  wallet: SquadsVault,
  member: TransactionSigner,
  transfer: TokenTransfer,
): Promise<{ instructions: Instruction[]; transactionIndex: bigint }> {
  const multisigPda = new PublicKey(wallet.multisig);
  const info = await multisig.accounts.Multisig.fromAccountAddress(connection, multisigPda);
  const transactionIndex = BigInt(info.transactionIndex.toString()) + 1n;
  const memberKey = new PublicKey(member.address);
  const transferIx = toWeb3Instruction(
    getTransferCheckedInstruction({
      source: transfer.source,
      mint: transfer.mint,
      destination: transfer.destination,
      authority: wallet.vault,
      amount: transfer.amount,
      decimals: transfer.decimals,
    }),
  );
  const { blockhash } = await connection.getLatestBlockhash();
  const web3 = [
    multisig.instructions.vaultTransactionCreate({
      multisigPda,
      transactionIndex,
      creator: memberKey,
      rentPayer: memberKey,
      vaultIndex: 0,
      ephemeralSigners: 0,
      transactionMessage: new TransactionMessage({
        payerKey: new PublicKey(wallet.vault),
        recentBlockhash: blockhash,
        instructions: [transferIx],
      }),
    }),
    multisig.instructions.proposalCreate({ multisigPda, transactionIndex, creator: memberKey, rentPayer: memberKey }),
    multisig.instructions.proposalApprove({ multisigPda, transactionIndex, member: memberKey }),
  ];
  return { instructions: web3.map((ix) => fromWeb3Instruction(ix, [member])), transactionIndex };
}

/** The SDK's VaultTransactionExecute (it reads the vault transaction from the chain), signed by `member`. */
export async function executeInstruction(
  connection: Connection,
  wallet: SquadsVault,
  transactionIndex: bigint,
  member: TransactionSigner,
): Promise<Instruction> {
  const { instruction } = await multisig.instructions.vaultTransactionExecute({
    connection,
    multisigPda: new PublicKey(wallet.multisig),
    transactionIndex,
    member: new PublicKey(member.address),
  });
  return fromWeb3Instruction(instruction, [member]);
}

/** A web3.js 1.x instruction as a @solana/kit instruction, with the given signers attached to their metas. */
export function fromWeb3Instruction(
  ix: TransactionInstruction,
  signers: readonly TransactionSigner[] = [],
): Instruction {
  const accounts = ix.keys.map((key): AccountMeta => {
    const keyAddress = address(key.pubkey.toBase58());
    const role = key.isSigner
      ? key.isWritable
        ? AccountRole.WRITABLE_SIGNER
        : AccountRole.READONLY_SIGNER
      : key.isWritable
        ? AccountRole.WRITABLE
        : AccountRole.READONLY;
    const signer = key.isSigner ? signers.find((s) => s.address === keyAddress) : undefined;
    return signer ? ({ address: keyAddress, role, signer } as AccountMeta) : { address: keyAddress, role };
  });
  return { programAddress: address(ix.programId.toBase58()), accounts, data: new Uint8Array(ix.data) };
}

function toWeb3Instruction(ix: Instruction): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ix.programAddress),
    keys: (ix.accounts ?? []).map((meta) => ({
      pubkey: new PublicKey(meta.address),
      isSigner: meta.role === AccountRole.READONLY_SIGNER || meta.role === AccountRole.WRITABLE_SIGNER,
      isWritable: meta.role === AccountRole.WRITABLE || meta.role === AccountRole.WRITABLE_SIGNER,
    })),
    data: Buffer.from(ix.data ?? new Uint8Array()),
  });
}

export type { KeyPairSigner };
