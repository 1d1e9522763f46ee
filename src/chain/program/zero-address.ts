import { type Address, address } from "@solana/kit";

/**
 * The all-zero 32-byte public key in base58 (32 '1' characters). Both programs use it as the "mint"
 * of native SOL (UniversalSettle Sweep data, SLA-Escrow seeds and data). It is byte-for-byte the
 * System program id, which is why a native-SOL "mint" account meta points at System.
 */
export const ZERO_ADDRESS: Address<"11111111111111111111111111111111"> = address("11111111111111111111111111111111");
