/**
 * `npm run bench:startup`: what a cold start of the Worker costs. Prints the production bundle's size (raw and gzip,
 * the number Cloudflare's 3 MiB / 10 MiB limits and the project's 300 KiB budget are about) and the workerd CPU it
 * takes to start the Worker: workerd's CPU (/proc) once the Worker answers, minus the same for an empty Worker
 * started the same way (Miniflare's own services cost the same in both), over several rounds. /proc counts in 10 ms
 * ticks, so single rounds are coarse; the median of the differences is the number to quote.
 *
 *   npm run bench:startup [-- <rounds>]
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { randomKeypair } from "../scripts/lib/keypair";
import { startWorker } from "../scripts/lib/run-worker";
import { bundleWorker } from "../scripts/lib/serve-worker";
import { median } from "./measure";
import { cpuMsOf, workerdChildrenOf } from "./process-cpu";

const ROUNDS = Number(process.argv[2] ?? 5);
// Named index.ts: the bundle takes the entry file's name, and the Worker is served from index.js.
const EMPTY_WORKER = "bench/empty-worker/index.ts";
/** Nothing listens here: starting must not depend on the chain (no RPC at module scope). */
const UNREACHABLE_RPC = "http://127.0.0.1:9";

async function bundleSize(): Promise<{ rawKiB: number; gzipKiB: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), "x402-bundle-"));
  try {
    await bundleWorker(dir);
    const code = await readFile(path.join(dir, "index.js"));
    return { rawKiB: code.length / 1024, gzipKiB: gzipSync(code).length / 1024 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** workerd CPU ms from spawn until the Worker answered its first request. */
async function startupCpuMs(entrypoint?: string): Promise<number> {
  const worker = await startWorker({
    rpcUrl: UNREACHABLE_RPC,
    feePayerSecretKeyBase58: randomKeypair().secretKeyBase58,
    logLevel: "none",
    ...(entrypoint ? { entrypoint } : {}),
  });
  try {
    const cpu = cpuMsOf(workerdChildrenOf(process.pid));
    if (cpu === null) throw new Error("bench:startup reads /proc (Linux only)");
    return cpu;
  } finally {
    await worker.stop();
  }
}

async function main(): Promise<void> {
  const size = await bundleSize();
  console.log(`bundle: ${size.rawKiB.toFixed(0)} KiB, gzip ${size.gzipKiB.toFixed(1)} KiB (budget 300 KiB gzip)`);
  const ours: number[] = [];
  const empty: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    ours.push(await startupCpuMs());
    empty.push(await startupCpuMs(EMPTY_WORKER));
    console.log(
      `round ${round}/${ROUNDS}: workerd CPU to first answer: ours ${ours.at(-1)} ms, empty Worker ${empty.at(-1)} ms`,
    );
  }
  const differences = ours.map((value, i) => value - empty[i]!);
  console.log(
    `startup CPU of the Worker (ours - empty, median ` +
      `of ${ROUNDS}): ${median(differences)} ms; rounds: [${differences.join(", ")}]`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
