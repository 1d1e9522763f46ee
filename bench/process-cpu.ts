/**
 * CPU time of processes as the kernel accounts it (/proc/<pid>/stat utime + stime), to report CPU per request of
 * each facilitator next to its throughput. Linux only; elsewhere every reading is null and the rows say n/a.
 * Miniflare runs the Worker in a workerd child of this process: that child is "ours".
 */
import { readdirSync, readFileSync } from "node:fs";

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux build that matters here

/** Total CPU ms of the given processes, or null when /proc cannot be read. */
export function cpuMsOf(pids: readonly number[]): number | null {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (!fields) return null;
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** The workerd processes started by this process (Miniflare's runtime). */
export function workerdChildrenOf(parentPid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === parentPid && commandOf(Number(entry)).includes("workerd"))
      pids.push(Number(entry));
  }
  return pids;
}

/** stat fields after "(comm)": index 0 is the state, 1 the parent pid, 11/12 utime/stime. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}
