import type { Config } from "../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../platform/config/networks";
import type { PaymentRequiredBody } from "./schemas";

/**
 * The mint a symbol names on this deployment's network: "USDC", "USDT" (where the network has one) and "SOL" (native
 * SOL, the allowlist's all-zero address); null for anything else. The seller routes take these names; an x402 line
 * carries the mint.
 */
export function mintOfSymbol(config: Config, symbol: string): string | null {
  const upper = symbol.trim().toUpperCase();
  if (upper === "SOL") return NATIVE_SOL_ALLOWLIST_ADDRESS;
  if (upper === "USDC") return config.mints.usdc;
  if (upper === "USDT") return config.mints.usdt;
  return null;
}

/**
 * A naive 402 body may name its asset as the seller routes do ("USDC"): each line for this network (or naming none)
 * gets the mint instead, so the enriched body is one a buyer can pay. Other lines and fields are left as they are.
 */
export function withMintAddresses(config: Config, body: PaymentRequiredBody): PaymentRequiredBody {
  let changed = false;
  const accepts = body.accepts.map((line) => {
    if (typeof line !== "object" || line === null) return line;
    const { asset, network } = line as { asset?: unknown; network?: unknown };
    if (typeof asset !== "string" || (network !== undefined && network !== config.network)) return line;
    const mint = mintOfSymbol(config, asset);
    if (mint === null) return line;
    changed = true;
    return { ...line, asset: mint };
  });
  return changed ? { ...body, accepts } : body;
}
