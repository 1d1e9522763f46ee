/**
 * Runs the Worker's Cron Triggers on their schedules under `npm start`, the way Cloudflare runs them in production.
 *
 * Why hand-made: outside Cloudflare nothing fires Cron Triggers by itself. Miniflare only offers the on-demand URL
 * (`GET /cdn-cgi/handler/scheduled?cron=`, with `unsafeTriggerHandlers`), and `wrangler dev` has no scheduler either.
 * So this small timer loop computes each expression's next UTC minute (scripts/lib/cron-schedule.ts) and calls that
 * URL then: the Worker's real `scheduled` handler runs, in workerd, with the same bindings as every request. The
 * clock is injectable so the loop is tested with a fake one.
 */
import { nextFireTime, parseCron } from "./cron-schedule";

export interface CronClock {
  now(): number;
  setTimer(run: () => void, delayMs: number): unknown;
  clearTimer(handle: unknown): void;
}

export const SYSTEM_CLOCK: CronClock = {
  now: () => Date.now(),
  setTimer: (run, delayMs) => setTimeout(run, delayMs),
  clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface CronRunner {
  /** The next fire time (epoch ms) per expression, for the start banner. */
  nextRuns(): { cron: string; atMs: number }[];
  stop(): void;
}

/**
 * Fires `trigger(cron)` at every scheduled minute of each expression. A run that is still going when its next minute
 * comes is not started twice (Cloudflare may overlap runs; the jobs' D1 claims make that safe, but locally a stuck
 * run should not pile up). A failing trigger is reported through `onError` and the schedule goes on.
 */
export function startCronRunner(
  crons: readonly string[],
  trigger: (cron: string, scheduledTimeMs: number) => Promise<void>,
  options: { clock?: CronClock; onError?: (cron: string, error: unknown) => void } = {},
): CronRunner {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const schedules = [...new Set(crons)].map((cron) => ({
    cron,
    schedule: parseCron(cron),
    nextMs: 0,
    timer: null as unknown,
    running: false,
  }));
  let stopped = false;

  const arm = (entry: (typeof schedules)[number], afterMs: number) => {
    entry.nextMs = nextFireTime(entry.schedule, afterMs);
    entry.timer = clock.setTimer(() => fire(entry), Math.max(0, entry.nextMs - clock.now()));
  };
  const fire = (entry: (typeof schedules)[number]) => {
    if (stopped) return;
    const scheduledTimeMs = entry.nextMs;
    // Timers may fire a little early: never re-arm for the same minute.
    arm(entry, Math.max(clock.now(), scheduledTimeMs));
    if (entry.running) return;
    entry.running = true;
    trigger(entry.cron, scheduledTimeMs)
      .catch((error) => options.onError?.(entry.cron, error))
      .finally(() => {
        entry.running = false;
      });
  };

  for (const entry of schedules) arm(entry, clock.now());
  return {
    nextRuns: () => schedules.map(({ cron, nextMs }) => ({ cron, atMs: nextMs })),
    stop: () => {
      stopped = true;
      for (const entry of schedules) clock.clearTimer(entry.timer);
    },
  };
}

/** One on-demand run through Miniflare's trigger URL; resolves once the Worker's scheduled handler finished. */
export async function triggerScheduled(origin: string, cron: string, scheduledTimeMs?: number): Promise<void> {
  const url = new URL("/cdn-cgi/handler/scheduled", origin);
  url.searchParams.set("cron", cron);
  if (scheduledTimeMs !== undefined) url.searchParams.set("time", String(scheduledTimeMs));
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw new Error(`scheduled ${cron}: HTTP ${response.status} ${text.slice(0, 200)}`);
}
