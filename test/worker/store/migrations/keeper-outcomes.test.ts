import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ESCROW_KEEPER_ACTIONS } from "../../../../src/rails/sla-escrow/store/states";
import { UPTO_KEEPER_ACTIONS } from "../../../../src/rails/upto/store/states";
import { KEEPER_LOOK_OUTCOMES, type KeeperLookOutcome } from "../../../../src/store/states";
import { applyMigrations, databaseBefore, migrationsFrom } from "../../../support/workerd/migration-steps";

/**
 * Migration 0015 on a database written by the schema before it: this file's database is emptied and built again from
 * migrations 0000–0014 (the real SQL, as wrangler applied it to a deployed database), the keepers' watch rows are
 * written with the words the keepers wrote into last_outcome (src/jobs/keeper/run-keeper.ts and the rails' keepers,
 * older wordings too), then 0015 runs. Each row keeps every column, its words move to last_detail unchanged,
 * last_outcome becomes the value of KEEPER_LOOK_OUTCOMES those words meant (words no keeper wrote fall back on the
 * row's state), an action outside the rail's set becomes none; afterwards the CHECKs refuse any value outside the sets.
 */
const NOW = 1_800_000_000_000;
const SIG = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
const GAVE_UP = "gave up after 8 attempts: ";

/** [state, last_action, last_outcome (the old words), the outcome 0015 gives the row] */
type OldRow = [state: string, action: string | null, words: string | null, expected: KeeperLookOutcome | null];

const ESCROW_ROWS: OldRow[] = [
  ["open", null, null, null],
  ["open", "release", "released", "landed"],
  ["open", "refund", "refunded", "landed"],
  ["closed", "close", "closed", "landed"],
  // The first keeper's words for a payment found already settled: no step of its own, so not landed.
  ["closed", "none", "released", "gone"],
  ["closed", "none", "no payment account (never funded, or closed)", "gone"],
  ["open", "release", "sent, not confirmed within this run", "unconfirmed"],
  ["open", "release", "preflight refused: insufficient funds for fee", "refused"],
  ["stuck", "release", `${GAVE_UP}preflight refused: custom program error 0x1771`, "refused"],
  ["open", "refund", "failed on chain: custom program error 0x1771", "failed"],
  ["stuck", "refund", `${GAVE_UP}failed on chain: custom program error 0x1771`, "failed"],
  ["open", "release", "fee_payer_below_minimum", "held"],
  [
    "open",
    "release",
    "fee_payer_spend_per_day_exceeded: the fee payer spent 5000 lamports in the last 24 h in total " +
      "(SVC_FEE_PAYER_MAX_SPEND_PER_DAY_LAMPORTS: 4999)",
    "held",
  ],
  [
    "open",
    "release",
    "recipient token account Ata1 does not exist yet (read again just before sending); its owner Own1 must create " +
      "it: the keeper pays nobody's rent",
    "held",
  ],
  [
    "open",
    "release",
    "a payout already created recipient token account Ata1 at the fee payer's cost today (its owner closed it just " +
      "before); payouts into it wait until 2027-01-16",
    "held",
  ],
  ["open", "release", "recipient token account Ata1 does not exist yet; its owner must create it", "skipped"],
  [
    "stuck",
    "release",
    `${GAVE_UP}recipient token account Ata1 does not exist yet; its owner must create it`,
    "skipped",
  ],
  ["open", "release", "payment escrow Esc1 is not the escrow of mint Mint1", "skipped"],
  ["open", "refund", "mint Mint1 is not a token mint on this cluster", "skipped"],
  ["open", "release", "mint Mint1 not found", "skipped"],
  ["dropped", "none", `funding ${SIG} failed on chain: custom program error 0x1`, "dropped"],
  ["dropped", "none", "the Payment account at Pda1 is not the funding Sig1 settled here", "dropped"],
  ["open", "none", `funding ${SIG} not confirmed yet`, "waiting"],
  ["open", "none", "delivered; the oracle may rule until expiry", "waiting"],
  // Words no keeper wrote: the row's state decides.
  ["open", "none", "words of a keeper long gone", "waiting"],
  ["closed", "none", "words of a keeper long gone", "gone"],
  ["stuck", "release", "words of a keeper long gone", "skipped"],
  // An action outside the set: none, its name kept in the words.
  ["open", "pay", "words of a keeper long gone", "waiting"],
];

const UPTO_ROWS: OldRow[] = [
  ["opening", null, null, null],
  ["open", "seal_and_distribute", "closed", "landed"],
  ["open", "seal_expired_and_distribute", "closed", "landed"],
  ["closed", "reclaim", "reclaimed", "landed"],
  ["closed", "none", "the channel account is gone (distributed and deallocated, or reclaimed)", "gone"],
  ["open", "none", "a voucher may still settle it", "waiting"],
  ["open", "none", "distributed; its rent comes back after the open-slot window", "waiting"],
  ["open", "none", "no blockhash this run", "waiting"],
  ["open", "none", `deposit ${SIG} not confirmed yet`, "waiting"],
  ["open", "reclaim", "sent, not confirmed within this run", "unconfirmed"],
  ["open", "distribute", "channel Chan1 does not commit its split to PayTo1", "skipped"],
  [
    "open",
    "seal_expired_and_distribute",
    "the buyer's token account Ata1 does not exist, so Distribute would send the buyer's refund of 1500000 to the " +
      "program's treasury; waiting for the buyer to fix it",
    "skipped",
  ],
  ["stuck", "distribute", `${GAVE_UP}channel Chan1 does not commit its split to PayTo1`, "skipped"],
  ["open", "reclaim", "fee_payer_below_minimum", "held"],
  ["open", "distribute", "preflight refused: custom program error 0x1", "refused"],
  ["stuck", "seal_and_distribute", `${GAVE_UP}failed on chain: custom program error 0x1`, "failed"],
  ["dropped", "none", `deposit ${SIG} failed on chain: custom program error 0x1`, "dropped"],
  ["dropped", "none", "no upto deposit of this channel in the settlement ledger", "dropped"],
  ["voided", "none", "words of a keeper long gone", "dropped"],
  ["open", "wait", "a voucher may still settle it", "waiting"],
];

const insertWatch = (key: string, [state, action, words]: OldRow) =>
  env.DB.prepare(
    `INSERT INTO escrow_watch (payment_pda, funding_signature, state, next_check_at_ms, failures, last_action, ` +
      `last_signature, last_outcome, created_at_ms, updated_at_ms)
     VALUES (?1, ?2, ?3, ?4, 2, ?5, ?2, ?6, ?4, ?4)`,
  ).bind(key, SIG, state, NOW, action, words);
const insertChannel = (key: string, [state, action, words]: OldRow) =>
  env.DB.prepare(
    `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, token_program, ` +
      `deposit, expires_at, state, next_check_at_ms, failures, last_action, last_signature, last_outcome, ` +
      `created_at_ms, updated_at_ms, fee_payer)
     VALUES (?1, 'hash-' || ?1, 'bh', 'buyer', 'seller', 'mint', 'tp', '10', 1, ?2, ?3, 2, ?4, ?5, ?6, ?3, ?3, ` +
      `'fee-payer')`,
  ).bind(key, state, NOW, action, SIG, words);
const newWatch = (key: string, action: string | null, outcome: string | null) =>
  env.DB.prepare(
    `INSERT INTO escrow_watch (payment_pda, funding_signature, state, next_check_at_ms, last_action, last_outcome, ` +
      `last_detail, created_at_ms, updated_at_ms) VALUES (?1, ?2, 'open', ?3, ?4, ?5, 'words', ?3, ?3)`,
  ).bind(key, SIG, NOW, action, outcome);
const newChannel = (key: string, action: string | null, outcome: string | null) =>
  env.DB.prepare(
    `INSERT INTO upto_channels (channel_id, open_message_hash, open_blockhash, payer, pay_to, asset, token_program, ` +
      `deposit, expires_at, state, next_check_at_ms, last_action, last_outcome, last_detail, created_at_ms, ` +
      `updated_at_ms)
     VALUES (?1, 'hash-' || ?1, 'bh', 'buyer', 'seller', 'mint', 'tp', '10', 1, 'open', ?2, ?3, ?4, 'words', ?2, ?2)`,
  ).bind(key, NOW, action, outcome);

const keyOf = (table: string, i: number) => `${table}-${String(i).padStart(2, "0")}`;
/** What a rebuild must create again: the tables' indexes and triggers (none of the latter), with their SQL. */
const schemaObjectsOf = async () =>
  (
    await env.DB.prepare(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN ` +
        `('escrow_watch', 'upto_channels') AND name NOT LIKE 'sqlite_%' ORDER BY name`,
    ).all<Record<string, string>>()
  ).results;
const rowsOf = async (table: string, key: string) =>
  (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY ${key}`).all<Record<string, unknown>>()).results;

describe("migration 0015 over keeper rows written by the schema of 0014", () => {
  let before: { escrow_watch: Record<string, unknown>[]; upto_channels: Record<string, unknown>[] };
  let objectsBefore: Record<string, string>[];

  beforeAll(async () => {
    await databaseBefore("0015");
    for (const [i, row] of ESCROW_ROWS.entries()) await insertWatch(keyOf("watch", i), row).run();
    for (const [i, row] of UPTO_ROWS.entries()) await insertChannel(keyOf("channel", i), row).run();
    before = {
      escrow_watch: await rowsOf("escrow_watch", "payment_pda"),
      upto_channels: await rowsOf("upto_channels", "channel_id"),
    };
    objectsBefore = await schemaObjectsOf();
    await applyMigrations(migrationsFrom("0015"));
  });

  it("keeps every row; its words move to last_detail and last_outcome takes the value they meant", async () => {
    for (const [table, key, oldRows, actions] of [
      ["escrow_watch", "payment_pda", ESCROW_ROWS, ESCROW_KEEPER_ACTIONS],
      ["upto_channels", "channel_id", UPTO_ROWS, UPTO_KEEPER_ACTIONS],
    ] as const) {
      expect(before[table]).toHaveLength(oldRows.length);
      const expected = before[table].map((row, i) => {
        const [, action, words, outcome] = oldRows[i]!;
        const known = action === null || (actions as readonly string[]).includes(action);
        return {
          ...row,
          last_action: known ? action : "none",
          last_outcome: outcome,
          last_detail: known ? words : `${words} (last action: ${action})`,
        };
      });
      const after = await rowsOf(table, key);
      for (const [i, row] of after.entries()) expect(row, `${table} row ${i}: ${oldRows[i]![2]}`).toEqual(expected[i]);
    }
  });

  it("keeps the indexes of the rebuilt tables as they were (and they have no trigger)", async () => {
    const objects = await schemaObjectsOf();
    expect(objects).toEqual(objectsBefore);
    expect(objects.map((o) => `${o.type} ${o.name}`)).toEqual(
      [
        "escrow_watch_due_idx",
        "escrow_watch_purge_idx",
        "upto_channels_due_idx",
        "upto_channels_pay_to_idx",
        "upto_channels_payer_idx",
        "upto_channels_payer_opens_idx",
        "upto_channels_purge_idx",
        "upto_channels_rent_idx",
      ].map((name) => `index ${name}`),
    );
  });

  it("takes every value of each closed set and refuses any other", async () => {
    for (const outcome of KEEPER_LOOK_OUTCOMES) {
      await newWatch(`new-watch-${outcome}`, "none", outcome).run();
      await newChannel(`new-channel-${outcome}`, "none", outcome).run();
    }
    for (const action of ESCROW_KEEPER_ACTIONS) await newWatch(`new-watch-${action}`, action, "landed").run();
    for (const action of UPTO_KEEPER_ACTIONS) await newChannel(`new-channel-${action}`, action, "landed").run();
    await expect(newWatch("bad-outcome", "release", "released").run()).rejects.toThrow(/CHECK constraint failed/);
    await expect(newWatch("bad-words", "none", "funding x not confirmed yet").run()).rejects.toThrow(
      /CHECK constraint failed/,
    );
    await expect(newChannel("bad-outcome", "reclaim", "reclaimed").run()).rejects.toThrow(/CHECK constraint failed/);
    // Each rail's actions only: an upto step is no escrow action, and the other way round.
    await expect(newWatch("bad-action", "reclaim", "landed").run()).rejects.toThrow(/CHECK constraint failed/);
    await expect(newChannel("bad-action", "release", "landed").run()).rejects.toThrow(/CHECK constraint failed/);
    await expect(
      env.DB.prepare(`UPDATE upto_channels SET last_outcome = 'closed' WHERE channel_id = 'new-channel-landed'`).run(),
    ).rejects.toThrow(/CHECK constraint failed/);
  });
});
