/**
 * Account-meta helpers for the instruction builders. A signer position accepts either a bare Address
 * (the transaction is signed elsewhere, e.g. by the buyer's wallet or the fee-payer port) or a kit
 * TransactionSigner (then the meta carries it, so `signTransactionMessageWithSigners` can find it).
 */
import {
  AccountRole,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type InstructionWithAccounts,
  type InstructionWithData,
  type ReadonlyUint8Array,
  type TransactionSigner,
} from "@solana/kit";

export type AddressOrSigner = Address | TransactionSigner;

/** What every builder returns: a kit instruction that always has accounts and data. */
export type ProgramInstruction = Instruction &
  InstructionWithAccounts<readonly AccountMeta[]> &
  InstructionWithData<ReadonlyUint8Array>;

export function addressOf(account: AddressOrSigner): Address {
  return typeof account === "string" ? account : account.address;
}

export function signerAccount(account: AddressOrSigner, writable: boolean): AccountMeta {
  const role = writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  if (typeof account === "string") return { address: account, role };
  const meta: AccountSignerMeta = { address: account.address, role, signer: account };
  return meta;
}

export function writableAccount(address: Address): AccountMeta {
  return { address, role: AccountRole.WRITABLE };
}

export function readonlyAccount(address: Address): AccountMeta {
  return { address, role: AccountRole.READONLY };
}
