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
  /**
   * Null where no public source confirms the program's address: the operator must configure it
   * (UNIVERSAL_SETTLE_PROGRAM_ID), so a production deployment never ships an unverified program id.
   */
  universalSettleProgramId: string | null;
  /**
   * Both SLA-Escrow ids are the normative ABI's "Deployed program addresses" (docs/sla-escrow-abi.md "Program ids").
   */
  slaEscrowProgramId: string;
  usdcMint: string;
  /** Devnet has no canonical USDT. */
  usdtMint: string | null;
  /** Sweep threshold for SPL rails, raw units (docs/facilitator-spec.md §8). */
  sweepMinSplRawDefault: bigint;
  /** The Solana Foundation's payment-channels program (the `upto` rail); same id on both clusters. */
  paymentChannelsProgramId: string;
  /**
   * Default owner of the payment-channels treasury token accounts (a build-time constant of the deployed program;
   * Distribute refuses any other; SVC_UPTO_TREASURY_OWNER overrides it). Sources, per cluster below.
   */
  paymentChannelsTreasuryOwner: string;
}

const PAYMENT_CHANNELS_PROGRAM_ID = "CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX";

export const CLUSTERS = {
  mainnet: {
    network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    genesisHash: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    // Appears in no public source (not in pr402's code or history): required in configuration instead.
    universalSettleProgramId: null,
    slaEscrowProgramId: "SEscZ6n23pVak34xipBKoGCikHUj3w6XPNyty4rHprJ",
    usdcMint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    usdtMint: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
    sweepMinSplRawDefault: 3_000_000n,
    paymentChannelsProgramId: PAYMENT_CHANNELS_PROGRAM_ID,
    // The program's source (solana-foundation/payment-channels, constants.rs, the mainnet-beta build) and the official
    // @x402/svm 2.27 facilitator (`getPaymentChannelsTreasuryOwner`) agree.
    paymentChannelsTreasuryOwner: "Cs2zdfUNonRdRGsiZUQQLdTxzxVvJZmgiX2mpLYKuEqP",
  },
  devnet: {
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    genesisHash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
    // Confirmed by pr402's history (miralandlabs/pr402, commits bdce437 "align with on-chain program", 644c7a2).
    universalSettleProgramId: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
    slaEscrowProgramId: "s5zkKiy8FD9nFdAhQZoHHV3G8s4QCPzE4cR9U4Hr4ZH",
    usdcMint: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    usdtMint: null,
    sweepMinSplRawDefault: 100_000n,
    paymentChannelsProgramId: PAYMENT_CHANNELS_PROGRAM_ID,
    // One source only, not verified by us against the deployed program: the official @x402/svm 2.27 facilitator
    // (`DEVNET_TREASURY_OWNER`). The program's published source holds a placeholder for non-mainnet builds.
    // docs/payment-channels.md "Accounts and addresses" says how to check it; SVC_UPTO_TREASURY_OWNER replaces it.
    paymentChannelsTreasuryOwner: "4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap",
  },
} satisfies Record<ClusterName, ClusterDefaults>;

export const USDC_DECIMALS = 6;
