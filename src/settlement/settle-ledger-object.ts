import { DurableObject } from "cloudflare:workers";
import { log } from "../platform/observability/log";
import type { ClaimRiders } from "../store/claim-riders";
import {
  adoptProgress,
  type ClaimInput,
  claimedRow,
  createLocalSchema,
  deleteExpiredLocal,
  hasLocalSchema,
  insertLocal,
  type LocalRow,
  markMirrored,
  mirrorRowsToD1,
  oldestLocalChangeMs,
  paymentIdHolder,
  progressAhead,
  readD1Row,
  readLocal,
  recordLocalConfirmationAfterFailedReport,
  releaseInD1,
  releaseLocal,
  reportLocalSuccess,
  takeOverD1Row,
  takeOverLocalLease,
  unmirroredMessageHashes,
  updateLocal,
  writeClaimThrough,
  writeConfirmationThrough,
} from "../store/ledger-object-store";
import type { SettlementChanges, SettlementClaim, SettlementRow, SettlementState } from "../store/settlements";

/**
 * How long an object keeps a payment's row after its last change (once D1 has it): then the alarm deletes the row. D1
 * keeps it for good, so a later settle of the payment finds it there (the claim reads D1's row) and is answered the
 * same; the object's copy only spares the retries of the next minutes a D1 round trip.
 */
export const LEDGER_OBJECT_RETENTION_MS = 60 * 60 * 1000;
/** The latest the alarm looks at a change the mirror right after it may not have written to D1 (the isolate died). */
export const MIRROR_CHECK_MS = 10_000;
/** Rows one mirror transaction writes at most. */
const MIRROR_BATCH_ROWS = 50;
/** When the mirror is tried again after D1 refused it, doubling up to MIRROR_RETRY_MAX_MS. */
export const MIRROR_RETRY_FIRST_MS = 1_000;
const MIRROR_RETRY_MAX_MS = 5 * 60 * 1000;
/** Rows one alarm mirrors or deletes at most (the next alarm follows at once when more are due). */
const ALARM_BATCH = 500;

/** A read or claim that reached an object which does not hold the payment: another does (D1's `ledger_object`). */
export interface HeldElsewhere {
  heldBy: string;
}

/**
 * The settle ledger of the payments first settled at one place: a SQLite-backed Durable Object named after the place
 * (the Cloudflare location of the Worker that settled) and a shard of the message hash (settle-ports.ts
 * `ledgerObjectName`; docs/scale.md says why). It runs the claim / lease / success-report state machine of
 * store/settlements.ts on its own storage, next to the Worker that settles, so the success report after confirmation
 * needs no D1 round trip.
 *
 * D1 stays the place of every global query (history, keeper queues, /settlements/{signature}) and says which object
 * holds each payment:
 * - the claim is written through (one D1 round trip, overlapping the send), naming this object: the row exists in D1
 *   before the object holds it, and the same round trip reads a row D1 already had. A payment D1 gives another object
 *   is answered `heldBy` that object, where the ledger port sends the call, so every settle of a payment, from any
 *   place, runs on the one object that holds it. A row no object holds (the D1 ledger's) is taken over by exactly one;
 * - a payment settled again before its success was reported reads D1's row first and takes what D1 learned without the
 *   object (the keepers' confirmations, the D1 ledger's report during a switch of ledgers);
 * - every later change is mirrored right after it, off the caller's path (the changes made while a mirror is in flight
 *   go to D1 together in the next one, one transaction), into D1's row only while D1 still names this object; a row
 *   whose mirror did not land keeps `mirrored_version < version`, and the alarm (never later than MIRROR_CHECK_MS after
 *   a change) writes it, with backoff while D1 refuses;
 * - a failed payment that turns out confirmed is written to D1 first, so D1 never calls an Open failed that landed;
 * - once mirrored and LEDGER_OBJECT_RETENTION_MS after its last change, the alarm deletes a row; an object holding no
 *   row deletes its storage.
 */
/** What the object reads of the Worker's env: the D1 ledger it mirrors to. */
export interface SettleLedgerObjectEnv {
  DB: D1Database;
}

export class SettleLedgerObject extends DurableObject<SettleLedgerObjectEnv> {
  /** The mirror in progress: one at a time, so an older version never lands in D1 after a newer one. */
  private mirroring: Promise<unknown> = Promise.resolve();
  /** Rows changed since the last mirror was started: the next one's. Lost with the instance, the alarm mirrors them. */
  private toMirror = new Set<string>();
  /** A mirror is queued and has not started: changes meanwhile join it. */
  private mirrorDue = false;
  private mirrorFailures = 0;
  /** The table exists (created on first use, and again after the retention's deleteAll dropped it). */
  private schemaReady = false;
  /**
   * Rows claimed here that only D1 has stored yet (with this object's name): the object's own copy is written with the
   * payment's first change (the success report, mostly), in that change's commit, so a settle's first storage write
   * here costs the report nothing extra. Lost with the instance, a row is read back from D1 (`heldRow`).
   */
  private claimedInMemory = new Map<string, { row: SettlementRow; self: string }>();
  /**
   * Rows whose latest version D1 now has, not yet noted in storage: noted with the next commit (`flushMirrored`), so
   * the mirror costs the object no commit of its own. Lost with the instance, the alarm mirrors those rows once more.
   */
  private mirroredSince = new Map<string, number>();
  /**
   * The alarm as this instance last read or set it (undefined: not read yet; null: none), so a change rarely writes it.
   */
  private alarmAtMs: number | null | undefined;
  private get sql(): SqlStorage {
    if (!this.schemaReady) {
      createLocalSchema(this.ctx.storage.sql);
      this.schemaReady = true;
    }
    return this.ctx.storage.sql;
  }

  /** The held row (claimed in memory, or stored), without creating the table: a read never writes. */
  private storedRow(messageHash: string): SettlementRow | undefined {
    const claimed = this.claimedInMemory.get(messageHash);
    if (claimed) return claimed.row;
    if (!this.schemaReady) this.schemaReady = hasLocalSchema(this.ctx.storage.sql);
    return this.schemaReady ? readLocal(this.ctx.storage.sql, messageHash)?.row : undefined;
  }

  /**
   * The storage, with the payment's row in it, for a change of that row: a row claimed in memory is written first, in
   * the same synchronous turn as the change (one commit). Call with no await between this and the change.
   */
  private storageFor(messageHash: string): SqlStorage {
    const claimed = this.claimedInMemory.get(messageHash);
    const sql = this.sql;
    if (claimed) {
      insertLocal(sql, claimed.row, claimed.self);
      this.claimedInMemory.delete(messageHash);
    }
    return sql;
  }

  /**
   * Before a change: a row this instance should hold but lost (a restart between the claim and the report, or its
   * expiry during a long settle) is read back from D1, which names this object as its holder.
   */
  private async heldRow(messageHash: string, self: string): Promise<SettlementRow | undefined> {
    const held = this.storedRow(messageHash);
    if (held) return held;
    const d1 = await readD1Row(this.env.DB, messageHash);
    if (!d1 || d1.ledgerObject !== self) return undefined;
    if (!this.storedRow(messageHash)) insertLocal(this.sql, d1.row, self);
    return this.storedRow(messageHash);
  }

  /**
   * The payment's row: this object's, else D1's, unless D1 gives it to another object (`self`: this object's name as
   * the caller named it).
   */
  async lookup(messageHash: string, self: string): Promise<{ row: SettlementRow | undefined } | HeldElsewhere> {
    const stored = this.storedRow(messageHash);
    if (stored) return { row: stored };
    const d1 = await readD1Row(this.env.DB, messageHash);
    if (d1?.ledgerObject != null && d1.ledgerObject !== self) return { heldBy: d1.ledgerObject };
    return { row: d1?.row };
  }

  /**
   * store/settlements.ts claimSettlement: exactly one caller gets `claimed`, whichever object or ledger wrote the row.
   */
  async claim(input: ClaimInput, self: string, riders?: ClaimRiders): Promise<SettlementClaim | HeldElsewhere> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const held = this.storedRow(input.messageHash);
      if (held) return { claimed: false, existing: await this.withD1Progress(held) };
      const row = claimedRow(input, Date.now());
      const written = await writeClaimThrough(this.env.DB, row, self, riders);
      // Another call of this object may have claimed or imported the row while D1 answered: the object's row wins.
      if (written.inserted) {
        // D1 has it durably; this object's copy is stored with the payment's first change (`claimedInMemory`).
        if (!this.storedRow(input.messageHash)) this.claimedInMemory.set(input.messageHash, { row, self });
        return { claimed: true };
      }
      if (written.existing) {
        const { ledgerObject } = written.existing;
        if (ledgerObject !== null && ledgerObject !== self) return { heldBy: ledgerObject };
        // The D1 ledger's row: exactly one object takes it over; if another did first, it is read again (and sent
        // there).
        if (ledgerObject === null && !(await takeOverD1Row(this.env.DB, input.messageHash, self))) continue;
        insertLocal(this.sql, written.existing.row, self);
        await this.expireLater();
        return { claimed: false, existing: readLocal(this.sql, input.messageHash)!.row };
      }
      if (written.refused) return { claimed: false, refused: written.refused };
      if (row.paymentId !== null) {
        const holder = await paymentIdHolder(this.env.DB, row.payTo, row.paymentId);
        if (holder && holder !== row.messageHash) return { claimed: false, paymentIdTakenBy: holder };
      }
      // Released in between (an attempt the cluster never accepted): claim it again.
    }
    throw new Error("settlement row keeps vanishing after conflicting inserts");
  }

  /**
   * The held row of an unfinished payment (no success report yet), with what D1 learned meanwhile: a confirmation the
   * keepers recorded there (store/settlements.ts recordFundingsConfirmed), or a report or state the D1 ledger wrote
   * while both ledgers served /settle (docs/settle-ledger-migration.md). One D1 read, only when a payment is settled
   * again before its success was reported (a retry, a concurrent call), never on a payment's first settle. Best
   * effort: when D1 does not answer, the object's own row stands (D1 only ever adds progress to it).
   */
  private async withD1Progress(held: SettlementRow): Promise<SettlementRow> {
    if (held.successReportedAtMs !== null) return held;
    const messageHash = held.messageHash;
    let d1: SettlementRow | undefined;
    try {
      d1 = (await readD1Row(this.env.DB, messageHash))?.row;
    } catch (error) {
      log("warn", "settlement_ledger_refresh_failed", { messageHash, error });
    }
    const current = this.storedRow(messageHash) ?? held;
    const ahead = d1 ? progressAhead(current, d1) : null;
    if (!ahead) return current;
    await this.change(messageHash, (sql) => adoptProgress(sql, messageHash, ahead, Date.now()));
    return this.storedRow(messageHash) ?? current;
  }

  async takeOverLease(messageHash: string, leaseId: string, leaseMs: number, self: string): Promise<boolean> {
    await this.heldRow(messageHash, self);
    return this.change(messageHash, (sql) => takeOverLocalLease(sql, messageHash, leaseId, leaseMs, Date.now()));
  }

  async update(
    messageHash: string,
    fromStates: SettlementState[],
    changes: SettlementChanges,
    self: string,
  ): Promise<boolean> {
    await this.heldRow(messageHash, self);
    if (changes.state === "confirmed") await this.confirmationThroughIfFailed(messageHash, Date.now());
    return this.change(messageHash, (sql) => updateLocal(sql, messageHash, fromStates, changes, Date.now()));
  }

  /**
   * Gives the row back (the engine does so only for a transaction the cluster never accepted): the object's copy first,
   * and only the lease holder's (`leaseId`), so a payment another call sent and reported meanwhile keeps its row here
   * and in D1; then D1's row of this object, and the payment's bookings with it. D1 never lacks a payment that could
   * still land (docs/settle-ledger-migration.md): its row goes last.
   */
  async release(messageHash: string, leaseId: string, self: string): Promise<void> {
    const claimed = this.claimedInMemory.get(messageHash);
    if (claimed) {
      if (claimed.row.leaseId !== leaseId) return;
      this.claimedInMemory.delete(messageHash);
    } else if (!(await this.heldRow(messageHash, self)) || !releaseLocal(this.sql, messageHash, leaseId)) {
      return;
    }
    await releaseInD1(this.env.DB, messageHash, self);
  }

  async reportSuccess(
    messageHash: string,
    reporterId: string,
    correlationId: string | null,
    nowMs: number,
    self: string,
  ): Promise<boolean> {
    await this.heldRow(messageHash, self);
    const through = this.confirmationThroughIfFailed(messageHash, nowMs);
    if (through) await through;
    return this.change(messageHash, (sql) => reportLocalSuccess(sql, messageHash, reporterId, correlationId, nowMs));
  }

  async recordConfirmationAfterFailedReport(
    messageHash: string,
    reporterId: string,
    nowMs: number,
    self: string,
  ): Promise<void> {
    await this.heldRow(messageHash, self);
    await this.confirmationThroughIfFailed(messageHash, nowMs);
    await this.change(messageHash, (sql) => {
      recordLocalConfirmationAfterFailedReport(sql, messageHash, reporterId, nowMs);
      return true;
    });
  }

  /**
   * One change of a payment's row as one storage commit (docs/scale.md): the row claimed in memory, the change itself,
   * the alarm that retries the mirror (when it is not due soon already) and the versions D1 caught up with since the
   * last commit are all written in one synchronous turn, with no await between them. Then the mirror, off the
   * caller's path.
   */
  private async change(messageHash: string, write: (sql: SqlStorage) => boolean): Promise<boolean> {
    const alarmAtMs = await this.currentAlarm(); // read before the turn that writes
    const sql = this.storageFor(messageHash);
    const changed = write(sql);
    this.flushMirrored(sql);
    if (!changed) return false;
    const latestCheckMs = Date.now() + MIRROR_CHECK_MS;
    const alarm = alarmAtMs === null || alarmAtMs > latestCheckMs ? this.setAlarm(latestCheckMs) : null;
    this.mirrorSoon(messageHash);
    await alarm;
    return true;
  }

  /**
   * The versions D1 caught up with, written with the object's next commit (or its alarm): never a commit of their own.
   */
  private flushMirrored(sql: SqlStorage): void {
    for (const [hash, version] of this.mirroredSince) markMirrored(sql, hash, version);
    this.mirroredSince.clear();
  }

  /** The mirror's retries, then the expiry of rows; the next alarm follows the oldest row, or the storage goes. */
  override async alarm(): Promise<void> {
    this.alarmAtMs = null; // a fired alarm is gone
    if (!this.schemaReady) this.schemaReady = hasLocalSchema(this.ctx.storage.sql);
    if (!this.schemaReady) {
      await this.ctx.storage.deleteAll();
      return;
    }
    this.flushMirrored(this.sql);
    await this.mirrorSerially(unmirroredMessageHashes(this.sql, ALARM_BATCH));
    this.flushMirrored(this.sql);
    const nowMs = Date.now();
    const expired = deleteExpiredLocal(this.sql, nowMs - LEDGER_OBJECT_RETENTION_MS, ALARM_BATCH);
    const oldestMs = oldestLocalChangeMs(this.sql);
    if (oldestMs === null) {
      await this.ctx.storage.deleteAll();
      this.schemaReady = false;
      return;
    }
    let nextMs = oldestMs + LEDGER_OBJECT_RETENTION_MS;
    if (unmirroredMessageHashes(this.sql, 1).length > 0) nextMs = Math.min(nextMs, nowMs + this.mirrorRetryMs());
    if (expired === ALARM_BATCH) nextMs = nowMs; // more rows are due than one run deletes
    await this.setAlarm(nextMs);
  }

  /** A row nothing changes any more still expires: an alarm is set whenever the object holds a row. */
  private async expireLater(): Promise<void> {
    if ((await this.currentAlarm()) === null) await this.setAlarm(Date.now() + LEDGER_OBJECT_RETENTION_MS);
  }

  /** Before the object records a confirmation of a payment it holds as failed, D1 hears it (see the class comment). */
  private confirmationThroughIfFailed(messageHash: string, nowMs: number): Promise<void> | undefined {
    return this.storedRow(messageHash)?.state === "failed"
      ? writeConfirmationThrough(this.env.DB, messageHash, nowMs)
      : undefined;
  }

  private async currentAlarm(): Promise<number | null> {
    if (this.alarmAtMs === undefined) this.alarmAtMs = await this.ctx.storage.getAlarm();
    return this.alarmAtMs;
  }

  private async setAlarm(atMs: number): Promise<void> {
    this.alarmAtMs = atMs;
    await this.ctx.storage.setAlarm(atMs);
  }

  private mirrorRetryMs(): number {
    return Math.min(MIRROR_RETRY_FIRST_MS * 2 ** Math.max(0, this.mirrorFailures - 1), MIRROR_RETRY_MAX_MS);
  }

  /**
   * The mirror of a change, after the answer: it starts once the mirror in flight (if any) is done, and then writes
   * every row changed until it started, in one D1 transaction.
   */
  private mirrorSoon(messageHash: string): void {
    this.toMirror.add(messageHash);
    if (this.mirrorDue) return;
    this.mirrorDue = true;
    const run = this.mirroring.then(() => {
      this.mirrorDue = false;
      const hashes = [...this.toMirror];
      this.toMirror.clear();
      return this.mirrorRows(hashes);
    });
    this.mirroring = run;
    this.ctx.waitUntil(run);
  }

  /** Mirrors the rows after the mirror in progress; false when D1 could not be written (the alarm comes sooner). */
  private mirrorSerially(hashes: readonly string[]): Promise<boolean> {
    const run = this.mirroring.then(() => this.mirrorRows(hashes));
    this.mirroring = run;
    return run;
  }

  /** Writes to D1 the rows whose latest version D1 lacks, MIRROR_BATCH_ROWS to a transaction, read when it starts. */
  private async mirrorRows(hashes: readonly string[]): Promise<boolean> {
    let allWritten = true;
    for (let at = 0; at < hashes.length; at += MIRROR_BATCH_ROWS) {
      const due = hashes.slice(at, at + MIRROR_BATCH_ROWS).flatMap((hash) => {
        const local = readLocal(this.sql, hash);
        const mirrored = Math.max(local?.mirroredVersion ?? 0, this.mirroredSince.get(hash) ?? 0);
        return local && mirrored < local.version ? [local] : [];
      });
      if (due.length > 0 && !(await this.writeMirror(due))) allWritten = false;
    }
    return allWritten;
  }

  private async writeMirror(due: readonly LocalRow[]): Promise<boolean> {
    let written: boolean[];
    try {
      written = await mirrorRowsToD1(this.env.DB, due);
    } catch (error) {
      // A row D1 refuses must not hold back the others: a refused batch is written again row by row.
      if (due.length > 1) {
        let allWritten = true;
        for (const local of due) if (!(await this.writeMirror([local]))) allWritten = false;
        return allWritten;
      }
      this.mirrorFailures++;
      log("warn", "settlement_mirror_failed", {
        messageHash: due[0]!.row.messageHash,
        version: due[0]!.version,
        failures: this.mirrorFailures,
        error,
      });
      const retryAtMs = Date.now() + this.mirrorRetryMs();
      if ((this.alarmAtMs ?? Infinity) > retryAtMs) await this.setAlarm(retryAtMs);
      return false;
    }
    this.mirrorFailures = 0;
    for (const [i, local] of due.entries()) {
      // D1 no longer gives the row to this object (released there, or claimed anew): nothing of it is this object's to
      // write.
      if (!written[i])
        log("warn", "settlement_mirror_row_gone", { messageHash: local.row.messageHash, version: local.version });
      this.mirroredSince.set(local.row.messageHash, local.version);
    }
    return true;
  }
}
