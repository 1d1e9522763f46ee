import { afterAll, beforeAll } from "vitest";
import { fundFromFaucet } from "../../../demo/chain-rpc";
import { type RunningLocalnet, startLocalnet } from "../../../localnet/server";
import { type LocalKeypair, randomKeypair } from "../../../scripts/lib/keypair";
import { type RunningWorker, type StartWorkerOptions, startWorker } from "../../../scripts/lib/run-worker";

export interface LocalWorker {
  /** The local chain this file started (its own: tests may warp its clock). */
  readonly chain: RunningLocalnet;
  /** The Worker as `npm start` serves it (workerd, the production bundle, local D1 and KV). */
  readonly worker: RunningWorker;
  /** `${worker.url}/api/v1/facilitator`. */
  readonly api: string;
  /** The Worker's fee payer, funded on the chain. */
  readonly feePayer: LocalKeypair;
}

export interface LocalWorkerOptions extends Omit<StartWorkerOptions, "rpcUrl" | "feePayerSecretKeyBase58"> {
  /** Lamports the faucet gives the fee payer before the Worker starts. */
  feePayerLamports: number;
  /** How long start-up may take (the chain, a copy of the migrated database, workerd until it answers). */
  startTimeoutMs?: number;
}

/**
 * For an end-to-end test file: a fresh local chain, a funded fee payer and the Worker started on loopback before
 * the file's tests (`beforeAll`), stopped after them (`afterAll`). Read the fields inside hooks and tests only.
 */
export function withLocalWorker({
  feePayerLamports,
  startTimeoutMs = 300_000,
  ...workerOptions
}: LocalWorkerOptions): LocalWorker {
  let started: { chain: RunningLocalnet; worker: RunningWorker; feePayer: LocalKeypair } | undefined;
  let chain: RunningLocalnet | undefined;
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    chain = await startLocalnet({ port: 0, quiet: true });
    const feePayer = randomKeypair();
    await fundFromFaucet(chain.url, feePayer.address, feePayerLamports);
    worker = await startWorker({
      ...workerOptions,
      rpcUrl: chain.url,
      feePayerSecretKeyBase58: feePayer.secretKeyBase58,
    });
    started = { chain, worker, feePayer };
  }, startTimeoutMs);
  afterAll(async () => {
    await worker?.stop();
    await chain?.close();
  }, 60_000);
  const ready = () => {
    if (!started)
      throw new Error("withLocalWorker: the local Worker is not started yet (use it inside hooks and tests)");
    return started;
  };
  return {
    get chain() {
      return ready().chain;
    },
    get worker() {
      return ready().worker;
    },
    get api() {
      return `${ready().worker.url}/api/v1/facilitator`;
    },
    get feePayer() {
      return ready().feePayer;
    },
  };
}
