/**
 * SLA-Escrow PDAs (docs/sla-escrow-abi.md "PDAs"). Every function returns kit's `ProgramDerivedAddress`
 * tuple `[address, bump]`, like UniversalSettle's pda.ts. The program id is always a parameter.
 */
import { type Address, getAddressEncoder, type ProgramDerivedAddress, type ReadonlyUint8Array } from "@solana/kit";
import { findCachedPda } from "../../../chain/program/find-cached-pda";
import { ZERO_ADDRESS } from "../../../chain/program/zero-address";
import { PAYMENT_UID_SIZE_BYTES } from "./payment-uid";

/**
 * The "mint" of native SOL in seeds and instruction data: the all-zero pubkey, which base58-encodes
 * as 32 '1's and is therefore the same string as the System program id.
 */
export const NATIVE_SOL_ESCROW_MINT: Address<"11111111111111111111111111111111"> = ZERO_ADDRESS;

const textEncoder = new TextEncoder();
const BANK_SEED = textEncoder.encode("bank");
const CONFIG_SEED = textEncoder.encode("config");
const ESCROW_SEED = textEncoder.encode("escrow");
const SOL_STORAGE_SEED = textEncoder.encode("sol_storage");
const PAYMENT_SEED = textEncoder.encode("payment");
const PAYMENT_EXT_SEED = textEncoder.encode("payment_ext");

const addressEncoder = getAddressEncoder();

function assertPaymentUid(paymentUid: ReadonlyUint8Array): void {
  if (paymentUid.length !== PAYMENT_UID_SIZE_BYTES) {
    throw new RangeError(`payment uid must be exactly 32 bytes, got ${paymentUid.length}`);
  }
}

/** The Bank (the facilitator's `bankAddress`): seeds `"bank"`. */
export async function findBankPda(programId: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [BANK_SEED]);
}

/** The program-wide Config (not per escrow): seeds `"config"`. */
export async function findEscrowConfigPda(programId: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [CONFIG_SEED]);
}

/** The Escrow of one mint (the `sla-escrow` payTo): seeds `"escrow"`, mint, bank. */
export async function findEscrowPda(programId: Address, mint: Address, bank: Address): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [ESCROW_SEED, addressEncoder.encode(mint), addressEncoder.encode(bank)]);
}

/** An escrow's SOL storage: seeds `"sol_storage"`, mint, bank, escrow. */
export async function findEscrowSolStoragePda(
  programId: Address,
  mint: Address,
  bank: Address,
  escrow: Address,
): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [
    SOL_STORAGE_SEED,
    addressEncoder.encode(mint),
    addressEncoder.encode(bank),
    addressEncoder.encode(escrow),
  ]);
}

/** A Payment: seeds `"payment"`, uid (32 raw bytes), bank. */
export async function findPaymentPda(
  programId: Address,
  paymentUid: ReadonlyUint8Array,
  bank: Address,
): Promise<ProgramDerivedAddress> {
  assertPaymentUid(paymentUid);
  return findCachedPda(programId, [PAYMENT_SEED, paymentUid, addressEncoder.encode(bank)]);
}

/** A Payment's v0.5 extension: seeds `"payment_ext"`, uid (32 raw bytes), bank. */
export async function findPaymentExtPda(
  programId: Address,
  paymentUid: ReadonlyUint8Array,
  bank: Address,
): Promise<ProgramDerivedAddress> {
  assertPaymentUid(paymentUid);
  return findCachedPda(programId, [PAYMENT_EXT_SEED, paymentUid, addressEncoder.encode(bank)]);
}
