import type { Config } from "../platform/config/load-config";
import { readSignatureStatuses } from "./confirm";
import { RPC_KEYS_PER_CALL } from "./rpc";

export type LandedStatus = { kind: "confirmed" } | { kind: "failed"; err: unknown };

/** getSignatureStatuses takes at most 256 signatures per call. */
export const MAX_SIGNATURES_PER_STATUS_READ = RPC_KEYS_PER_CALL.getSignatureStatuses;
const CONFIRM_POLL_INTERVAL_MS = 400;

/**
 * Polls the statuses of many of the facilitator's own transactions (sweeps, keeper payouts) for at most `maxPolls`
 * rounds; a signature missing from the map did not land (or not yet) within them.
 */
export async function confirmAll(
  config: Config,
  signatures: readonly string[],
  maxPolls: number,
): Promise<Map<string, LandedStatus>> {
  const resolved = new Map<string, LandedStatus>();
  for (let poll = 0; poll < maxPolls; poll++) {
    const open = signatures.filter((s) => !resolved.has(s));
    if (open.length === 0) break;
    if (poll > 0) await new Promise((resolve) => setTimeout(resolve, CONFIRM_POLL_INTERVAL_MS));
    const statuses = await readSignatureStatuses(config, open, { searchTransactionHistory: false });
    statuses.forEach((status, i) => {
      if (status.kind === "confirmed" || status.kind === "failed") resolved.set(open[i]!, status);
    });
  }
  return resolved;
}
