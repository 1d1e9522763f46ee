import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, databaseBefore, migrationsFrom } from "../../../support/workerd/migration-steps";

/**
 * Migration 0014 on a database written by the schema before it: this file's database is emptied and built again from
 * migrations 0000–0013 (the real SQL), provider rows are written with that schema, then 0014 runs. Every row survives
 * the rebuild unchanged, both indexes and every trigger are back (the resources' triggers untouched, so they fire in
 * the same order beside the full-text ones), and a row without a vault (the wallet payTo form) is now accepted.
 */
const NOW = 1_800_000_000_000;

const insertProvider = (wallet: string, vault: string | null, retiredAtMs: number | null = null) =>
  env.DB.prepare(
    `INSERT INTO providers (wallet_pubkey, settlement_mode, spl_mint, split_vault_pda, service_url, display_name, ` +
      `tags_json, service_metadata_json, listing_opt_in,
       registration_verified_at_ms, updated_at_ms, retired_at_ms, proven_origin, origin_proven_at_ms)
     VALUES (?1, 'spl', 'mint', ?2, 'https://seller.example', 'Seller', '["data"]', '{"plan":"basic"}', 1, ?3, ?3, ` +
      `?4, 'https://seller.example', ?3)`,
  ).bind(wallet, vault, NOW, retiredAtMs);

const triggers = async () =>
  (
    await env.DB.prepare(`SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).all<
      Record<string, unknown>
    >()
  ).results;
/**
 * The resources table's triggers in creation order: the order they fire in beside each other (full-text and
 * visibility).
 */
const resourcesTriggerOrder = async () =>
  (
    await env.DB.prepare(
      `SELECT rowid, name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'resources' ORDER BY rowid`,
    ).all<Record<string, unknown>>()
  ).results;
const rows = async () =>
  (await env.DB.prepare(`SELECT * FROM providers ORDER BY wallet_pubkey`).all<Record<string, unknown>>()).results;

/** The triggers migrations after 0014 create, in name order (none of them on providers or resources). */
const ADDED_LATER = ["fee_payer_spend_hours_delete", "fee_payer_spend_hours_insert", "fee_payer_spend_hours_update"];

describe("migration 0014 over provider rows written by the schema of 0013", () => {
  let before: Record<string, unknown>[];
  let triggersBefore: Record<string, unknown>[];
  let resourcesOrderBefore: Record<string, unknown>[];

  beforeAll(async () => {
    await databaseBefore("0014");
    await insertProvider("wallet-a", "vault-a").run();
    await insertProvider("wallet-b", "vault-b", NOW + 1).run();
    // The old schema refused a provider without a vault: the reason for this migration.
    await expect(insertProvider("wallet-c", null).run()).rejects.toThrow(/NOT NULL constraint failed/);
    before = await rows();
    triggersBefore = await triggers();
    resourcesOrderBefore = await resourcesTriggerOrder();
    await applyMigrations(migrationsFrom("0014"));
  });

  it("keeps every row as it was", async () => {
    expect(before).toHaveLength(2);
    expect(await rows()).toEqual(before);
  });

  it("keeps both indexes", async () => {
    const indexes = await env.DB.prepare(
      `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'providers' AND name NOT LIKE 'sqlite_%' ` +
        `ORDER BY name`,
    ).all();
    expect(indexes.results.map((r) => r.name)).toEqual(["providers_cursor_idx", "providers_listing_idx"]);
  });

  it("keeps every trigger, word for word (the resources' visible flag follows the merchant as before)", async () => {
    expect(triggersBefore.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "providers_visible_insert",
        "providers_visible_update",
        "providers_visible_delete",
        "resources_visible_insert",
      ]),
    );
    // Later migrations run too: 0018 adds the spend-by-the-hour triggers on fee_payer_exposure.
    const after = await triggers();
    expect(after.filter((t) => !ADDED_LATER.includes(String(t.name)))).toEqual(triggersBefore);
    expect(after.filter((t) => ADDED_LATER.includes(String(t.name))).map((t) => t.name)).toEqual(ADDED_LATER);
    // The resources' triggers are left alone (not dropped and created again), so they keep their firing order.
    expect(resourcesOrderBefore.map((t) => t.name)).toContain("resources_visible_insert");
    expect(await resourcesTriggerOrder()).toEqual(resourcesOrderBefore);
  });

  it("accepts a provider without a vault; the wallet is still the key", async () => {
    await insertProvider("wallet-c", null).run();
    expect((await rows()).find((r) => r.wallet_pubkey === "wallet-c")).toMatchObject({
      split_vault_pda: null,
      settlement_mode: "spl",
    });
    await expect(insertProvider("wallet-a", null).run()).rejects.toThrow(/UNIQUE constraint failed/);
  });
});
