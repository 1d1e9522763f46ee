import type { Config } from "../config/load-config";

/** A payment rail (x402 scheme) as discovery sees it. Rails are listed in /supported only once they verify and settle. */
export interface Rail {
  scheme: "exact" | "sla-escrow";
  /** `extra` advertised for this scheme in `/supported` (numbers as decimal strings). */
  supportedExtra(config: Config): Promise<Record<string, unknown>>;
}
