/**
 * Well-known cluster facts of the core (the network id, the stablecoin mints). These are defaults for configuration
 * only: logic always reads the values from the validated Config, so a deployment can point at other mints. Each rail
 * keeps its own per-cluster defaults (its program ids) in its folder (`rails/<scheme>/cluster-defaults.ts`).
 */
export const NATIVE_SOL_ALLOWLIST_ADDRESS = "11111111111111111111111111111111";

export type ClusterName = "devnet" | "mainnet";

export interface ClusterDefaults {
  /** CAIP-2 network id used on the wire. */
  network: string;
  /** Genesis hash (the chain id inside the CAIP-2 id is its first 32 characters). */
  genesisHash: string;
  usdcMint: string;
  /** Devnet has no canonical USDT. */
  usdtMint: string | null;
}

export const CLUSTERS = {
  mainnet: {
    network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    genesisHash: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    usdcMint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    usdtMint: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
  },
  devnet: {
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    genesisHash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
    usdcMint: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    usdtMint: null,
  },
} satisfies Record<ClusterName, ClusterDefaults>;

export const USDC_DECIMALS = 6;
