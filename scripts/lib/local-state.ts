/**
 * Where `npm start` keeps its state, so that a restart finds the chain and the database as it left them, together:
 * one directory per chain under `.wrangler/state/`, holding that chain's local database (D1, KV, Durable Objects) and,
 * for the local chain, the chain itself (its journal, localnet/chain-journal.ts). A database is never opened against a
 * chain it was not written for: where the two cannot be kept together (`--reset`, a journal that is gone or
 * unreadable) both start over, and `describe` says so in words.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { readChainJournal, UnreadableChainJournal } from "../../localnet/chain-journal";

/** `genesisHash`: the cluster's, with a suffix of the caller's (e.g. a chain on this machine that borrows devnet's). */
export type ChainKind = { kind: "local" } | { kind: "cluster"; genesisHash: string };

export interface LocalState {
  /** The chain's directory: the Worker's persistence root (`v3/` under it) and the local chain's journal. */
  directory: string;
  /** The local chain's journal file (local chain only). */
  journal: string | null;
  /** What happened to earlier state, in words, for the start-up banner (null: nothing to say). */
  notice: string | null;
}

const LOCAL_DIRECTORY = "local-chain";
const JOURNAL_FILE = "chain.jsonl";
const DATABASE_DIRECTORY = "v3";

/** The state directory of `chain` under `stateRoot`, made consistent before anything opens it. */
export function prepareLocalState(stateRoot: string, chain: ChainKind, options: { reset: boolean }): LocalState {
  const directory = path.join(
    stateRoot,
    chain.kind === "local"
      ? LOCAL_DIRECTORY
      : `cluster-${chain.genesisHash.slice(0, 12)}${chain.genesisHash.endsWith("-loopback") ? "-loopback" : ""}`,
  );
  const relative = path.relative(process.cwd(), directory) || directory;
  const database = path.join(directory, DATABASE_DIRECTORY);
  const journal = chain.kind === "local" ? path.join(directory, JOURNAL_FILE) : null;
  const hadState = existsSync(directory);

  if (options.reset) {
    rmSync(directory, { recursive: true, force: true });
    return {
      directory,
      journal,
      notice: hadState
        ? `reset: ` +
          `removed ${relative} (${
            chain.kind === "local" ? "the local chain and its " + "database" : "this cluster's local database"
          }); ` +
          `starting ` +
          `empty`
        : null,
    };
  }
  if (journal === null) return { directory, journal, notice: null };

  if (existsSync(journal)) {
    try {
      readChainJournal(journal);
      return { directory, journal, notice: null };
    } catch (error) {
      if (!(error instanceof UnreadableChainJournal)) throw error;
      const aside = `${journal}.unreadable-${Date.now()}`;
      renameSync(journal, aside);
      rmSync(database, { recursive: true, force: true });
      return {
        directory,
        journal,
        notice:
          `the local chain's journal could not be read ` +
          `(${error.message}); it was moved to ${path.relative(process.cwd(), aside)} ` +
          "and the local chain starts over, its database reset with it (sellers, registrations, settlements, " +
          "resources)",
      };
    }
  }
  if (existsSync(database)) {
    rmSync(database, { recursive: true, force: true });
    return {
      directory,
      journal,
      notice:
        `${relative} held a database but no chain journal (the local chain it was written for is gone): ` +
        "the database was reset with the new chain (sellers, registrations, settlements, resources)",
    };
  }
  return { directory, journal, notice: null };
}
