/**
 * The two slow steps of serving the Worker as `npm start` does, done once and reused by every Worker started after:
 * the production bundle (`wrangler deploy --dry-run --outdir`) and a database with the D1 migrations applied
 * (`wrangler d1 migrations apply --local`). Each start then copies the migrated database into a directory of its own
 * and serves the same bundle: the same files `npm start` would make, without two wrangler processes per start (a test
 * run or a benchmark starts many Workers).
 *
 * A bundle is made per entry module (a benchmark's wrapper is another entry); the migrated database depends only on
 * migrations/ and wrangler.toml's D1 binding, so every entry module's Workers start from the same one. The two steps
 * run at once: each spends much of its time waiting on its own wrangler child.
 *
 * Templates live under WORKER_TEMPLATES_DIR when it is set (the e2e project's global setup makes one directory per
 * test run, test/e2e-global-setup.ts, so its test files, each in a process of its own, share them), else in a temporary
 * directory of this process, removed when it exits. A template part appears in its directory by one rename once
 * complete: processes preparing the same one at once never see half of it, the first rename wins and the others drop
 * their copy. The directory is the caller's to make fresh: a template is never rebuilt when the sources change.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { access, mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { applyLocalMigrations, bundleWorker, LOCAL_ENTRY } from "./serve-worker";

export const WORKER_TEMPLATES_ENV = "WORKER_TEMPLATES_DIR";

export interface WorkerTemplate {
  /** The bundle of the entry module (serveWorker's `bundleDir` with `bundled: true`). */
  bundleDir: string;
  /** A persistence root with the migrations applied: copy it, never serve from it. */
  stateDir: string;
}

const prepared = new Map<string, Promise<string>>();
let processDir: string | undefined;

/**
 * The template of `entrypoint` (default: serveWorker's, wrangler.toml's `main` behind the local edge), prepared on
 * first use.
 */
export async function workerTemplate(entrypoint?: string): Promise<WorkerTemplate> {
  const [bundleDir, stateDir] = await Promise.all([
    preparedOnce(bundleName(entrypoint), (dir) => bundleWorker(dir, entrypoint ?? LOCAL_ENTRY)),
    preparedOnce("migrated-state", applyLocalMigrations),
  ]);
  return { bundleDir, stateDir };
}

/** The directory `name` under the templates root, made by `make` unless this or another process already made it. */
function preparedOnce(name: string, make: (dir: string) => Promise<void>): Promise<string> {
  let part = prepared.get(name);
  if (!part) {
    part = prepare(path.join(templatesRoot(), name), make);
    // A failed preparation is not remembered: the next start tries again and reports its own error.
    part.catch(() => prepared.delete(name));
    prepared.set(name, part);
  }
  return part;
}

async function prepare(dir: string, make: (dir: string) => Promise<void>): Promise<string> {
  if (await exists(dir)) return dir;
  const scratch = await mkdtemp(`${dir}.preparing-`);
  try {
    await make(scratch);
    await rename(scratch, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another process finished the same part first.
      if ((error.code === "ENOTEMPTY" || error.code === "EEXIST") && (await exists(dir))) return;
      throw error;
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return dir;
}

function templatesRoot(): string {
  const shared = process.env[WORKER_TEMPLATES_ENV];
  if (shared) return shared;
  if (!processDir) {
    const dir = mkdtempSync(path.join(tmpdir(), "x402-worker-templates-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    processDir = dir;
  }
  return processDir;
}

/**
 * "bundle-main", or a short hash of the entry module's path as given (bench/ceiling-worker/index.ts and others).
 */
function bundleName(entrypoint: string | undefined): string {
  if (!entrypoint) return "bundle-main";
  return `bundle-${createHash("sha256").update(entrypoint).digest("hex").slice(0, 16)}`;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
