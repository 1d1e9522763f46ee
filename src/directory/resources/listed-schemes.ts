/** The schemes a listed resource may be paid with (the directory lists only rails with a per-seller payTo). */
export const LISTED_SCHEMES = ["exact", "sla-escrow"] as const;
