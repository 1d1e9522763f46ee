import type { RailConfigSlice } from "../platform/config/rail-config";
import { exactConfig } from "./exact/config";
import { slaEscrowConfig } from "./sla-escrow/config";
import { uptoConfig } from "./upto/config";

/**
 * The rails' configuration slices (`rails/<scheme>/config.ts`), in registry order. The configuration is read before
 * any rail module is built and every layer reads it, so this list sits apart from `RAILS` (registry.ts), whose modules
 * import nearly everything: it imports only the slices. A rail with configuration keys is one more line here.
 */
export const RAIL_CONFIG_SLICES = [exactConfig, slaEscrowConfig, uptoConfig] as const;

type SliceMembers<S> = S extends RailConfigSlice<infer _Entries, infer Members> ? Members : never;
type Intersection<U> = (U extends unknown ? (members: U) => void : never) extends (members: infer I) => void ? I : never;

/** What the slices add to `Config` (platform/config/load-config.ts). */
export type RailConfigMembers = Intersection<SliceMembers<(typeof RAIL_CONFIG_SLICES)[number]>>;
