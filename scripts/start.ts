/**
 * `npm start`: the whole service on this machine.
 *   1. local secrets in .dev.vars (fee payer key generated on first start),
 *   2. the local chain on 127.0.0.1:8899 (skipped when SOLANA_RPC_URL points at a real cluster),
 *   3. D1 migrations applied to the local database,
 *   4. the fee payer funded (local chain only),
 *   5. the Worker in workerd (wrangler dev) on http://127.0.0.1:8787.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureDevVars } from "./lib/dev-vars";
import { keypairFromSeed } from "./lib/keypair";
import { base58 } from "@scure/base";
import { startLocalnet } from "../localnet/server";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WORKER_PORT = Number(process.env.PORT ?? 8787);
const LOCALNET_PORT = Number(process.env.LOCALNET_PORT ?? 8899);
const FEE_PAYER_FUNDING_LAMPORTS = 100_000_000_000; // 100 SOL of local play money
const WRANGLER_BIN = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

async function main() {
  const vars = ensureDevVars(path.join(ROOT, ".dev.vars"));
  const feePayer = keypairFromSeed(base58.decode(vars.FEE_PAYER_SECRET_KEY!).slice(0, 32));

  const externalRpc = process.env.SOLANA_RPC_URL;
  let rpcUrl = externalRpc ?? `http://127.0.0.1:${LOCALNET_PORT}`;
  let closeLocalnet = async () => {};
  if (!externalRpc) {
    const localnet = await startLocalnet({ port: LOCALNET_PORT, quiet: true });
    rpcUrl = localnet.url;
    closeLocalnet = localnet.close;
    await rpc(rpcUrl, "requestAirdrop", [feePayer.address, FEE_PAYER_FUNDING_LAMPORTS]);
    console.log(`local chain      ${rpcUrl}  (presents itself as devnet)`);
  } else {
    console.log(`Solana RPC       ${externalRpc}  (fund the fee payer ${feePayer.address} yourself)`);
  }

  const migrate = spawnSync(process.execPath, [WRANGLER_BIN, "d1", "migrations", "apply", "DB", "--local"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true" },
    encoding: "utf8",
  });
  if (migrate.status !== 0) {
    console.error(migrate.stdout, migrate.stderr);
    throw new Error("applying D1 migrations failed");
  }

  const args = [WRANGLER_BIN, "dev", "--ip", "127.0.0.1", "--port", String(WORKER_PORT), "--var", `SOLANA_RPC_URL:${rpcUrl}`, "--show-interactive-dev-session=false"];
  if (externalRpc && process.env.SOLANA_CLUSTER) args.push("--var", `SOLANA_CLUSTER:${process.env.SOLANA_CLUSTER}`);
  // wrangler runs in its own process group (it starts workerd children), so stopping ends all of them.
  const worker = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    detached: true,
  });
  forwardOutput(worker);

  const stop = async () => {
    if (worker.pid !== undefined) {
      try {
        process.kill(-worker.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await closeLocalnet();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.on("SIGHUP", stop);
  worker.on("exit", async (code) => {
    console.error(`wrangler dev exited (${code})`);
    await closeLocalnet();
    process.exit(code ?? 1);
  });

  const base = `http://127.0.0.1:${WORKER_PORT}`;
  await waitForHttp(`${base}/api/v1/facilitator/health`, 90_000);
  console.log(`
facilitator      ${base}/api/v1/facilitator/
capabilities     ${base}/api/v1/facilitator/capabilities
openapi          ${base}/openapi.json
fee payer        ${feePayer.address}

try:  curl ${base}/api/v1/facilitator/health
(Ctrl-C stops the Worker and the local chain)`);
}

function forwardOutput(child: ChildProcess) {
  // wrangler's offline-only chatter: telemetry notice and the failed lookup of Cloudflare's `Request.cf` data.
  const quietNoise = /^\s*$|Ready on|⎔|wrangler \d|─{3,}|Your Worker has access|telemetry|Request\.cf|getaddrinfo|GetAddrInfoReqWrap|callbackTrampoline/;
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      for (const line of chunk.split("\n")) if (!quietNoise.test(line)) process.stdout.write(`[worker] ${line}\n`);
    });
  }
}

async function waitForHttp(url: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

async function rpc(url: string, method: string, params: unknown[]) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { error?: { message: string }; result?: unknown };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
