/**
 * Cron expressions as Cloudflare Cron Triggers read them (five fields: minute hour day-of-month month day-of-week,
 * evaluated in UTC): numbers, `*`, ranges `a-b`, steps `*\/n` and `a-b/n`, lists, and month / weekday names. The
 * Quartz-style extensions Cloudflare also accepts (`L`, `W`, `#`) are refused with a clear error rather than
 * guessed. Used by `npm start`'s local scheduler (scripts/lib/cron-runner.ts); pure, so it is tested with fixed dates.
 */

interface Field {
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly Field[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] },
  // 0 and 7 are both Sunday.
  { min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

export interface CronSchedule {
  expression: string;
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  /** Whether the day fields were restricted (`*` is not): standard cron matches either day field when both are. */
  domRestricted: boolean;
  dowRestricted: boolean;
}

export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new Error(`cron "${expression}": expected 5 fields (minute hour day-of-month month day-of-week)`);
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = parts.map((part, i) =>
    parseField(expression, part, FIELDS[i]!),
  );
  const sundays = new Set([...daysOfWeek!].map((d) => (d === 7 ? 0 : d)));
  return {
    expression,
    minutes: minutes!,
    hours: hours!,
    daysOfMonth: daysOfMonth!,
    months: months!,
    daysOfWeek: sundays,
    domRestricted: parts[2] !== "*" && parts[2] !== "?",
    dowRestricted: parts[4] !== "*" && parts[4] !== "?",
  };
}

function parseField(expression: string, text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    const match = /^(\*|\?|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!match)
      throw new Error(
        `cron "${expression}": "${item}" is not supported here (only numbers, names, *, ranges, steps and lists)`,
      );
    const step = match[2] === undefined ? 1 : Number(match[2]);
    if (step < 1) throw new Error(`cron "${expression}": step must be at least 1`);
    let low = field.min;
    let high = field.max;
    if (match[1] !== "*" && match[1] !== "?") {
      const [from, to] = match[1]!.split("-");
      low = fieldValueOf(expression, from!, field);
      high = to === undefined ? (match[2] === undefined ? low : field.max) : fieldValueOf(expression, to, field);
      if (high < low) throw new Error(`cron "${expression}": range ${match[1]} is reversed`);
    }
    for (let v = low; v <= high; v += step) values.add(v);
  }
  return values;
}

function fieldValueOf(expression: string, token: string, field: Field): number {
  const named = field.names?.indexOf(token.toUpperCase()) ?? -1;
  const value =
    named >= 0 ? named + (field.names === FIELDS[3]!.names ? 1 : 0) : /^\d+$/.test(token) ? Number(token) : NaN;
  if (!Number.isInteger(value) || value < field.min || value > field.max)
    throw new Error(`cron "${expression}": "${token}" is out of range ${field.min}-${field.max}`);
  return value;
}

export function matches(schedule: CronSchedule, at: Date): boolean {
  return (
    schedule.minutes.has(at.getUTCMinutes()) &&
    schedule.hours.has(at.getUTCHours()) &&
    schedule.months.has(at.getUTCMonth() + 1) &&
    dayMatches(schedule, at)
  );
}

/** The first whole UTC minute strictly after `afterMs` at which the schedule fires (searches up to ~5 years). */
export function nextFireTime(schedule: CronSchedule, afterMs: number): number {
  const MINUTE_MS = 60_000;
  let t = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const limit = t + 5 * 366 * 24 * 60 * MINUTE_MS;
  while (t < limit) {
    const at = new Date(t);
    if (matches(schedule, at)) return t;
    // Skip whole hours / days that cannot match, so sparse schedules do not walk every minute of a year.
    if (!schedule.months.has(at.getUTCMonth() + 1) || !dayMatches(schedule, at)) {
      t = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
    } else if (!schedule.hours.has(at.getUTCHours())) {
      t = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCHours() + 1);
    } else {
      t += MINUTE_MS;
    }
  }
  throw new Error(`cron "${schedule.expression}" never fires`);
}

function dayMatches(schedule: CronSchedule, at: Date): boolean {
  const dom = schedule.daysOfMonth.has(at.getUTCDate());
  const dow = schedule.daysOfWeek.has(at.getUTCDay());
  return schedule.domRestricted && schedule.dowRestricted ? dom || dow : dom && dow;
}
