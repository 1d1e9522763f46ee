/**
 * The local chain kept on disk between runs (`npm start`), as solana-test-validator keeps its ledger: an append-only
 * journal of what changed — the accounts each landed transaction or direct write left behind, and the landed
 * transactions themselves (getTransaction, getSignatureStatuses and the duplicate check keep answering for them).
 * On the next start the seeded chain replays it: every journalled account is written back, the transactions return
 * to the ledger, and the slot resumes past the last one recorded, as a cluster's would have while it was away.
 *
 * A line is appended (synchronously) before the RPC call that caused it answers, so the journal never holds less than
 * a client — the Worker, and so its database — has seen. Opening compacts the journal to the accounts' final states
 * and the newest transactions. A torn last line (the process killed mid-write) is skipped.
 */
import { randomUUID } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { LocalAccount } from "./account-encoding";
import { SLOT_DURATION_MS } from "./chain-clock";
import type { ChainEvent, LocalChain } from "./local-chain";
import type { LedgerEntry } from "./transaction-ledger";
import { isStaticKeyWritable, parseWireTransaction } from "./wire-transaction";

export const CHAIN_JOURNAL_VERSION = 1;
/** Transactions kept when the journal is compacted: enough for a long local session's history. */
const KEPT_TRANSACTIONS = 20_000;

/** [pubkey, lamports, owner, executable, data base64], or [pubkey] for an account that no longer exists. */
type AccountLine = [string, string, string, boolean, string] | [string];

type JournalLine =
  | { t: "meta"; version: number; chainId: string; createdAtMs: number }
  | { t: "accounts"; slot: string; atMs: number; accounts: AccountLine[] }
  | { t: "tx"; slot: string; atMs: number; entry: unknown; accounts: AccountLine[] }
  | { t: "clock"; slot: string; atMs: number; warpedSeconds: string };

/** What a journal file holds, read before the chain is built (its clock resumes from it). */
export interface SavedChain {
  chainId: string;
  createdAtMs: number;
  /** The newest account state of every journalled address (null: closed). */
  accounts: Map<string, LocalAccount | null>;
  transactions: LedgerEntry[];
  lastSlot: bigint;
  lastAtMs: number;
  warpedSeconds: bigint;
}

export class UnreadableChainJournal extends Error {
  override name = "UnreadableChainJournal";
}

/**
 * The journal at `path`, or null when there is none; throws UnreadableChainJournal when it is not one this code wrote.
 */
export function readChainJournal(path: string): SavedChain | null {
  if (!existsSync(path)) return null;
  const lines = readFileSync(path, "utf8").split("\n");
  const parsed: JournalLine[] = [];
  for (const [index, text] of lines.entries()) {
    if (text === "") continue;
    try {
      parsed.push(JSON.parse(text, revive) as JournalLine);
    } catch (error) {
      // Only the last line can be torn by a crash; anything earlier means the file is not a journal.
      if (index >= lines.length - 2) break;
      throw new UnreadableChainJournal(`line ${index + 1} of ${path} is not JSON (${String(error)})`);
    }
  }
  const meta = parsed[0];
  if (meta?.t !== "meta") throw new UnreadableChainJournal(`${path} does not start with the journal's header`);
  if (meta.version !== CHAIN_JOURNAL_VERSION)
    throw new UnreadableChainJournal(`${path} is version ${meta.version}; this code reads ${CHAIN_JOURNAL_VERSION}`);
  const saved: SavedChain = {
    chainId: meta.chainId,
    createdAtMs: meta.createdAtMs,
    accounts: new Map(),
    transactions: [],
    lastSlot: 0n,
    lastAtMs: meta.createdAtMs,
    warpedSeconds: 0n,
  };
  for (const line of parsed.slice(1)) {
    if (line.t === "meta") continue;
    const slot = BigInt(line.slot);
    if (slot > saved.lastSlot) saved.lastSlot = slot;
    saved.lastAtMs = Math.max(saved.lastAtMs, line.atMs);
    if (line.t === "clock") saved.warpedSeconds = BigInt(line.warpedSeconds);
    else {
      for (const account of line.accounts) saved.accounts.set(account[0], accountOf(account));
      if (line.t === "tx") saved.transactions.push(ledgerEntryOf(line.entry));
    }
  }
  return saved;
}

/** The slot a chain resumes at: past the last one recorded by the slots that would have passed since. */
export function resumeSlotOf(saved: SavedChain, nowMs = Date.now()): bigint {
  const elapsedSlots = BigInt(Math.max(0, Math.floor((nowMs - saved.lastAtMs) / SLOT_DURATION_MS)));
  return saved.lastSlot + elapsedSlots + 1n;
}

export interface PersistedChain {
  path: string;
  chainId: string;
  /** What came back from the last run (null: a new chain). */
  restored: { accounts: number; transactions: number; createdAtMs: number } | null;
  close(): void;
}

/**
 * Replays `saved` (if any) into the freshly seeded `chain`, rewrites the journal compacted, and from then on appends
 * every change. Call after seeding: what the seed writes is written again on every start and is not journalled.
 */
export function persistChain(chain: LocalChain, path: string, saved: SavedChain | null): PersistedChain {
  const known = new Set<string>();
  if (saved) {
    chain.clock.warpSeconds(saved.warpedSeconds);
    for (const [pubkey, account] of saved.accounts) {
      chain.setAccount(pubkey, account ?? { lamports: 0n, data: new Uint8Array(), owner: SYSTEM, executable: false });
      known.add(pubkey);
    }
    for (const entry of saved.transactions) chain.ledger.add(entry);
  }
  const chainId = saved?.chainId ?? randomUUID();
  const createdAtMs = saved?.createdAtMs ?? Date.now();
  const kept = saved ? saved.transactions.slice(-KEPT_TRANSACTIONS) : [];
  writeCompacted(path, chain, { t: "meta", version: CHAIN_JOURNAL_VERSION, chainId, createdAtMs }, known, kept);

  const fd = openSync(path, "a");
  const append = (line: JournalLine) => writeSync(fd, `${JSON.stringify(line, replace)}\n`);
  const stamp = () => ({ slot: chain.clock.slot().toString(), atMs: Date.now() });
  const snapshot = (pubkeys: Iterable<string>): AccountLine[] => {
    const lines: AccountLine[] = [];
    for (const pubkey of pubkeys) {
      known.add(pubkey);
      lines.push(accountLine(pubkey, chain.getAccount(pubkey)));
    }
    return lines;
  };
  let warpedSeconds = saved?.warpedSeconds ?? 0n;
  const onEvent = (event: ChainEvent) => {
    if (event.type === "transaction") {
      const { entry } = event;
      append({ t: "tx", ...stamp(), entry: journalEntry(entry), accounts: snapshot(writableKeysOf(entry)) });
    } else if (event.type === "accounts" && event.pubkeys) {
      append({ t: "accounts", ...stamp(), accounts: snapshot(event.pubkeys) });
    } else if (event.type === "warp" && chain.clock.warpedSecondsTotal !== warpedSeconds) {
      warpedSeconds = chain.clock.warpedSecondsTotal;
      append({ t: "clock", ...stamp(), warpedSeconds: warpedSeconds.toString() });
    }
  };
  const stopListening = chain.onEvent(onEvent);
  let closed = false;
  return {
    path,
    chainId,
    restored: saved
      ? { accounts: saved.accounts.size, transactions: saved.transactions.length, createdAtMs: saved.createdAtMs }
      : null,
    close() {
      if (closed) return;
      closed = true;
      stopListening();
      closeSync(fd);
    },
  };
}

const SYSTEM = "11111111111111111111111111111111";

function writeCompacted(
  path: string,
  chain: LocalChain,
  meta: JournalLine,
  known: Set<string>,
  transactions: LedgerEntry[],
): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    const write = (line: JournalLine) => writeSync(fd, `${JSON.stringify(line, replace)}\n`);
    write(meta);
    const slot = chain.clock.slot().toString();
    const atMs = Date.now();
    for (const entry of transactions)
      write({ t: "tx", slot: entry.slot.toString(), atMs: entry.landedAtMs, entry: journalEntry(entry), accounts: [] });
    write({
      t: "accounts",
      slot,
      atMs,
      accounts: [...known].map((pubkey) => accountLine(pubkey, chain.getAccount(pubkey))),
    });
    write({ t: "clock", slot, atMs, warpedSeconds: chain.clock.warpedSecondsTotal.toString() });
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

/** The accounts a landed transaction may have changed: its writable keys, static and loaded. */
function writableKeysOf(entry: LedgerEntry): string[] {
  const { message } = entry.transaction;
  const staticKeys = message.staticAccountKeys.filter((_, index) => isStaticKeyWritable(message, index));
  return [...new Set([...staticKeys.map(String), ...entry.loadedAddresses.writable])];
}

function accountLine(pubkey: string, account: LocalAccount | null): AccountLine {
  if (account === null) return [pubkey];
  return [pubkey, account.lamports.toString(), account.owner, account.executable, toBase64(account.data)];
}

function accountOf(line: AccountLine): LocalAccount | null {
  if (line.length === 1) return null;
  const [, lamports, owner, executable, data] = line;
  return { lamports: BigInt(lamports), owner, executable, data: new Uint8Array(Buffer.from(data, "base64")) };
}

/** A ledger entry as written: the transaction as its wire bytes (parsed again on load). */
function journalEntry(entry: LedgerEntry): unknown {
  return { ...entry, transaction: entry.transaction.bytes };
}

function ledgerEntryOf(value: unknown): LedgerEntry {
  const entry = value as Omit<LedgerEntry, "transaction"> & { transaction: Uint8Array };
  return { ...entry, transaction: parseWireTransaction(entry.transaction) };
}

/**
 * JSON has no bigint or bytes: they travel as {"$n": "digits"} and {"$b": "base64"}. The holder's own value is read
 * (`this[key]`): a Buffer would otherwise reach the replacer already turned into its toJSON() form.
 */
function replace(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (typeof raw === "bigint") return { $n: raw.toString() };
  if (raw instanceof Uint8Array) return { $b: toBase64(raw) };
  return value;
}

function revive(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$n") return BigInt((value as { $n: string }).$n);
    if (keys.length === 1 && keys[0] === "$b")
      return new Uint8Array(Buffer.from((value as { $b: string }).$b, "base64"));
  }
  return value;
}

const toBase64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
