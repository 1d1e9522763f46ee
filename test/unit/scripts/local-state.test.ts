/**
 * `npm start`'s state directories (scripts/lib/local-state.ts): the local chain's journal and its database are kept
 * together, and where they cannot be, both start over with a notice that says what was reset.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHAIN_JOURNAL_VERSION } from "../../../localnet/chain-journal";
import { prepareLocalState } from "../../../scripts/lib/local-state";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

function stateRoot(): string {
  root = mkdtempSync(path.join(tmpdir(), "local-state-"));
  return root;
}

/** A local-chain directory with a database and, optionally, a journal. */
function localChainWith(rootDir: string, journal: string | null): string {
  const directory = path.join(rootDir, "local-chain");
  mkdirSync(path.join(directory, "v3", "d1"), { recursive: true });
  writeFileSync(path.join(directory, "v3", "d1", "db.sqlite"), "rows");
  if (journal !== null) writeFileSync(path.join(directory, "chain.jsonl"), journal);
  return directory;
}

const JOURNAL = `${JSON.stringify({ t: "meta", version: CHAIN_JOURNAL_VERSION, chainId: "c", createdAtMs: 1 })}\n`;

describe("npm start's local state", () => {
  it("keeps a chain and its database that belong together, and says nothing", () => {
    const directory = localChainWith(stateRoot(), JOURNAL);
    const state = prepareLocalState(root, { kind: "local" }, { reset: false });
    expect(state).toEqual({ directory, journal: path.join(directory, "chain.jsonl"), notice: null });
    expect(existsSync(path.join(directory, "v3", "d1", "db.sqlite"))).toBe(true);
  });

  it("resets a database whose chain journal is gone, and says so", () => {
    const directory = localChainWith(stateRoot(), null);
    const state = prepareLocalState(root, { kind: "local" }, { reset: false });
    expect(existsSync(path.join(directory, "v3"))).toBe(false);
    expect(state.notice).toMatch(/held a database but no chain journal.*reset with the new chain/);
  });

  it("moves an unreadable journal aside and resets its database with it", () => {
    const directory = localChainWith(stateRoot(), "not\na\njournal\n");
    const state = prepareLocalState(root, { kind: "local" }, { reset: false });
    expect(existsSync(path.join(directory, "v3"))).toBe(false);
    expect(existsSync(path.join(directory, "chain.jsonl"))).toBe(false);
    expect(readdirSync(directory).some((name) => name.startsWith("chain.jsonl.unreadable-"))).toBe(true);
    expect(state.notice).toMatch(/could not be read.*starts over, its database reset with it/);
  });

  it("--reset removes the chain and its database and says so; a cluster's database lives apart", () => {
    const directory = localChainWith(stateRoot(), JOURNAL);
    const state = prepareLocalState(root, { kind: "local" }, { reset: true });
    expect(existsSync(directory)).toBe(false);
    expect(state.notice).toMatch(/^reset: removed .*local-chain \(the local chain and its database\)/);
    const cluster = prepareLocalState(
      root,
      { kind: "cluster", genesisHash: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1" },
      {
        reset: false,
      },
    );
    expect(cluster).toEqual({ directory: path.join(root, "cluster-EtWTRABZaYq6"), journal: null, notice: null });
  });
});
