/**
 * Payment-channels PDAs (program source: `program/payment_channels/src/state/channel.rs`,
 * `event_engine.rs`; docs/payment-channels.md). Each returns kit's `[address, bump]` tuple; the
 * program id is a parameter with the mainnet/devnet id as default.
 */
import {
  type Address,
  address,
  getAddressEncoder,
  getU64Encoder,
  type ProgramDerivedAddress,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { findCachedPda } from "../../../chain/program/find-cached-pda";

/** The Solana Foundation's payment-channels program (same id on mainnet and devnet). */
export const PAYMENT_CHANNELS_PROGRAM_ADDRESS = address("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX");

const textEncoder = new TextEncoder();
const CHANNEL_SEED = textEncoder.encode("channel");
const EVENT_AUTHORITY_SEED = textEncoder.encode("event_authority");
const addressEncoder = getAddressEncoder();
const u64Encoder = getU64Encoder();

export interface ChannelSeeds {
  payer: Address;
  payee: Address;
  mint: Address;
  /** The key that signs vouchers (the payer unless a delegate was bound at open). */
  authorizedSigner: Address;
  salt: bigint;
  /** Client-chosen slot; part of the address, so each incarnation has its own channel id. */
  openSlot: bigint;
}

/**
 * The channel (the voucher's `channel_id`): seeds "channel", payer, payee, mint, authorized signer, salt LE, open slot
 * LE.
 */
export function findChannelPda(
  seeds: ChannelSeeds,
  programId: Address = PAYMENT_CHANNELS_PROGRAM_ADDRESS,
): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, channelSeedBytes(seeds));
}

/** The channel PDA's seeds as bytes, in the program's order. */
export function channelSeedBytes(seeds: ChannelSeeds): ReadonlyUint8Array[] {
  return [
    CHANNEL_SEED,
    addressEncoder.encode(seeds.payer),
    addressEncoder.encode(seeds.payee),
    addressEncoder.encode(seeds.mint),
    addressEncoder.encode(seeds.authorizedSigner),
    u64Encoder.encode(seeds.salt),
    u64Encoder.encode(seeds.openSlot),
  ];
}

/** The signer of the program's self-CPI events (Open, Distribute): seeds "event_authority". */
export function findEventAuthorityPda(
  programId: Address = PAYMENT_CHANNELS_PROGRAM_ADDRESS,
): Promise<ProgramDerivedAddress> {
  return findCachedPda(programId, [EVENT_AUTHORITY_SEED]);
}
