/**
 * Well-known cluster facts. These are defaults for configuration only: logic always reads the
 * values from the validated Config, so a deployment can point at other programs or mints.
 */
export const NATIVE_SOL_ALLOWLIST_ADDRESS = "11111111111111111111111111111111";

export type ClusterName = "devnet" | "mainnet";

export interface ClusterDefaults {
  /** CAIP-2 network id used on the wire. */
  network: string;
  /** Genesis hash (the chain id inside the CAIP-2 id is its first 32 characters). */
  genesisHash: string;
  universalSettleProgramId: string;
  slaEscrowProgramId: string;
  usdcMint: string;
  /** Devnet has no canonical USDT. */
  usdtMint: string | null;
  /** Sweep threshold for SPL rails, raw units (spec §8). */
  sweepMinSplRawDefault: bigint;
}

export const CLUSTERS: Record<ClusterName, ClusterDefaults> = {
  mainnet: {
    network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    genesisHash: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    universalSettleProgramId: "USet9KNFmS1R36FtX9F6s8fidQxcrPiybBzkjkxUjPJ",
    slaEscrowProgramId: "SEscZ6n23pVak34xipBKoGCikHUj3w6XPNyty4rHprJ",
    usdcMint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    usdtMint: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
    sweepMinSplRawDefault: 3_000_000n,
  },
  devnet: {
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    genesisHash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
    universalSettleProgramId: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
    slaEscrowProgramId: "s5zkKiy8FD9nFdAhQZoHHV3G8s4QCPzE4cR9U4Hr4ZH",
    usdcMint: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    usdtMint: null,
    sweepMinSplRawDefault: 100_000n,
  },
};

export const USDC_DECIMALS = 6;
