/**
 * A newcomer's machine for the end-to-end run of the README and the guides (test/e2e/docs/guides-run.test.ts): a fresh
 * clone of this repository, projects of their own for the guides' code, and the commands they type, run as child
 * processes (a long-running one is waited for until it prints its ready line, and stopped like Ctrl-C stops it).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const REPOSITORY = path.join(import.meta.dirname, "../../..");

/**
 * A fresh clone: exactly the files git would give a newcomer — every tracked file (as it is in this working tree, so a
 * run before committing tests the change) and every new file not ignored, nothing git ignores (no `.dev.vars`, no
 * `.wrangler/` state, no build output) — in a new directory. `node_modules` is the one thing linked rather than
 * installed: it is what the README's `npm install` made for this checkout (CI runs exactly that command first), so a
 * second install would measure the registry, not this project.
 */
export function freshClone(into: string): string {
  const clone = path.join(into, "clone");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPOSITORY,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((file) => file !== "");
  for (const file of files) {
    const target = path.join(clone, file);
    mkdirSync(path.dirname(target), { recursive: true });
    try {
      copyFileSync(path.join(REPOSITORY, file), target);
    } catch (error) {
      // A file deleted in the working tree but still tracked: a clone of the change would not have it.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  linkDependencies(clone);
  return clone;
}

/** A newcomer's own project folder (a seller's, a buyer's) with the packages the guides tell them to install. */
export function ownProject(into: string, name: string): string {
  const project = path.join(into, name);
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  linkDependencies(project);
  return project;
}

/** The packages the guides name (hono, @x402/*, @solana/kit, tsx) are devDependencies here: linked, not downloaded. */
function linkDependencies(project: string): void {
  symlinkSync(path.join(REPOSITORY, "node_modules"), path.join(project, "node_modules"), "dir");
}

export function newcomerMachine(): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(tmpdir(), "newcomer-"));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Command {
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
}

/** The environment a command sees: this process's, minus what would point it at the test's own services. */
function environmentOf(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  for (const key of ["SOLANA_RPC_URL", "FACILITATOR_URL", "PORT", "LOCALNET_PORT", "NODE_OPTIONS"])
    delete inherited[key];
  return { ...inherited, ...env };
}

/** Runs a command to its end; resolves with its exit code and everything it printed. */
export function runToEnd(run: Command, timeoutMs = 300_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(run.command, run.args, { cwd: run.cwd, env: environmentOf(run.env), stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface LongRunning {
  /** Everything printed so far. */
  output(): string;
  /** Like Ctrl-C in its terminal: SIGINT to its whole process group; resolves when it has exited. */
  stop(): Promise<void>;
}

/** Starts a long-running command in its own process group and waits for `ready` in its output. */
export async function startUntil(run: Command, ready: RegExp, timeoutMs: number): Promise<LongRunning> {
  const child: ChildProcess = spawn(run.command, run.args, {
    cwd: run.cwd,
    env: environmentOf(run.env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on("exit", () => {
      exited = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`${run.command} ${run.args.join(" ")} was not ready within ${timeoutMs / 1000} s:\n${output}`),
        ),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${run.command} ${run.args.join(" ")} exited before it was ready:\n${output}`));
    });
  });
  return {
    output: () => output,
    async stop() {
      if (exited) return;
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        return;
      }
      const killLater = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {}
      }, 20_000);
      await exit;
      clearTimeout(killLater);
    },
  };
}
