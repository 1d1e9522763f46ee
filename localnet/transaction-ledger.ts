/**
 * Everything that landed (successful or failed, both pay fees), in landing order. It answers
 * getSignatureStatuses / getTransaction / getSignaturesForAddress and is the status cache that
 * rejects a re-sent transaction with AlreadyProcessed (litesvm's own history is switched off: it
 * keeps ~32 entries only).
 *
 * Memory stays bounded: past `maxEntries`, the oldest entries whose blockhash has expired are dropped
 * (an expired duplicate is rejected as BlockhashNotFound anyway, as on a real node).
 */
import { createHash } from "node:crypto";
import type { RpcTransactionError } from "./transaction-errors";
import type { WireTransaction } from "./wire-transaction";

export const DEFAULT_MAX_LEDGER_ENTRIES = 500_000;

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

export interface InnerInstructionRecord {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: Uint8Array; stackHeight: number }[];
}

export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

export interface LedgerEntry {
  signature: string;
  slot: bigint;
  blockTime: bigint;
  transaction: WireTransaction;
  loadedAddresses: LoadedAddresses;
  /** Static keys followed by the writable and readonly loaded keys (the runtime's account order). */
  accountKeys: string[];
  err: RpcTransactionError | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  innerInstructions: InnerInstructionRecord[];
  computeUnitsConsumed: bigint;
  returnData: { programId: string; data: Uint8Array } | null;
  /** After this block height the blockhash is dead, so the entry no longer guards against duplicates. */
  lastValidBlockHeight: bigint;
  /** Wall-clock landing time, for the test-only confirmation lag. */
  landedAtMs: number;
  /** Wall-clock time from which it reports "confirmed" (= landedAtMs unless the chain runs with real timing). */
  confirmedAtMs: number;
}

export class TransactionLedger {
  private readonly bySignature = new Map<string, LedgerEntry>();
  /** The status cache's key, as Agave's: the message hash, so a copy with other signatures is a duplicate too. */
  private readonly byMessageHash = new Map<string, LedgerEntry>();
  /** Landing order; `head` skips dropped entries without shifting the array on every prune. */
  private ordered: LedgerEntry[] = [];
  private head = 0;
  private landedCount = 0n;

  constructor(private readonly maxEntries = DEFAULT_MAX_LEDGER_ENTRIES) {}

  get transactionCount(): bigint {
    return this.landedCount;
  }

  add(entry: LedgerEntry): void {
    this.bySignature.set(entry.signature, entry);
    this.byMessageHash.set(messageHashOf(entry.transaction.messageBytes), entry);
    this.ordered.push(entry);
    this.landedCount++;
  }

  get(signature: string): LedgerEntry | undefined {
    return this.bySignature.get(signature);
  }

  /** The landed transaction with these exact message bytes, whatever its signatures. */
  getByMessage(messageBytes: Uint8Array): LedgerEntry | undefined {
    return this.byMessageHash.get(messageHashOf(messageBytes));
  }

  prune(currentBlockHeight: bigint): void {
    while (this.bySignature.size > this.maxEntries) {
      const oldest = this.ordered[this.head];
      if (oldest === undefined || oldest.lastValidBlockHeight >= currentBlockHeight) break;
      this.bySignature.delete(oldest.signature);
      const hash = messageHashOf(oldest.transaction.messageBytes);
      if (this.byMessageHash.get(hash) === oldest) this.byMessageHash.delete(hash);
      this.head++;
    }
    if (this.head > 10_000 && this.head * 2 > this.ordered.length) {
      this.ordered = this.ordered.slice(this.head);
      this.head = 0;
    }
  }

  /** Newest first, like getSignaturesForAddress; `before`/`until` are exclusive signature bounds. */
  *newestFirstMentioning(address: string, before?: string, until?: string): Generator<LedgerEntry> {
    let started = before === undefined;
    for (let index = this.ordered.length - 1; index >= this.head; index--) {
      const entry = this.ordered[index];
      if (entry === undefined) continue;
      if (!started) {
        if (entry.signature === before) started = true;
        continue;
      }
      if (entry.signature === until) return;
      if (entry.accountKeys.includes(address)) yield entry;
    }
  }
}

function messageHashOf(messageBytes: Uint8Array): string {
  return createHash("sha256").update(messageBytes).digest("base64");
}
