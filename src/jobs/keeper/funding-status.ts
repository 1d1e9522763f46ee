import { isBlockhashStillValid } from "../../chain/blockhash";
import { readSignatureStatuses } from "../../chain/confirm";
import type { Config } from "../../platform/config/load-config";
import { KEEPER_BLOCKHASH_CHECKS } from "./budget";

/**
 * What the chain says of a watched funding:
 * - confirmed: it executed and succeeded (so it created the Payment account);
 * - failed: it executed and failed (it never created anything);
 * - expired: the cluster has no trace of it and its blockhash expired, so it never will land;
 * - unknown: still in flight, or not looked at in this run (the row is looked at again soon).
 */
export type FundingStatus =
  | { kind: "confirmed" }
  | { kind: "failed"; err: unknown }
  | { kind: "expired" }
  | { kind: "unknown" };

/**
 * How long a funding without a recorded blockhash (rows from before 0007) may stay unseen before it counts as expired.
 */
const LEGACY_FUNDING_GRACE_MS = 10 * 60_000;

export interface FundingToCheck {
  fundingSignature: string;
  fundingBlockhash: string | null;
  createdAtMs: number;
}

/**
 * Reads the statuses of the given fundings (with the transaction history, 256 per call), then asks whether the
 * blockhash of those never seen is still valid (at most KEEPER_BLOCKHASH_CHECKS distinct blockhashes a run).
 */
export async function readFundingStatuses(
  config: Config,
  fundings: readonly FundingToCheck[],
  nowMs: number,
): Promise<Map<string, FundingStatus>> {
  const statuses = await readStatuses(config, [...new Set(fundings.map((f) => f.fundingSignature))]);
  const validity = new Map<string, boolean>();
  for (const funding of fundings) {
    if (statuses.has(funding.fundingSignature)) continue;
    if (funding.fundingBlockhash === null) {
      statuses.set(
        funding.fundingSignature,
        nowMs - funding.createdAtMs >= LEGACY_FUNDING_GRACE_MS ? { kind: "expired" } : { kind: "unknown" },
      );
      continue;
    }
    if (!validity.has(funding.fundingBlockhash)) {
      if (validity.size >= KEEPER_BLOCKHASH_CHECKS) {
        statuses.set(funding.fundingSignature, { kind: "unknown" });
        continue;
      }
      validity.set(funding.fundingBlockhash, await isBlockhashStillValid(config, funding.fundingBlockhash));
    }
    statuses.set(
      funding.fundingSignature,
      validity.get(funding.fundingBlockhash) ? { kind: "unknown" } : { kind: "expired" },
    );
  }
  // A funding may have landed between the status read and the blockhash's expiry: look once more before giving up on
  // it.
  const expired = [...statuses].filter(([, status]) => status.kind === "expired").map(([signature]) => signature);
  for (const [signature, status] of await readStatuses(config, expired)) statuses.set(signature, status);
  return statuses;
}

async function readStatuses(config: Config, signatures: readonly string[]): Promise<Map<string, FundingStatus>> {
  const statuses = new Map<string, FundingStatus>();
  const read = await readSignatureStatuses(config, signatures, { searchTransactionHistory: true });
  read.forEach((status, i) => {
    if (status.kind === "not_found") return;
    statuses.set(signatures[i]!, status.kind === "processing" ? { kind: "unknown" } : status);
  });
  return statuses;
}
