/**
 * Runs the real Worker (src/index.ts through wrangler's bundler, inside workerd) on a loopback port, for
 * end-to-end tests and benchmarks that must talk to it over HTTP exactly as clients do.
 *
 *   const worker = await startWorker({ rpcUrl, feePayerSecretKeyBase58 });
 *   fetch(`${worker.url}/api/v1/facilitator/health`) ... ; await worker.stop();
 *
 * Local D1 and KV live in a fresh temporary directory (deleted by stop()); the D1 migrations are applied to it
 * with `wrangler d1 migrations apply --local` first, the same way `npm start` prepares its database. Secrets are
 * passed as bindings, so no .dev.vars file is needed (bindings given here override one if it exists).
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_DevEnv } from "wrangler";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER_CONFIG = path.join(ROOT, "wrangler.toml");
const WRANGLER_CLI = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const MIGRATIONS_TIMEOUT_MS = 60_000;
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
  /** wrangler's log level; default "error" (set "log" to see the Worker's own log lines). */
  logLevel?: "none" | "error" | "warn" | "info" | "log" | "debug";
  /** Open wrangler's inspector (Chrome DevTools protocol) on a free loopback port, for `npm run profile`. */
  inspector?: boolean;
}

export interface RunningWorker {
  /** Origin, e.g. http://127.0.0.1:38123 (no trailing slash); the API lives under /api/v1/facilitator. */
  url: string;
  /**
   * The same Worker without wrangler's dev-only proxy in front (a second workerd process that `wrangler dev` and
   * `url` go through). Null if this wrangler version did not reveal it. For benchmarks; tests should use `url`.
   */
  directUrl: string | null;
  /** The inspector's origin (ws list at /json) when `inspector` was asked for, else null. */
  inspectorUrl: string | null;
  stop(): Promise<void>;
}

export async function startWorker(options: StartWorkerOptions): Promise<RunningWorker> {
  // Loopback only: miniflare would otherwise fetch the `Request.cf` placeholder from workers.cloudflare.com.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  const persistDir = await mkdtemp(path.join(tmpdir(), "x402-worker-"));
  try {
    await applyMigrations(persistDir);
    const bindings: Record<string, { type: "plain_text" | "secret_text"; value: string }> = {
      SOLANA_RPC_URL: { type: "plain_text", value: options.rpcUrl },
      FEE_PAYER_SECRET_KEY: { type: "secret_text", value: options.feePayerSecretKeyBase58 },
      SVC_SWEEP_CRON_TOKEN: { type: "secret_text", value: "run-worker-sweep-token" },
      CHALLENGE_MAC_KEY: { type: "secret_text", value: "run-worker-challenge-mac-key-0123456789" },
    };
    for (const [name, value] of Object.entries(options.vars ?? {})) bindings[name] = { type: "plain_text", value };
    for (const [name, value] of Object.entries(options.secrets ?? {})) bindings[name] = { type: "secret_text", value };

    // startWorker() through a DevEnv of our own, to read the user Worker's address from the reload event.
    const devEnv = new unstable_DevEnv();
    let directUrl: string | null = null;
    const dispatch = devEnv.dispatch.bind(devEnv);
    devEnv.dispatch = (event) => {
      const proxyData = event.type === "reloadComplete" ? (event as { proxyData?: { userWorkerUrl?: { protocol: string; hostname: string; port: string } } }).proxyData : undefined;
      const target = proxyData?.userWorkerUrl;
      if (target) directUrl = `${target.protocol}//${target.hostname}:${target.port}`;
      dispatch(event);
    };
    const worker = await devEnv.startWorker({
      config: WRANGLER_CONFIG,
      ...(options.entrypoint ? { entrypoint: path.resolve(ROOT, options.entrypoint) } : {}),
      sendMetrics: false,
      bindings,
      envFiles: [],
      // startWorker does not derive this from compatibility_flags the way `wrangler dev` does; without it the
      // bundler refuses node built-ins (events, path) that @solana/kit's node builds import. nodejs_compat → v2.
      build: { nodejsCompatMode: "v2" },
      dev: {
        server: { hostname: "127.0.0.1", port: options.port ?? 0 },
        inspector: options.inspector ? { hostname: "127.0.0.1", port: 0 } : false,
        persist: persistDir,
        watch: false,
        liveReload: false,
        logLevel: options.logLevel ?? "error",
        remote: false,
        enableContainers: false,
      },
    });
    const stop = async () => {
      await worker.dispose().catch(() => {});
      await rm(persistDir, { recursive: true, force: true });
    };
    try {
      await withTimeout(worker.ready, READY_TIMEOUT_MS, "the Worker did not become ready");
      const url = (await worker.url).origin;
      await waitForHealth(`${url}/api/v1/facilitator/health`, READY_TIMEOUT_MS);
      const direct = directUrl as string | null;
      const directAnswers = direct !== null && (await answers(`${direct}/api/v1/facilitator/health`));
      const inspectorUrl = options.inspector ? ((await worker.inspectorUrl)?.origin ?? null) : null;
      return { url, directUrl: directAnswers ? direct : null, inspectorUrl, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    await rm(persistDir, { recursive: true, force: true });
    throw error;
  }
}

/** `wrangler d1 migrations apply DB --local --persist-to <dir>`: the same SQL and bookkeeping table as `npm start`. */
function applyMigrations(persistDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [WRANGLER_CLI, "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir, "--config", WRANGLER_CONFIG],
      { cwd: ROOT, env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), MIGRATIONS_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`applying D1 migrations failed (exit ${code}):\n${output}`));
    });
  });
}

/** `ready` can resolve before a failed bundle surfaces; only a real answer proves the Worker runs. */
async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
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

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return response.status < 500;
  } catch {
    return false;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
