import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { WORKER_TEMPLATES_ENV, workerTemplate } from "../scripts/lib/worker-template";

/**
 * The end-to-end files each start the Worker as `npm start` serves it (scripts/lib/run-worker.ts). The bundle and the
 * migrated database it starts from are made here, once per run, before any file runs (no hook's time limit applies
 * to this), in a directory the files' processes find through the environment; each Worker copies the database.
 * A fresh directory per run: the templates never outlive the sources they were made from.
 */
export default async function setup() {
  const dir = await mkdtemp(path.join(tmpdir(), "x402-e2e-templates-"));
  process.env[WORKER_TEMPLATES_ENV] = dir;
  await workerTemplate();
  return async () => {
    delete process.env[WORKER_TEMPLATES_ENV];
    await rm(dir, { recursive: true, force: true });
  };
}
