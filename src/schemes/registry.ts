import type { Rail } from "./rail";
import { exactRail } from "./exact/rail";

/** Rails that verify and settle end to end, in the order `/supported` lists them (exact first). */
export const RAILS: readonly Rail[] = [exactRail];
