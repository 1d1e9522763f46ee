/**
 * Syscalls of running processes counted with `strace -c -f` while some work runs: how `npm run bench` and
 * bench/settle-syscalls.ts see the disk syncs a settle waits for (local D1 and the settle ledger's objects are SQLite
 * files inside workerd; each fsync waits on this machine's disk, which the reference facilitator never touches).
 * strace stops the traced processes on every system call, so nothing measured for time runs under it.
 */
import { spawn, spawnSync } from "node:child_process";

/** The disk-sync calls and the file writes around them. */
export const DISK_SYSCALLS = ["fsync", "fdatasync", "pwrite64", "openat", "unlinkat"] as const;
export type DiskSyscall = (typeof DISK_SYSCALLS)[number];

/** Whether `strace` can run here (Linux with strace installed). */
export function straceAvailable(): boolean {
  return spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0;
}

/**
 * Runs `work` with every thread of `pids` traced; answers the calls of each name in `DISK_SYSCALLS` made meanwhile,
 * with the work's own result.
 */
export async function countDiskSyscalls<T>(
  pids: readonly number[],
  work: () => Promise<T>,
): Promise<{ result: T; calls: Record<DiskSyscall, number> }> {
  const strace = spawn(
    "strace",
    ["-f", "-c", "-e", `trace=${DISK_SYSCALLS.join(",")}`, ...pids.flatMap((pid) => ["-p", String(pid)])],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let report = "";
  strace.stderr.on("data", (chunk: Buffer) => (report += chunk.toString()));
  const exited = new Promise((resolve) => strace.once("exit", resolve));
  const stop = async () => {
    if (strace.exitCode === null) strace.kill("SIGINT");
    await exited;
  };
  try {
    await new Promise((resolve) => setTimeout(resolve, 500)); // attached to every thread
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last call's writes after its answer
    await stop();
    return { result, calls: callsOf(report) };
  } finally {
    await stop();
  }
}

/** The `calls` column of strace -c's summary, per syscall name (0 when a name was never called). */
function callsOf(report: string): Record<DiskSyscall, number> {
  const lines = report.split("\n");
  const calls = {} as Record<DiskSyscall, number>;
  for (const name of DISK_SYSCALLS) {
    const line = lines.find((l) => l.trim().endsWith(` ${name}`));
    calls[name] = Number(line?.trim().split(/\s+/)[3] ?? 0);
  }
  return calls;
}

/** fsync and fdatasync together: the waits on the disk. */
export function diskSyncs(calls: Record<DiskSyscall, number>): number {
  return calls.fsync + calls.fdatasync;
}
