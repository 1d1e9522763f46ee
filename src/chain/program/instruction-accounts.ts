/**
 * Account-meta helpers for the instruction builders. A signer position accepts either a bare Address
 * (the transaction is signed elsewhere, e.g. by the buyer's wallet or the fee-payer port) or a kit
 * TransactionSigner (then the meta carries it, so `signTransactionMessageWithSigners` can find it).
 */
import {
  type AccountMeta,
  AccountRole,
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

function addressOf(account: AddressOrSigner): Address {
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

/** An account's role in a table-driven layout: signer (s), writable signer (sw), writable (w), read-only (r). */
export type Role = "s" | "sw" | "w" | "r";
/** [input key, role] or [name, role, fixed address]; the key "programId" names the program itself. */
export type AccountSlot = readonly [name: string, role: Role] | readonly [name: string, role: Role, fixed: Address];

const ROLE_META: Record<Role, (account: AddressOrSigner) => AccountMeta> = {
  s: (account) => signerAccount(account, false),
  sw: (account) => signerAccount(account, true),
  w: (account) => writableAccount(addressOf(account)),
  r: (account) => readonlyAccount(addressOf(account)),
};

/** The metas of a layout, each slot's account taken from its fixed address or from `input[name]`. */
export function accountMetas(layout: readonly AccountSlot[], input: object): AccountMeta[] {
  const values = input as Record<string, unknown>;
  return layout.map(([name, role, fixed]) => {
    const account = fixed ?? (values[name] as AddressOrSigner | undefined);
    if (account === undefined) throw new TypeError(`missing account "${name}"`);
    return ROLE_META[role](account);
  });
}
