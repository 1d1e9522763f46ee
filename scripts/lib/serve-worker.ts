/**
 * Serves the Worker locally the way `npm start` does: the bundle `wrangler deploy` would upload (built with
 * `wrangler deploy --dry-run --outdir`) behind the local edge (./local-entry/index.ts: what only Cloudflare may set on
 * a request is stripped, as a caller could forge it here), run by Miniflare in workerd with the bindings wrangler.toml
 * declares (D1, KV, Rate Limiting, Analytics Engine, [vars]) and local persistence.
 *
 * Why not `wrangler dev`: it puts a dev-only proxy in front of the Worker (a second workerd process and a Durable
 * Object hop per request, there so the port survives live reloads): measured here with `npm run bench`, about 1.5 ms
 * of CPU per /verify, half again what the Worker itself spends. A service that is not being edited needs no live
 * reload; `npm run dev` keeps wrangler dev for that.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Log, LogLevel, Miniflare, type WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { LOCAL_VARS } from "./local-vars";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER_CONFIG = path.join(ROOT, "wrangler.toml");
const WRANGLER_CLI = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const WORKER_NAME = "x402-solana-facilitator";
const STATIC_FILES_WORKER = "static-files";
/** wrangler.toml's `main` behind the local edge. */
export const LOCAL_ENTRY = "scripts/lib/local-entry/index.ts";

export interface ServeWorkerOptions {
  /** Directory for the bundle (index.js and its text modules); written anew on every start unless `bundled`. */
  bundleDir: string;
  /** `bundleDir` already holds the bundle `bundleWorker` wrote for `entrypoint`: serve it as it is. */
  bundled?: boolean;
  /** Local persistence root, the same one `wrangler d1 migrations apply --local --persist-to <root>` writes under. */
  persistRoot: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * Bindings layered over wrangler.toml's [vars] and LOCAL_VARS (plain values and secrets alike are strings); no
   * .dev.vars is read.
   */
  bindings: Record<string, string>;
  /** Where the Worker's console output goes, line by line; default: this process's stdout/stderr. */
  onOutput?: (line: string) => void;
  /** Chrome DevTools protocol port of workerd's inspector (npm run profile); absent = no inspector. */
  inspectorPort?: number;
  /** Miniflare's own log level (the Worker's console output is always forwarded). */
  logLevel?: LogLevel;
  /** Another entry module instead of ./local-entry/index.ts (a benchmark's wrapper, which wraps that one in turn). */
  entrypoint?: string;
  /**
   * Serve through Miniflare's entry worker with `unsafeTriggerHandlers`, so `GET /cdn-cgi/handler/scheduled?cron=`
   * runs the Worker's Cron Trigger handler on the same port (npm start). Costs the entry worker's hop per request
   * (see below); tests and benchmarks that do not trigger jobs keep the direct socket.
   */
  triggerHandlers?: boolean;
}

export interface ServedWorker {
  url: string;
  /** wrangler.toml's Cron Triggers (top-level [triggers] crons). */
  crons: string[];
  miniflare: Miniflare;
  dispose(): Promise<void>;
}

export async function serveWorker(options: ServeWorkerOptions): Promise<ServedWorker> {
  const entrypoint = options.entrypoint ?? LOCAL_ENTRY;
  if (!options.bundled) await bundleWorker(options.bundleDir, entrypoint);
  const { workerOptions, configVars } = withWranglerLogLevel("warn", () => {
    const config = unstable_readConfig({ config: WRANGLER_CONFIG });
    return {
      workerOptions: unstable_getMiniflareWorkerOptions(config).workerOptions,
      configVars: Object.keys(config.vars ?? {}),
    };
  });
  // wrangler folds .dev.vars into these bindings; keep only wrangler.toml's [vars], the caller passes its secrets.
  const configBindings = pick(workerOptions.bindings ?? {}, configVars);
  const { assets, ...facilitatorOptions } = workerOptions;
  const miniflare = new Miniflare({
    workers: [
      {
        ...facilitatorOptions,
        name: WORKER_NAME,
        modules: true,
        // wrangler names the bundle after its entry file (bench/directory-search-worker.ts →
        // directory-search-worker.js).
        scriptPath: path.join(options.bundleDir, `${path.parse(entrypoint).name}.js`),
        modulesRoot: options.bundleDir,
        bindings: { ...configBindings, ...LOCAL_VARS, ...options.bindings },
        ...(assets ? { serviceBindings: { ...facilitatorOptions.serviceBindings, ASSETS: STATIC_FILES_WORKER } } : {}),
        // The Worker answers on its own socket, without Miniflare's entry worker in front (a second isolate and a
        // request copy per call, ~0.25 ms of CPU per request here). Miniflare's own port stays on a free loopback port.
        // With triggerHandlers the entry worker serves the port instead: only it answers /cdn-cgi/handler/*.
        ...(options.triggerHandlers ? {} : { unsafeDirectSockets: [{ host: options.host, port: options.port }] }),
      },
      ...(assets ? [staticFilesWorker(assets, facilitatorOptions.compatibilityDate)] : []),
    ],
    host: options.triggerHandlers ? options.host : "127.0.0.1",
    port: options.triggerHandlers ? options.port : 0,
    unsafeTriggerHandlers: options.triggerHandlers ?? false,
    defaultPersistRoot: path.join(options.persistRoot, "v3"),
    // Request.cf stays a local placeholder: nothing is fetched from workers.cloudflare.com.
    cf: false,
    // No per-request log line through Node: the Worker logs what matters itself.
    logRequests: false,
    log: new Log(options.logLevel ?? LogLevel.WARN),
    ...(options.inspectorPort === undefined ? {} : { inspectorPort: options.inspectorPort }),
    ...(options.onOutput ? { handleRuntimeStdio: lineByLine(options.onOutput) } : {}),
  });
  const entryUrl = await miniflare.ready;
  const url = options.triggerHandlers ? entryUrl.origin : (await miniflare.unsafeGetDirectURL(WORKER_NAME)).origin;
  return { url, miniflare, crons: cronsOfConfig(), dispose: () => miniflare.dispose() };
}

/**
 * wrangler.toml's [assets] as a Worker of their own, which the facilitator reaches through its ASSETS binding for the
 * paths it answers from static/ (src/http/static-files.ts). Not Miniflare's assets on the facilitator itself: those put
 * Miniflare's asset router in front of every request, which here cost 2-4x the latency of a trivial Worker and reset
 * keep-alive connections after POSTs with a body (30-300 `fetch failed` in 1,600 POSTs, measured with Miniflare
 * 4.20260421). The files, their types, ETags and static/_headers are the ones Cloudflare serves.
 */
function staticFilesWorker(
  assets: NonNullable<WorkerOptions["assets"]>,
  compatibilityDate: string | undefined,
): WorkerOptions {
  return {
    name: STATIC_FILES_WORKER,
    modules: true,
    script: "export default { fetch: () => new Response(null, { status: 404 }) };",
    ...(compatibilityDate ? { compatibilityDate } : {}),
    assets: { ...assets, binding: undefined, routerConfig: { ...assets.routerConfig, has_user_worker: false } },
  };
}

/** The Cron Trigger expressions wrangler.toml declares for the Worker `npm start` serves. */
export function cronsOfConfig(): string[] {
  return withWranglerLogLevel("warn", () => unstable_readConfig({ config: WRANGLER_CONFIG }).triggers?.crons ?? []);
}

/**
 * Waits until `url` answers with a status below 500: proof that the Worker's code runs, not only that workerd listens.
 */
export async function waitForAnswer(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status < 500) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the Worker did not answer ${url} within ${timeoutMs / 1000} s (${last})`);
}

/** `wrangler deploy --dry-run --outdir`: the production bundle, nothing uploaded. */
export function bundleWorker(outDir: string, entrypoint?: string): Promise<void> {
  const args = ["deploy", "--dry-run", "--outdir", outDir];
  if (entrypoint) args.push(path.resolve(ROOT, entrypoint));
  return runWrangler(args, "bundling the Worker");
}

/** `wrangler d1 migrations apply DB --local --persist-to <root>`: the local database `serveWorker` then opens. */
export function applyLocalMigrations(persistRoot: string): Promise<void> {
  return runWrangler(
    ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistRoot],
    "applying D1 migrations",
  );
}

/**
 * One wrangler CLI command against wrangler.toml, non-interactive; its output is shown only if it fails. No time limit:
 * the command works offline and ends on its own, and how long it takes depends on the machine's load (a limit killed
 * it on a busy machine); whoever waits bounds the wait. Its output goes to a file, not a pipe: a wrangler whose parent
 * died writing into a closed pipe was seen spinning for hours and growing to gigabytes; writing to a file it finishes
 * and exits. It is killed when this process exits first.
 */
async function runWrangler(args: string[], what: string): Promise<void> {
  const outputDir = await mkdtemp(path.join(tmpdir(), "x402-wrangler-"));
  const outputFile = path.join(outputDir, "output.log");
  const output = openSync(outputFile, "w");
  try {
    const child = spawn(process.execPath, [WRANGLER_CLI, ...args, "--config", WRANGLER_CONFIG], {
      cwd: ROOT,
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      stdio: ["ignore", output, output],
    });
    const killChild = () => child.kill("SIGKILL");
    process.once("exit", killChild);
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve({ code, signal }));
    }).finally(() => process.off("exit", killChild));
    if (ended.code !== 0) {
      const how = ended.signal ? `killed by ${ended.signal}` : `exit ${ended.code}`;
      throw new Error(`${what} failed (${how}):\n${await readFile(outputFile, "utf8")}`);
    }
  } finally {
    closeSync(output);
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** wrangler's config readers announce the .dev.vars they read (and we then drop); keep them quiet. */
function withWranglerLogLevel<T>(level: string, read: () => T): T {
  const previous = process.env.WRANGLER_LOG;
  process.env.WRANGLER_LOG = level;
  try {
    return read();
  } finally {
    if (previous === undefined) delete process.env.WRANGLER_LOG;
    else process.env.WRANGLER_LOG = previous;
  }
}

function lineByLine(onLine: (line: string) => void): (stdout: Readable, stderr: Readable) => void {
  return (stdout, stderr) => {
    for (const stream of [stdout, stderr]) createInterface({ input: stream }).on("line", onLine);
  };
}

function pick<T>(values: Record<string, T>, keys: string[]): Record<string, T> {
  return Object.fromEntries(keys.filter((key) => key in values).map((key) => [key, values[key] as T]));
}
