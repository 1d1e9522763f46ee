import type { ClusterName } from "../../platform/config/networks";

/**
 * The SLA-Escrow program per cluster (a configuration default: SLA_ESCROW_PROGRAM_ID replaces it): both ids are the
 * normative ABI's "Deployed program addresses" (docs/sla-escrow-abi.md "Program ids").
 */
export const SLA_ESCROW_CLUSTER_DEFAULTS = {
  mainnet: { programId: "SEscZ6n23pVak34xipBKoGCikHUj3w6XPNyty4rHprJ" },
  devnet: { programId: "s5zkKiy8FD9nFdAhQZoHHV3G8s4QCPzE4cR9U4Hr4ZH" },
} satisfies Record<ClusterName, { programId: string }>;
