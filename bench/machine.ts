/**
 * What the machine was like while a benchmark ran, printed beside its figures: the load (a busy run's ratios move by
 * more than most changes do) and the filesystem the Worker's local state is on (a settle waits for the disk syncs of
 * local D1 and the ledger's objects; on tmpfs those waits vanish, so a tmpfs run says nothing of a disk-backed one).
 */
import { realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";

/** Filesystem types that keep nothing on a disk. */
const MEMORY_FILESYSTEMS = new Set(["tmpfs", "ramfs"]);

export interface StateFilesystem {
  path: string;
  /** e.g. ext4, xfs, overlay, tmpfs; "unknown" where /proc/mounts cannot be read. */
  type: string;
  mountPoint: string;
  diskBacked: boolean;
}

/** The mount holding `path` (the longest mount point that contains it), from /proc/mounts. */
export async function filesystemOf(path: string): Promise<StateFilesystem> {
  let real = path;
  try {
    real = realpathSync(path);
    const mounts = (await readFile("/proc/mounts", "utf8"))
      .split("\n")
      .map((line) => line.split(" "))
      .filter((fields) => fields.length >= 3)
      .map(([, mountPoint, type]) => ({ mountPoint: unescapeMountPath(mountPoint!), type: type! }));
    const holding = mounts
      .filter(({ mountPoint }) => real === mountPoint || real.startsWith(mountPoint === "/" ? "/" : `${mountPoint}/`))
      .sort((a, b) => b.mountPoint.length - a.mountPoint.length)[0];
    if (holding) return { path: real, ...holding, diskBacked: !MEMORY_FILESYSTEMS.has(holding.type) };
  } catch {
    // not Linux, or the path is gone: said as unknown
  }
  return { path: real, type: "unknown", mountPoint: "?", diskBacked: true };
}

export function describeFilesystem(fs: StateFilesystem): string {
  return `${fs.path} on ${fs.type} (${fs.mountPoint})${
    fs.diskBacked ? ", " + "disk-backed" : ", in memory: settles wait for no disk"
  }`;
}

/** /proc/mounts writes a space in a path as \040 (and tab, newline, backslash alike). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The 1-minute load average before, at its highest during (sampled every few seconds) and after a run. */
export function loadDuringRun(sampleEveryMs = 5_000) {
  const cores = os.cpus().length;
  const now = () => os.loadavg()[0]!;
  const before = os.loadavg();
  let highest = now();
  const sampler = setInterval(() => {
    highest = Math.max(highest, now());
  }, sampleEveryMs);
  sampler.unref();
  return {
    before,
    /** Stops sampling; the line to print, saying when the run was busy. */
    finish(): string {
      clearInterval(sampler);
      const after = os.loadavg();
      highest = Math.max(highest, after[0]!);
      const triple = (load: number[]) => load.map((x) => x.toFixed(2)).join(" ");
      const busy =
        highest >= 1
          ? `; BUSY: the 1-minute load ` +
            `reached ${highest.toFixed(2)} on ${cores} CPU(s), other work shared the cores, so these figures are ` +
            `slower and noisier than a quiet run's (compare within one run only)`
          : "; quiet";
      return (
        `load average ` +
        `before ${triple(before)}, highest 1-minute ${highest.toFixed(2)}, after ${triple(after)}${busy}`
      );
    },
  };
}
