import type { Signature } from "@solana/kit";
import type { Config } from "../config/load-config";
import { rpcCall, solanaRpc } from "./rpc";

export type LandedStatus = { kind: "confirmed" } | { kind: "failed"; err: unknown };

/** getSignatureStatuses takes at most 256 signatures per call. */
export const MAX_SIGNATURES_PER_STATUS_READ = 256;
const CONFIRM_POLL_INTERVAL_MS = 400;

/**
 * Polls the statuses of many of the facilitator's own transactions (sweeps, keeper payouts) for at most `maxPolls`
 * rounds; a signature missing from the map did not land (or not yet) within them.
 */
export async function confirmAll(config: Config, signatures: readonly string[], maxPolls: number): Promise<Map<string, LandedStatus>> {
  const resolved = new Map<string, LandedStatus>();
  for (let poll = 0; poll < maxPolls; poll++) {
    const open = signatures.filter((s) => !resolved.has(s));
    if (open.length === 0) break;
    if (poll > 0) await new Promise((resolve) => setTimeout(resolve, CONFIRM_POLL_INTERVAL_MS));
    for (let start = 0; start < open.length; start += MAX_SIGNATURES_PER_STATUS_READ) {
      const chunk = open.slice(start, start + MAX_SIGNATURES_PER_STATUS_READ);
      const { value } = await rpcCall(config, "getSignatureStatuses", solanaRpc(config).getSignatureStatuses(chunk as Signature[]));
      value.forEach((status, i) => {
        if (!status) return;
        if (status.err) resolved.set(chunk[i]!, { kind: "failed", err: status.err });
        else if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") resolved.set(chunk[i]!, { kind: "confirmed" });
      });
    }
  }
  return resolved;
}
