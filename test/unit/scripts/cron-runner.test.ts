import { describe, expect, it } from "vitest";
import { type CronClock, startCronRunner } from "../../../scripts/lib/cron-runner";
import { nextFireTime, parseCron } from "../../../scripts/lib/cron-schedule";

/**
 * `npm start`'s Cron Trigger scheduler, driven by a fake clock (pure timers; the real trigger URL is tested in
 * test/e2e/scripts/npm-start-serving.test.ts).
 */

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("cron expressions (UTC, as Cloudflare Cron Triggers)", () => {
  it("finds the next minute of wrangler.toml's triggers", () => {
    const sweep = parseCron("*/15 * * * *");
    expect(iso(nextFireTime(sweep, at("2026-11-25T10:00:00.000Z")))).toBe("2026-11-25T10:15:00.000Z");
    expect(iso(nextFireTime(sweep, at("2026-11-25T10:14:59.999Z")))).toBe("2026-11-25T10:15:00.000Z");
    expect(iso(nextFireTime(sweep, at("2026-11-25T23:50:00.000Z")))).toBe("2026-11-26T00:00:00.000Z");
    const probe = parseCron("*/10 * * * *");
    expect(iso(nextFireTime(probe, at("2026-11-25T10:01:30.000Z")))).toBe("2026-11-25T10:10:00.000Z");
  });

  it("reads ranges, lists, names and day rules", () => {
    // Wed → Mon
    expect(iso(nextFireTime(parseCron("30 2 * * MON"), at("2026-11-25T10:00:00Z")))).toBe("2026-11-30T02:30:00.000Z");
    expect(iso(nextFireTime(parseCron("0 9-17/4 * * *"), at("2026-11-25T10:00:00Z")))).toBe("2026-11-25T13:00:00.000Z");
    expect(iso(nextFireTime(parseCron("5,45 0 1 JAN *"), at("2026-11-25T10:00:00Z")))).toBe("2027-01-01T00:05:00.000Z");
    // Both day fields restricted: either matches (standard cron). 2026-12-01 is a Tuesday; the 13th comes later.
    expect(iso(nextFireTime(parseCron("0 0 13 * TUE"), at("2026-11-25T10:00:00Z")))).toBe("2026-12-01T00:00:00.000Z");
    // 7 = Sunday
    expect(iso(nextFireTime(parseCron("0 0 * * 7"), at("2026-11-25T10:00:00Z")))).toBe("2026-11-29T00:00:00.000Z");
  });

  it("refuses what it does not understand instead of guessing", () => {
    expect(() => parseCron("*/15 * * *")).toThrow(/5 fields/);
    expect(() => parseCron("0 0 L * *")).toThrow(/not supported|out of range/);
    expect(() => parseCron("61 * * * *")).toThrow(/out of range/);
    expect(() => parseCron("0 0 * * 1#2")).toThrow(/not supported/);
  });
});

/** A clock whose time only moves when the test says so; timers fire in time order. */
function fakeClock(startMs: number) {
  let now = startMs;
  let nextId = 0;
  const timers = new Map<number, { dueMs: number; run: () => void }>();
  const clock: CronClock = {
    now: () => now,
    setTimer: (run, delayMs) => {
      const id = nextId++;
      timers.set(id, { dueMs: now + delayMs, run });
      return id;
    },
    clearTimer: (handle) => void timers.delete(handle as number),
  };
  const advanceTo = async (targetMs: number) => {
    for (;;) {
      const due = [...timers.entries()]
        .filter(([, t]) => t.dueMs <= targetMs)
        .sort((a, b) => a[1].dueMs - b[1].dueMs)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].dueMs;
      due[1].run();
      await new Promise((resolve) => setImmediate(resolve));
    }
    now = targetMs;
  };
  return { clock, advanceTo, pending: () => timers.size };
}

describe("the npm start scheduler", () => {
  it("fires each Cron Trigger at each of its minutes, and stops", async () => {
    const { clock, advanceTo, pending } = fakeClock(at("2026-11-25T10:07:00Z"));
    const fired: string[] = [];
    const runner = startCronRunner(
      ["*/15 * * * *", "*/10 * * * *"],
      async (cron, scheduledTimeMs) => void fired.push(`${cron}@${iso(scheduledTimeMs).slice(11, 16)}`),
      { clock },
    );
    expect(runner.nextRuns()).toEqual([
      { cron: "*/15 * * * *", atMs: at("2026-11-25T10:15:00Z") },
      { cron: "*/10 * * * *", atMs: at("2026-11-25T10:10:00Z") },
    ]);
    await advanceTo(at("2026-11-25T11:00:30Z"));
    expect(fired).toEqual([
      "*/10 * * * *@10:10",
      "*/15 * * * *@10:15",
      "*/10 * * * *@10:20",
      "*/15 * * * *@10:30",
      "*/10 * * * *@10:30",
      "*/10 * * * *@10:40",
      "*/15 * * * *@10:45",
      "*/10 * * * *@10:50",
      "*/15 * * * *@11:00",
      "*/10 * * * *@11:00",
    ]);
    runner.stop();
    expect(pending()).toBe(0);
    await advanceTo(at("2026-11-25T12:00:00Z"));
    expect(fired).toHaveLength(10);
  });

  it(
    "does not start a run while the previous run of the same trigger is still going, and survives a failing " + "run",
    async () => {
      const { clock, advanceTo } = fakeClock(at("2026-11-25T10:00:30Z"));
      let finishFirst: () => void = () => {};
      const calls: number[] = [];
      const errors: string[] = [];
      let call = 0;
      const runner = startCronRunner(
        ["* * * * *"],
        (_cron, scheduledTimeMs) => {
          calls.push(scheduledTimeMs);
          call++;
          if (call === 1) return new Promise<void>((resolve) => (finishFirst = resolve)); // a slow run
          if (call === 2) return Promise.reject(new Error("HTTP 500"));
          return Promise.resolve();
        },
        { clock, onError: (_cron, error) => errors.push((error as Error).message) },
      );
      await advanceTo(at("2026-11-25T10:03:30Z")); // 10:01 starts, 10:02 and 10:03 find it running
      expect(calls.map(iso)).toEqual(["2026-11-25T10:01:00.000Z"]);
      finishFirst();
      await new Promise((resolve) => setImmediate(resolve));
      await advanceTo(at("2026-11-25T10:05:30Z")); // 10:04 fails, 10:05 runs anyway
      expect(calls.map(iso)).toEqual([
        "2026-11-25T10:01:00.000Z",
        "2026-11-25T10:04:00.000Z",
        "2026-11-25T10:05:00.000Z",
      ]);
      expect(errors).toEqual(["HTTP 500"]);
      runner.stop();
    },
  );
});
