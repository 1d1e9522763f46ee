/**
 * TEST-ONLY (benchmark): how long the chain spent answering HTTP requests, in total and one by one, so a client can
 * tell its own time apart from the chain's (bench/bench.ts subtracts the total and draws a settle's timeline from the
 * log). Times run from the request's arrival to the last byte written; log times are epoch milliseconds with
 * sub-millisecond precision (performance.timeOrigin + performance.now()), comparable with another process's on the
 * same machine.
 */

export interface TimedRequest {
  /** The JSON-RPC methods of the body, in order (more than one for a batch; empty when none could be read). */
  methods: string[];
  receivedAtMs: number;
  finishedAtMs: number;
  /** Set on a WebSocket upgrade or PubSub message: logged at one instant, it has no service time. */
  pubsub?: true;
}

/** Enough for every call of a benchmark phase; older entries are dropped first. */
const MAX_LOGGED_REQUESTS = 50_000;

const epochNowMs = () => performance.timeOrigin + performance.now();

export class RequestTiming {
  private requests = 0;
  private totalMs = 0;
  private log: TimedRequest[] = [];

  /** Starts timing one HTTP request; `methods` is filled in as the body is dispatched. */
  begin(): { methods: string[]; finish: () => void } {
    const receivedAtMs = epochNowMs();
    const methods: string[] = [];
    return {
      methods,
      finish: () => {
        const finishedAtMs = epochNowMs();
        this.requests++;
        this.totalMs += finishedAtMs - receivedAtMs;
        if (this.log.length >= MAX_LOGGED_REQUESTS) this.log = this.log.slice(MAX_LOGGED_REQUESTS / 2);
        this.log.push({ methods, receivedAtMs, finishedAtMs });
      },
    };
  }

  /** Logs a message that is not an HTTP request (a WebSocket upgrade or subscription call), at one instant. */
  note(methods: string[]): void {
    const atMs = epochNowMs();
    if (this.log.length >= MAX_LOGGED_REQUESTS) this.log = this.log.slice(MAX_LOGGED_REQUESTS / 2);
    this.log.push({ methods, receivedAtMs: atMs, finishedAtMs: atMs, pubsub: true });
  }

  /** localnet_serviceTime: requests answered so far and the wall time spent on them. */
  serviceTime(): { requests: number; totalMs: number } {
    return { requests: this.requests, totalMs: this.totalMs };
  }

  /** localnet_requestLog: the requests that arrived at or after `sinceMs` (epoch ms), oldest first. */
  requestsSince(sinceMs: number): TimedRequest[] {
    return this.log.filter((entry) => entry.receivedAtMs >= sinceMs);
  }
}
