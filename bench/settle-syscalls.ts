/**
 * Diagnostic: the disk syncs and CPU of sequential /settle calls on one ledger, counted with strace on the Worker's
 * workerd process (local D1 and the settle ledger's objects are SQLite files there; each fsync is a wait on this
 * machine's disk that the reference facilitator, which has no database, never pays).
 *
 *   SVC_SETTLE_LEDGER=object|d1 tsx bench/settle-syscalls.ts [settles]
 */
import { spawn } from "node:child_process";
import type { PaymentPayload } from "@x402/core/types";
import { benchWorkerWithSeller, fundedBuyers, mustSucceed, paymentFactory, post, WARMUP_SETTLES } from "./bench";
import { fmt, median, runPhase } from "./measure";
import { cpuMsOf, workerdChildrenOf } from "./process-cpu";

const SETTLES = Number(process.argv[2] ?? 30);

async function main(): Promise<void> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const { chain, api, line } = await benchWorkerWithSeller(cleanups);
    const makePayments = paymentFactory(chain, await fundedBuyers(chain, 4), line);
    const call = (p: PaymentPayload) => post(`${api}/settle`, "settle", p, line);
    mustSucceed("warm-up settle", await runPhase(await makePayments(WARMUP_SETTLES), 1, call));
    const pids = workerdChildrenOf(process.pid);
    const settles = await makePayments(SETTLES);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the warm-up's mirrors and alarms settle first
    const strace = spawn(
      "strace",
      [
        "-f",
        "-c",
        "-e",
        "trace=fsync,fdatasync,pwrite64,openat,unlinkat",
        ...pids.flatMap((pid) => ["-p", String(pid)]),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let report = "";
    strace.stderr.on("data", (chunk: Buffer) => (report += chunk.toString()));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpuBefore = cpuMsOf(pids);
    const phase = await runPhase(settles, 1, call);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last settle's after-response writes
    const cpuAfter = cpuMsOf(pids);
    mustSucceed("settle", phase);
    strace.kill("SIGINT");
    await new Promise((resolve) => strace.on("exit", resolve));
    const calls = (name: string) =>
      Number(
        report
          .split("\n")
          .find((l) => l.trim().endsWith(` ${name}`))
          ?.trim()
          .split(/\s+/)[3] ?? 0,
      );
    console.log(
      `${process.env.SVC_SETTLE_LEDGER ?? "object (default)"} ledger: ${SETTLES} sequential settles, median ${fmt(median(phase.latenciesMs), 2)} ms, ` +
        `workerd CPU ${cpuBefore === null || cpuAfter === null ? "n/a" : fmt((cpuAfter - cpuBefore) / SETTLES, 2)} ms per settle (under strace), ` +
        `per settle: fsync ${fmt((calls("fsync") + calls("fdatasync")) / SETTLES, 2)}, pwrite ${fmt(calls("pwrite64") / SETTLES, 1)}, openat ${fmt(calls("openat") / SETTLES, 1)}, unlink ${fmt(calls("unlinkat") / SETTLES, 1)}`,
    );
  } finally {
    for (const step of cleanups.reverse()) await step().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`settle-syscalls failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
