import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { log } from "../platform/observability/log";
import {
  adoptProgress,
  claimedRow,
  createLocalSchema,
  hasLocalSchema,
  insertLocal,
  localMessageHashes,
  markMirrored,
  mirrorToD1,
  paymentIdHolder,
  progressAhead,
  readD1Row,
  readLocal,
  recordLocalConfirmationAfterFailedReport,
  releaseInD1,
  releaseLocal,
  reportLocalSuccess,
  takeOverLocalLease,
  updateLocal,
  writeClaimThrough,
  writeConfirmationThrough,
  type ClaimInput,
} from "../store/ledger-object-store";
import type { SettlementClaim, SettlementRow, SettlementState } from "../store/settlements";

/**
 * How long an object keeps a payment after its last change (and once D1 has it): then it deletes its storage. D1 keeps
 * the row for good, so a later settle of the payment finds it there (the claim reads D1's row) and is answered the same.
 */
export const LEDGER_OBJECT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** When the mirror is tried again if the attempt right after a change did not reach D1 (the alarm, durable). */
export const MIRROR_RETRY_FIRST_MS = 1_000;
const MIRROR_RETRY_MAX_MS = 5 * 60 * 1000;

/**
 * The settle ledger of one payment, in a SQLite-backed Durable Object named after the payment's message hash (see
 * docs/scale.md for why one object per payment). It runs the claim / lease / success-report state machine of
 * store/settlements.ts on its own storage, next to the Worker that settles (an object is created where its first
 * request comes from), so the success report after confirmation needs no D1 round trip.
 *
 * D1 stays the place of every global query (history, keeper queues, /settlements/{signature}):
 * - the claim is written through (one D1 round trip, overlapping the send): the row exists in D1 before the object
 *   holds it, and the same round trip reads a row D1 already had (the upgrade from the D1 ledger);
 * - a payment settled again before its success was reported reads D1's row first and takes what D1 learned without the
 *   object (the keepers' confirmations, the D1 ledger's report during a switch of ledgers);
 * - every later change is mirrored right after it, off the caller's path; an object whose mirror did not land keeps
 *   `mirrored_version < version` and an alarm retries it, with backoff, until D1 has it;
 * - a failed payment that turns out confirmed is written to D1 first, so D1 never calls an Open failed that landed;
 * - once mirrored and LEDGER_OBJECT_RETENTION_MS after its last change, the alarm deletes the object's storage.
 */
export class SettleLedgerObject extends DurableObject<Env> {
  /** The mirror in progress: one at a time, so an older version never lands in D1 after a newer one. */
  private mirroring: Promise<boolean> = Promise.resolve(true);
  private mirrorRunning = false;
  private mirrorFailures = 0;
  /** The table exists (created on first use, and again after the retention's deleteAll dropped it). */
  private schemaReady = false;
  private get sql(): SqlStorage {
    if (!this.schemaReady) {
      createLocalSchema(this.ctx.storage.sql);
      this.schemaReady = true;
    }
    return this.ctx.storage.sql;
  }

  /** The stored row, without creating the table: a read never writes (an object only asked about a payment stores nothing). */
  private storedRow(messageHash: string): SettlementRow | undefined {
    if (!this.schemaReady) this.schemaReady = hasLocalSchema(this.ctx.storage.sql);
    return this.schemaReady ? readLocal(this.ctx.storage.sql, messageHash)?.row : undefined;
  }

  /** State and signature, from the object, else from D1 (a payment settled before the upgrade, or expired here). */
  async state(messageHash: string): Promise<Pick<SettlementRow, "state" | "signature"> | undefined> {
    const row = await this.get(messageHash);
    return row ? { state: row.state, signature: row.signature } : undefined;
  }

  async get(messageHash: string): Promise<SettlementRow | undefined> {
    return this.storedRow(messageHash) ?? (await readD1Row(this.env.DB, messageHash));
  }

  /** store/settlements.ts claimSettlement: exactly one caller gets `claimed`, whichever ledger wrote the row. */
  async claim(input: ClaimInput): Promise<SettlementClaim> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const held = this.storedRow(input.messageHash);
      if (held) return { claimed: false, existing: await this.withD1Progress(held) };
      const row = claimedRow(input, Date.now());
      const written = await writeClaimThrough(this.env.DB, row);
      // Another call of this object may have claimed or imported the row while D1 answered: the object's row wins.
      if (written.inserted) {
        // Stored now, while the send is out, not with the report: a new object's first write costs the most (measured
        // locally: docs/scale.md), and the answer after confirmation should not wait on it.
        insertLocal(this.sql, row); // D1 has this version already (or a concurrent call of this object put the same row)
        await this.expireLater();
        return { claimed: true };
      }
      if (written.existing) {
        insertLocal(this.sql, written.existing);
        await this.expireLater();
        return { claimed: false, existing: readLocal(this.sql, input.messageHash)!.row };
      }
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
      d1 = await readD1Row(this.env.DB, messageHash);
    } catch (error) {
      log("warn", "settlement_ledger_refresh_failed", { messageHash, error });
    }
    const current = this.storedRow(messageHash) ?? held;
    const ahead = d1 ? progressAhead(current, d1) : null;
    if (!ahead) return current;
    if (adoptProgress(this.sql, messageHash, ahead, Date.now())) await this.afterChange(messageHash);
    return this.storedRow(messageHash) ?? current;
  }

  async takeOverLease(messageHash: string, leaseId: string, leaseMs: number): Promise<boolean> {
    const taken = takeOverLocalLease(this.sql, messageHash, leaseId, leaseMs, Date.now());
    if (taken) await this.afterChange(messageHash);
    return taken;
  }

  async update(messageHash: string, fromStates: SettlementState[], changes: Parameters<typeof updateLocal>[3]): Promise<boolean> {
    if (changes.state === "confirmed") await this.confirmationThroughIfFailed(messageHash, Date.now());
    const updated = updateLocal(this.sql, messageHash, fromStates, changes, Date.now());
    if (updated) await this.afterChange(messageHash);
    return updated;
  }

  /**
   * D1's row goes first. The engine releases only a transaction the cluster never accepted, so D1 never lacks a
   * payment that could still land (docs/settle-ledger-migration.md).
   */
  async release(messageHash: string): Promise<void> {
    await releaseInD1(this.env.DB, messageHash);
    if (this.storedRow(messageHash)) releaseLocal(this.sql, messageHash);
  }

  async reportSuccess(messageHash: string, reporterId: string, correlationId: string | null, nowMs: number): Promise<boolean> {
    const through = this.confirmationThroughIfFailed(messageHash, nowMs);
    if (through) await through;
    const won = reportLocalSuccess(this.sql, messageHash, reporterId, correlationId, nowMs);
    if (won) await this.afterChange(messageHash);
    return won;
  }

  async recordConfirmationAfterFailedReport(messageHash: string, reporterId: string, nowMs: number): Promise<void> {
    await this.confirmationThroughIfFailed(messageHash, nowMs);
    recordLocalConfirmationAfterFailedReport(this.sql, messageHash, reporterId, nowMs);
    await this.afterChange(messageHash);
  }

  /** The mirror's retries, then the retention: deletes the object's storage once D1 has everything and it expired. */
  override async alarm(): Promise<void> {
    const hashes = localMessageHashes(this.sql);
    for (const hash of hashes) await this.mirrorSerially(hash);
    const held = hashes.map((hash) => readLocal(this.sql, hash)).filter((local) => local !== undefined);
    if (held.some((local) => local.mirroredVersion < local.version)) {
      const delayMs = Math.min(MIRROR_RETRY_FIRST_MS * 2 ** this.mirrorFailures, MIRROR_RETRY_MAX_MS);
      await this.ctx.storage.setAlarm(Date.now() + delayMs);
      return;
    }
    const expiresAtMs = Math.max(0, ...held.map((local) => local.row.updatedAtMs)) + LEDGER_OBJECT_RETENTION_MS;
    if (held.length === 0 || Date.now() >= expiresAtMs) {
      await this.ctx.storage.deleteAll();
      this.schemaReady = false;
    } else await this.ctx.storage.setAlarm(expiresAtMs);
  }

  /** A row nothing changes any more still expires: the alarm, unless one is set already. */
  private async expireLater(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + LEDGER_OBJECT_RETENTION_MS);
  }

  /** Before the object records a confirmation of a payment it holds as failed, D1 hears it (see the class comment). */
  private confirmationThroughIfFailed(messageHash: string, nowMs: number): Promise<void> | undefined {
    return this.storedRow(messageHash)?.state === "failed" ? writeConfirmationThrough(this.env.DB, messageHash, nowMs) : undefined;
  }

  /** A durable retry first (the alarm), then the mirror right away, off the caller's path. */
  private async afterChange(messageHash: string): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now() + MIRROR_RETRY_FIRST_MS);
    if (this.mirrorRunning) return; // the running mirror reads the row again before it stops
    this.ctx.waitUntil(this.mirrorUntilCaughtUp(messageHash));
  }

  private async mirrorUntilCaughtUp(messageHash: string): Promise<void> {
    if (!(await this.mirrorSerially(messageHash))) return; // the alarm tries again
    const local = readLocal(this.sql, messageHash);
    if (local && local.mirroredVersion >= local.version) await this.ctx.storage.setAlarm(local.row.updatedAtMs + LEDGER_OBJECT_RETENTION_MS);
  }

  private mirrorSerially(messageHash: string): Promise<boolean> {
    this.mirroring = this.mirroring.then(async () => {
      this.mirrorRunning = true;
      try {
        return await this.mirror(messageHash);
      } finally {
        this.mirrorRunning = false;
      }
    });
    return this.mirroring;
  }

  /** Mirrors the row until D1 has its latest version; false when D1 could not be written. */
  private async mirror(messageHash: string): Promise<boolean> {
    for (;;) {
      const local = readLocal(this.sql, messageHash);
      if (!local || local.mirroredVersion >= local.version) return true;
      try {
        await mirrorToD1(this.env.DB, local.row);
      } catch (error) {
        this.mirrorFailures++;
        log("warn", "settlement_mirror_failed", { messageHash, version: local.version, failures: this.mirrorFailures, error });
        return false;
      }
      this.mirrorFailures = 0;
      markMirrored(this.sql, messageHash, local.version);
    }
  }
}
