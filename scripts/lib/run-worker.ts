/**
 * Runs the real Worker on a loopback port the way `npm start` serves it (scripts/lib/serve-worker.ts: the production
 * bundle in workerd through Miniflare), for end-to-end tests and benchmarks that must talk to it over HTTP exactly as
 * clients do.
 *
 *   const worker = await startWorker({ rpcUrl, feePayerSecretKeyBase58 });
 *   fetch(`${worker.url}/api/v1/facilitator/health`) ... ; await worker.stop();
 *
 * Local D1 and KV live in a fresh temporary directory (deleted by stop()), a copy of a database the D1 migrations were
 * applied to with `wrangler d1 migrations apply --local`, the way `npm start` prepares its database; the bundle and
 * that database are made once per entry module (scripts/lib/worker-template.ts). Secrets are passed as bindings; no
 * .dev.vars file is read.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { LogLevel, type Miniflare } from "miniflare";
import { freeLoopbackPort } from "./free-port";
import { serveWorker, waitForAnswer } from "./serve-worker";
import { workerTemplate } from "./worker-template";

const READY_TIMEOUT_MS = 90_000;

export interface StartWorkerOptions {
  /** JSON-RPC URL of the Solana cluster the Worker talks to (the local chain). */
  rpcUrl: string;
  /** The fee payer's 64-byte keypair, base58 (the FEE_PAYER_SECRET_KEY secret). */
  feePayerSecretKeyBase58: string;
  /** Loopback port; 0 or absent picks a free one. */
  port?: number;
  /** Extra plain-text variables (e.g. SVC_BUILD_RATE_LIMIT_PER_MINUTE) layered over wrangler.toml [vars]. */
  vars?: Record<string, string>;
  /** Extra secrets layered over the defaults below. */
  secrets?: Record<string, string>;
  /** Another entry module instead of wrangler.toml's `main` (e.g. the benchmark's instrumented wrapper). */
  entrypoint?: string;
  /** Miniflare's log level; default "error" (the Worker's own console output is always forwarded). */
  logLevel?: "none" | "error" | "warn" | "info" | "debug";
  /** Open workerd's inspector (Chrome DevTools protocol) on a free loopback port, for `npm run profile`. */
  inspector?: boolean;
  /**
   * Serve as `npm start` does, answering `GET /cdn-cgi/handler/scheduled?cron=` (Miniflare's entry worker in front).
   */
  triggerHandlers?: boolean;
}

export interface RunningWorker {
  /** Origin, e.g. http://127.0.0.1:38123 (no trailing slash); the API lives under /api/v1/facilitator. */
  url: string;
  /** The inspector's origin (targets listed at /json) when `inspector` was asked for, else null. */
  inspectorUrl: string | null;
  /** Where local D1, KV and the Durable Objects keep their files (under the temporary directory; gone after stop()). */
  stateDir: string;
  /**
   * The Worker's local D1 database (binding DB), read through Miniflare: what a test checks beside the HTTP answers.
   */
  database(): ReturnType<Miniflare["getD1Database"]>;
  stop(): Promise<void>;
}

const LOG_LEVELS = {
  none: LogLevel.NONE,
  error: LogLevel.ERROR,
  warn: LogLevel.WARN,
  info: LogLevel.INFO,
  debug: LogLevel.DEBUG,
} as const;

export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  const template = await workerTemplate(options.entrypoint);
  const workDir = await mkdtemp(path.join(tmpdir(), "x402-worker-"));
  try {
    const persistRoot = path.join(workDir, "state");
    await cp(template.stateDir, persistRoot, { recursive: true });
    const inspectorPort = options.inspector ? await freeLoopbackPort() : undefined;
    const served = await serveWorker({
      bundleDir: template.bundleDir,
      bundled: true,
      persistRoot,
      host: "127.0.0.1",
      port: options.port ?? 0,
      bindings: {
        SOLANA_RPC_URL: options.rpcUrl,
        FEE_PAYER_SECRET_KEY: options.feePayerSecretKeyBase58,
        SVC_OPERATOR_TOKEN: "run-worker-operator-token",
        CHALLENGE_MAC_KEY: "run-worker-challenge-mac-key-0123456789",
        ...options.vars,
        ...options.secrets,
      },
      logLevel: LOG_LEVELS[options.logLevel ?? "error"],
      onOutput: workerOutputFilter(options.logLevel ?? "error"),
      ...(options.entrypoint ? { entrypoint: options.entrypoint } : {}),
      ...(inspectorPort === undefined ? {} : { inspectorPort }),
      ...(options.triggerHandlers ? { triggerHandlers: true } : {}),
    });
    const stop = async () => {
      await served.dispose().catch(() => {});
      await rm(workDir, { recursive: true, force: true });
    };
    try {
      await waitForAnswer(`${served.url}/api/v1/facilitator/health`, READY_TIMEOUT_MS);
      return {
        url: served.url,
        inspectorUrl: inspectorPort === undefined ? null : `http://127.0.0.1:${inspectorPort}`,
        stateDir: persistRoot,
        database: () => served.miniflare.getD1Database("DB"),
        stop,
      };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
}

/** The Worker's own console lines at or above the level asked for (its structured lines carry "level"). */
function workerOutputFilter(level: NonNullable<StartWorkerOptions["logLevel"]>): (line: string) => void {
  const shown = { none: /$^/, error: /error/i, warn: /"level":"warn"|error/i, info: /./, debug: /./ }[level];
  return (line) => {
    if (shown.test(line)) console.log(`[worker] ${line}`);
  };
}
