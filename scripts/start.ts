/**
 * `npm start`: the whole service on this machine.
 *   1. local secrets in .dev.vars (fee payer key generated on first start),
 *   2. the local chain on 127.0.0.1:8899 (skipped when SOLANA_RPC_URL points at a real cluster), kept between runs
 *      together with its database in .wrangler/state/local-chain (scripts/lib/local-state.ts; `--reset` starts over),
 *   3. D1 migrations applied to the local database,
 *   4. the fee payer topped up (local chain only),
 *   5. the Worker on http://127.0.0.1:8787: the production bundle (`wrangler deploy --dry-run`) behind the local edge
 *      (scripts/lib/local-entry/) in workerd through Miniflare, without wrangler dev's live-reload proxy
 *      (scripts/lib/serve-worker.ts; `npm run dev` has it),
 *      answering `GET /cdn-cgi/handler/scheduled?cron=<expression>` (a job run on demand),
 * 6. each Cron Trigger of wrangler.toml run on its schedule (UTC), as Cloudflare runs them
 * (scripts/lib/cron-runner.ts).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { base58 } from "@scure/base";
import { startLocalnet } from "../localnet/server";
import { startCronRunner, triggerScheduled } from "./lib/cron-runner";
import { ensureDevVars } from "./lib/dev-vars";
import { keypairFromSeed } from "./lib/keypair";
import { localnetPort, workerPort } from "./lib/local-ports";
import { type ChainKind, prepareLocalState } from "./lib/local-state";
import { applyLocalMigrations, serveWorker, waitForAnswer } from "./lib/serve-worker";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FEE_PAYER_FUNDING_LAMPORTS = 100_000_000_000; // 100 SOL of local play money
const RESET = process.argv.slice(2).includes("--reset");

async function main() {
  const portOfWorker = workerPort();
  const portOfChain = localnetPort();
  const vars = ensureDevVars(path.join(ROOT, ".dev.vars"));
  const feePayer = keypairFromSeed(base58.decode(vars.FEE_PAYER_SECRET_KEY!).slice(0, 32));

  const externalRpc = process.env.SOLANA_RPC_URL;
  const chainKind: ChainKind = externalRpc
    ? { kind: "cluster", genesisHash: await genesisHashOf(externalRpc) }
    : { kind: "local" };
  const state = prepareLocalState(path.join(ROOT, ".wrangler", "state"), chainKind, { reset: RESET });
  if (state.notice) console.log(`note: ${state.notice}`);
  let rpcUrl = externalRpc ?? `http://127.0.0.1:${portOfChain}`;
  let closeLocalnet = async () => {};
  if (!externalRpc) {
    const localnet = await startLocalnet({ port: portOfChain, quiet: true, statePath: state.journal! });
    rpcUrl = localnet.url;
    closeLocalnet = localnet.close;
    await topUp(rpcUrl, feePayer.address, FEE_PAYER_FUNDING_LAMPORTS);
    const kept = path.relative(ROOT, state.directory);
    const restored = localnet.persisted?.restored;
    console.log(
      `local chain      ${rpcUrl}  (presents itself as devnet; ` +
        (restored
          ? `the chain of the last run, begun ${new Date(restored.createdAtMs).toISOString()}, with its database: ` +
            `${restored.accounts} accounts and ${restored.transactions} transactions kept in ${kept}`
          : `a new chain, kept with its database in ${kept} from now on`) +
        "; `npm start -- --reset` starts both over)",
    );
  } else {
    console.log(`Solana RPC       ${externalRpc}  (fund the fee payer ${feePayer.address} yourself)`);
  }

  const persistRoot = state.directory;
  await applyLocalMigrations(persistRoot);

  const bindings: Record<string, string> = { ...vars, SOLANA_RPC_URL: rpcUrl };
  if (externalRpc && process.env.SOLANA_CLUSTER) bindings.SOLANA_CLUSTER = process.env.SOLANA_CLUSTER;
  const worker = await serveWorker({
    bundleDir: path.join(ROOT, ".wrangler", "start-bundle"),
    persistRoot,
    host: "127.0.0.1",
    port: portOfWorker,
    bindings,
    triggerHandlers: true,
    onOutput: (line) => {
      if (line.trim() !== "") console.log(`[worker] ${line}`);
    },
  });

  const base = `http://127.0.0.1:${portOfWorker}`;
  const cron = startCronRunner(
    worker.crons,
    async (expression, scheduledTimeMs) => {
      const startedAtMs = Date.now();
      await triggerScheduled(base, expression, scheduledTimeMs);
      console.log(`[cron] ${expression} ran (${Date.now() - startedAtMs} ms)`);
    },
    {
      onError: (expression, error) =>
        console.error(`[cron] ${expression} failed: ${error instanceof Error ? error.message : String(error)}`),
    },
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    cron.stop();
    await worker.dispose().catch(() => {});
    await closeLocalnet();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.on("SIGHUP", stop);

  await waitForAnswer(`${base}/api/v1/facilitator/health`, 90_000);
  console.log(`
page             ${base}/
seller console   ${base}/console
API root         ${base}/api/v1/facilitator/
openapi          ${base}/openapi.json
guides           ${base}/seller-quick-start.md  ${base}/quickstart-buyer.md
fee payer        ${feePayer.address}

cron triggers    ${cron
    .nextRuns()
    .map(({ cron: expression, atMs }) => `"${expression}" next ${new Date(atMs).toISOString()}`)
    .join(", ")}

try:  curl ${base}/api/v1/facilitator/health
run a job now:   curl "${base}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(worker.crons[0] ?? "")}"
(Ctrl-C stops the Worker and the local chain)`);
}

/** Brings the fee payer's balance up to `lamports` (the chain is kept between runs: no need to add it every time). */
async function topUp(url: string, wallet: string, lamports: number): Promise<void> {
  const { value } = (await rpc(url, "getBalance", [wallet])) as { value: number };
  if (value < lamports) await rpc(url, "requestAirdrop", [wallet, lamports - value]);
}

/**
 * The cluster's genesis hash names its local state directory (any RPC provider of one cluster shares it); a chain on
 * this machine (e.g. `npm run localnet`, which presents devnet's hash) is kept apart from the real cluster.
 */
async function genesisHashOf(url: string): Promise<string> {
  try {
    const hash = (await rpc(url, "getGenesisHash", [])) as string;
    return ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname) ? `${hash}-loopback` : hash;
  } catch (error) {
    throw new Error(
      `SOLANA_RPC_URL ${url} did not answer getGenesisHash ` +
        `(${error instanceof Error ? error.message : String(error)}): ` +
        "is it a Solana JSON-RPC URL this machine can reach?",
    );
  }
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
