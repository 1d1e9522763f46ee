/**
 * The chain state: one LiteSVM plus what litesvm does not model the way a cluster does — a
 * wall-clock driven slot/time (synced into the Clock sysvar), the 150-block blockhash window and
 * the landed-transaction ledger. Transaction processing lives in transaction-pipeline.ts.
 */
import { type Address, address } from "@solana/kit";
import { Clock, EpochSchedule, FailedTransactionMetadata, LiteSVM, SimulatedTransactionInfo } from "litesvm";
import type { LiteSvm as NativeLiteSvm } from "litesvm/dist/internal";
import type { LocalAccount } from "./account-encoding";
import { BlockhashWindow, type IssuedBlockhash } from "./blockhash-window";
import { ChainClock, SLOT_DURATION_MS, SLOTS_PER_EPOCH } from "./chain-clock";
import type { RealTiming } from "./real-timing";
import { readMint } from "./token-accounts";
import { DEFAULT_MAX_LEDGER_ENTRIES, type LedgerEntry, TransactionLedger } from "./transaction-ledger";
import { decodeBase58, toBase58 } from "./wire-transaction";

/** What getVersion reports and every `context.apiVersion` carries. */
export const LOCALNET_SOLANA_CORE_VERSION = "3.0.10";
export const LOCALNET_FEATURE_SET = 3_294_202_862;

export interface LocalChainOptions {
  clock?: ChainClock;
  maxLedgerEntries?: number;
  /** Receives one line per notable event (dropped transactions, …). */
  log?: (line: string) => void;
  /** TEST-ONLY (benchmark): confirmation after a slot time instead of at once (real-timing.ts). */
  realTiming?: RealTiming | null;
}

/** What PubSub subscribers need to hear about. */
export type ChainEvent =
  | { type: "slot"; slot: bigint }
  | { type: "transaction"; entry: LedgerEntry }
  /** Accounts changed; `pubkeys` names them when they were written directly (not by a transaction). */
  | { type: "accounts"; pubkeys?: string[] }
  /** The clock was moved on purpose (test-only warps). */
  | { type: "warp" };

export interface RpcContext {
  slot: bigint;
  apiVersion: string;
}

export class LocalChain {
  readonly svm: LiteSVM;
  /**
   * The napi object behind `svm` (a private field of litesvm 1.5's wrapper). Account reads go
   * straight to it: the wrapper re-encodes every address through base58 on each call, which made
   * reading a transaction's accounts the most expensive step of sending it.
   */
  private readonly native: NativeLiteSvm;
  private readonly pubkeyBytesCache = new Map<string, Uint8Array>();
  private readonly ownerCache = new Map<string, string>();
  readonly clock: ChainClock;
  readonly blockhashes = new BlockhashWindow();
  readonly ledger: TransactionLedger;
  /**
   * TEST-ONLY: transactions paid by these fee payers stay at "processed" for the given milliseconds after landing,
   * as on a busy cluster, so that clients' confirmation timeouts can be exercised.
   */
  readonly confirmationLagMs = new Map<string, number>();
  readonly realTiming: RealTiming | null;
  readonly log: (line: string) => void;
  private readonly listeners = new Set<(event: ChainEvent) => void>();
  private syncedSlot = -1n;
  private syncedUnixTimestamp = -1n;

  constructor(options: LocalChainOptions = {}) {
    this.clock = options.clock ?? new ChainClock();
    this.ledger = new TransactionLedger(options.maxLedgerEntries ?? DEFAULT_MAX_LEDGER_ENTRIES);
    this.log = options.log ?? (() => {});
    this.realTiming = options.realTiming ?? null;
    this.svm = new LiteSVM()
      // The blockhash window and the status cache are emulated here (litesvm accepts only its
      // newest blockhash and remembers ~32 signatures); signatures are verified here too, so
      // that simulateTransaction can run unsigned transactions (sigVerify: false).
      .withBlockhashCheck(false)
      .withSigverify(false)
      .withTransactionHistory(0n)
      .withNativeMints();
    this.native = (this.svm as unknown as { inner: NativeLiteSvm }).inner;
    this.svm.setEpochSchedule(new EpochSchedule(SLOTS_PER_EPOCH, SLOTS_PER_EPOCH, false, 0n, 0n));
    this.sync();
  }

  /**
   * Brings litesvm up to the current slot and time: sets the Clock sysvar and issues a fresh
   * blockhash whenever the slot moved. Called at the start of every RPC request, so the chain
   * needs no timer.
   */
  sync(): { slot: bigint; blockHeight: bigint } {
    const slot = this.clock.slot();
    const blockHeight = this.clock.blockHeightOfSlot(slot);
    const unixTimestamp = this.clock.unixTimestamp();
    if (slot !== this.syncedSlot || unixTimestamp !== this.syncedUnixTimestamp) {
      const epoch = this.clock.epoch(slot);
      const slotIndex = slot - epoch * SLOTS_PER_EPOCH;
      const epochStartTimestamp = unixTimestamp - (slotIndex * BigInt(SLOT_DURATION_MS)) / 1000n;
      this.svm.setClock(new Clock(slot, epochStartTimestamp, epoch, epoch + 1n, unixTimestamp));
      this.syncedUnixTimestamp = unixTimestamp;
    }
    if (slot !== this.syncedSlot) {
      // litesvm's blockhash also seeds durable nonces, so rotate it with the slot.
      this.svm.expireBlockhash();
      this.blockhashes.record(this.svm.latestBlockhash(), slot, blockHeight);
      this.blockhashes.prune(blockHeight);
      this.ledger.prune(blockHeight);
      this.syncedSlot = slot;
      this.emit({ type: "slot", slot });
    }
    return { slot, blockHeight };
  }

  /** Registers a listener; returns its removal function. */
  onEvent(listener: (event: ChainEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: ChainEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** Stores a landed transaction and tells subscribers. */
  recordTransaction(entry: LedgerEntry): void {
    this.ledger.add(entry);
    this.emit({ type: "transaction", entry });
    this.emit({ type: "accounts" });
  }

  /**
   * When a landed transaction reports "confirmed": its real-timing confirmation or its fee payer's test-only lag,
   * whichever is later.
   */
  confirmedAtMs(entry: LedgerEntry): number {
    const lag = this.confirmationLagMs.get(entry.accountKeys[0] ?? "");
    return lag === undefined ? entry.confirmedAtMs : Math.max(entry.confirmedAtMs, entry.landedAtMs + lag);
  }

  context(): RpcContext {
    return { slot: this.sync().slot, apiVersion: LOCALNET_SOLANA_CORE_VERSION };
  }

  latestBlockhash(): IssuedBlockhash {
    this.sync();
    return this.blockhashes.latest();
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.blockhashes.isValid(blockhash, this.sync().blockHeight);
  }

  warpSlots(slots: bigint): void {
    this.clock.warpSlots(slots);
    this.sync();
    this.emit({ type: "warp" });
  }

  warpSeconds(seconds: bigint): void {
    this.clock.warpSeconds(seconds);
    this.sync();
    this.emit({ type: "warp" });
  }

  getAccount(pubkey: string): LocalAccount | null {
    const account = this.native.getAccount(this.pubkeyBytes(pubkey));
    if (account === null) return null;
    return {
      lamports: account.lamports(),
      data: account.data(),
      owner: this.ownerAddress(account.owner()),
      executable: account.executable(),
    };
  }

  /**
   * Simulates serialised transaction bytes as they came over the wire. litesvm's own simulateTransaction takes a kit
   * Transaction and re-encodes it with freshly built codecs on every call, which cost the chain more CPU per
   * simulateTransaction than the execution itself; the native call takes the bytes as they are.
   */
  simulateWireBytes(
    wireBytes: Uint8Array,
    messageBytes: Uint8Array,
  ): FailedTransactionMetadata | SimulatedTransactionInfo {
    const result = isVersioned(messageBytes)
      ? this.native.simulateVersionedTransaction(wireBytes)
      : this.native.simulateLegacyTransaction(wireBytes);
    return result instanceof FailedTransactionMetadata ? result : new SimulatedTransactionInfo(result);
  }

  /** Executes serialised transaction bytes (see simulateWireBytes for why not litesvm's kit-typed entry point). */
  sendWireBytes(wireBytes: Uint8Array, messageBytes: Uint8Array): ReturnType<LiteSVM["sendTransaction"]> {
    return isVersioned(messageBytes)
      ? this.native.sendVersionedTransaction(wireBytes)
      : this.native.sendLegacyTransaction(wireBytes);
  }

  /** Lamports only (no copy of the data: program accounts are large). */
  getBalance(pubkey: string): bigint {
    return this.native.getBalance(this.pubkeyBytes(pubkey)) ?? 0n;
  }

  private pubkeyBytes(pubkey: string): Uint8Array {
    let bytes = this.pubkeyBytesCache.get(pubkey);
    if (bytes === undefined) {
      bytes = decodeBase58(pubkey);
      if (this.pubkeyBytesCache.size >= 100_000) this.pubkeyBytesCache.clear();
      this.pubkeyBytesCache.set(pubkey, bytes);
    }
    return bytes;
  }

  /** Owners repeat (System, Token, …): remember their base58 form. */
  private ownerAddress(bytes: Uint8Array): string {
    const key = Buffer.from(bytes).toString("latin1");
    let owner = this.ownerCache.get(key);
    if (owner === undefined) {
      owner = toBase58(bytes);
      if (this.ownerCache.size >= 10_000) this.ownerCache.clear();
      this.ownerCache.set(key, owner);
    }
    return owner;
  }

  setAccount(pubkey: string, account: LocalAccount): void {
    this.svm.setAccount({
      address: address(pubkey),
      lamports: account.lamports as never,
      data: account.data,
      programAddress: address(account.owner),
      executable: account.executable,
      space: BigInt(account.data.length),
    });
    this.emit({ type: "accounts", pubkeys: [pubkey] });
  }

  /** Program-owned accounts (getProgramAccounts / getTokenAccountsByOwner). */
  getProgramAccounts(programId: string): { pubkey: string; account: LocalAccount }[] {
    return this.svm.getProgramAccounts(address(programId)).map((account) => ({
      pubkey: account.address,
      account: {
        lamports: account.lamports,
        data: account.data as Uint8Array,
        owner: account.programAddress,
        executable: account.executable,
      },
    }));
  }

  mintDecimals(mint: string): number | null {
    const account = this.getAccount(mint);
    return account ? (readMint(account.owner, account.data)?.decimals ?? null) : null;
  }

  minimumBalanceForRentExemption(dataLength: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(dataLength);
  }

  addProgramFromFile(programId: string, soPath: string): void {
    this.svm.addProgramFromFile(address(programId) as Address, soPath);
  }
}

/** A versioned message starts with 0x80 | version; a legacy one with its signer count (< 128). */
function isVersioned(messageBytes: Uint8Array): boolean {
  return (messageBytes[0]! & 0x80) !== 0;
}
