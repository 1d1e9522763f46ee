/**
 * Diagnostic: the disk syncs and CPU of sequential /settle calls on one ledger, counted with strace on the Worker's
 * workerd process (local D1 and the settle ledger's objects are SQLite files there; each fsync is a wait on this
 * machine's disk that the reference facilitator, which has no database, never pays).
 *
 *   SVC_SETTLE_LEDGER=object|d1 tsx bench/settle-syscalls.ts [settles]
 */
import type { PaymentPayload } from "@x402/core/types";
import { benchWorkerWithSeller, fundedBuyers, mustSucceed, paymentFactory, post, WARMUP_SETTLES } from "./bench";
import { fmt, median, runPhase } from "./measure";
import { cpuMsOf, workerdChildrenOf } from "./process-cpu";
import { countDiskSyscalls, diskSyncs } from "./syscall-count";

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
    let cpuBefore: number | null = null;
    let cpuAfter: number | null = null;
    const { result: phase, calls } = await countDiskSyscalls(pids, async () => {
      cpuBefore = cpuMsOf(pids);
      const settled = await runPhase(settles, 1, call);
      cpuAfter = cpuMsOf(pids);
      return settled;
    });
    mustSucceed("settle", phase);
    console.log(
      `${process.env.SVC_SETTLE_LEDGER ?? "object (default)"} ledger: ${SETTLES} sequential settles, ` +
        `median ${fmt(median(phase.latenciesMs), 2)} ms, ` +
        `workerd ` +
        `CPU ${cpuBefore === null || cpuAfter === null ? "n/a" : fmt((cpuAfter - cpuBefore) / SETTLES, 2)} ms per ` +
        `settle (under strace), ` +
        `per settle: ` +
        `fsync ${fmt(diskSyncs(calls) / SETTLES, 2)}, ` +
        `pwrite ${fmt(calls.pwrite64 / SETTLES, 1)}, ` +
        `openat ${fmt(calls.openat / SETTLES, 1)}, unlink ${fmt(calls.unlinkat / SETTLES, 1)}`,
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
