/**
 * Keys of the local demo and tests, derived from public strings (sha256 of a label as the ed25519 seed, see
 * scripts/lib/keypair.ts `labelledKeypair`): anyone can sign as them, so a deployment outside "local" refuses them.
 */

/** labelledKeypair("x402-facilitator/local/oracle"): the escrow oracle `npm start`, the demo and the tests name. */
export const LOCAL_DEMO_ORACLE_AUTHORITY = "2qHwqqzYw91UPTeHJ3Kp8P5aX5my3sCTz4NkmwLv5qTF";

export const PUBLICLY_DERIVED_KEYS: ReadonlySet<string> = new Set([LOCAL_DEMO_ORACLE_AUTHORITY]);
