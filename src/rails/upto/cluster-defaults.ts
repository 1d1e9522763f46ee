import type { ClusterName } from "../../platform/config/networks";

/** The Solana Foundation's payment-channels program; the same id on both clusters. */
const PAYMENT_CHANNELS_PROGRAM_ID = "CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX";

/**
 * The upto rail's public defaults per cluster (configuration defaults: PAYMENT_CHANNELS_PROGRAM_ID and
 * SVC_UPTO_TREASURY_OWNER replace them). `treasuryOwner` owns the payment-channels treasury token accounts (a
 * build-time constant of the deployed program; Distribute refuses any other). Sources, per cluster below.
 */
export const UPTO_CLUSTER_DEFAULTS = {
  mainnet: {
    programId: PAYMENT_CHANNELS_PROGRAM_ID,
    // The program's source (solana-foundation/payment-channels, constants.rs, the mainnet-beta build) and the official
    // @x402/svm 2.27 facilitator (`getPaymentChannelsTreasuryOwner`) agree.
    treasuryOwner: "Cs2zdfUNonRdRGsiZUQQLdTxzxVvJZmgiX2mpLYKuEqP",
  },
  devnet: {
    programId: PAYMENT_CHANNELS_PROGRAM_ID,
    // One source only, not verified by us against the deployed program: the official @x402/svm 2.27 facilitator
    // (`DEVNET_TREASURY_OWNER`). The program's published source holds a placeholder for non-mainnet builds.
    // docs/payment-channels.md "Accounts and addresses" says how to check it; SVC_UPTO_TREASURY_OWNER replaces it.
    treasuryOwner: "4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap",
  },
} satisfies Record<ClusterName, { programId: string; treasuryOwner: string }>;
