import type { RouteDef } from "../route-def";
import { parseJsonBody, parseQuery } from "../parse-input";
import { withOperatorBearer } from "../middleware/operator-auth";
import type { Config } from "../../config/load-config";
import { defaultSweepOptions, runSweep, type SweepOptions } from "../../sweep/run-sweep";
import { runRecorded } from "../../jobs/job-run";
import { sweepJob, summarizeSweep } from "../../jobs/sweep-job";
import { escrowKeeperJob, summarizeKeeper } from "../../jobs/escrow-keeper-job";
import { SweepBodySchema, VaultSnapshotQuerySchema } from "../../sweep/sweep-inputs";
import { buildVaultSnapshot, integerJson } from "../../sweep/vault-snapshot";
import { KeeperPassResponseSchema, SweepResponseSchema, VaultSnapshotResponseSchema } from "../responses/schemas";
import { runEscrowKeeper } from "../../escrow-keeper/run-keeper";
import { maxPaymentsWithinBudget } from "../../escrow-keeper/budget";
import { EscrowKeeperBodySchema } from "../../escrow-keeper/keeper-inputs";
import { EscrowCloseOperatorBodySchema, EscrowSettleOperatorBodySchema, toPr402KeeperResponse } from "../../escrow-keeper/pr402-keeper-report";
import type { AppContext } from "../context";

/** A sweep started by an operator route: a real run is recorded as the job's last run (/health), a dry run is not. */
function recordedSweep(config: Config, db: D1Database, options: SweepOptions) {
  const run = () => runSweep(config, db, options);
  return options.dryRun ? run() : runRecorded(db, sweepJob.name, options.trigger, run, summarizeSweep);
}

/** Operator endpoints (docs/facilitator-spec.md §4.5): sweeps behind the bearer token, and the vault snapshot. */
export function operatorRoutes(): RouteDef[] {
  return [
    {
      key: "escrowKeeper",
      method: "POST",
      path: "/escrow-keeper",
      tag: "Operator",
      auth: "bearer",
      summary: "Release or refund the sla-escrow payments whose verdict or expiry the program allows (dryRun: true lists without sending)",
      body: EscrowKeeperBodySchema,
      handler: withOperatorBearer(async (c) => {
        const raw = await c.req.text();
        const body = raw.trim() === "" ? {} : await parseJsonBody(c, EscrowKeeperBodySchema);
        const options = { dryRun: body.dryRun ?? false, limit: body.limit ?? maxPaymentsWithinBudget() };
        const run = () => runEscrowKeeper(c.var.config, c.env.DB, options);
        return c.json(options.dryRun ? await run() : await runRecorded(c.env.DB, escrowKeeperJob.name, "http", run, summarizeKeeper));
      }),
    },
    ...pr402KeeperRoutes(),
    {
      key: "sweep",
      method: "POST",
      path: "/sweep",
      tag: "Operator",
      auth: "bearer",
      summary: "Sweep eligible split vaults to their sellers (dryRun: true lists without changing anything); empty body = configured defaults",
      body: SweepBodySchema,
      response: SweepResponseSchema,
      handler: withOperatorBearer(async (c) => {
        const raw = await c.req.text();
        const body = raw.trim() === "" ? {} : await parseJsonBody(c, SweepBodySchema);
        const defaults = defaultSweepOptions(c.var.config, "http");
        return c.json(
          await recordedSweep(c.var.config, c.env.DB, {
            ...defaults,
            dryRun: body.dryRun ?? false,
            limit: body.limit ?? defaults.limit,
            cooldownSeconds: body.cooldownSeconds ?? defaults.cooldownSeconds,
            requireRecentSettleWithinSeconds: body.requireRecentSettleWithinSeconds ?? defaults.requireRecentSettleWithinSeconds,
          }),
        );
      }),
    },
    {
      key: "sweepCron",
      method: "GET",
      path: "/sweep-cron",
      tag: "Operator",
      auth: "bearer",
      summary: "The same sweep with the configured defaults, for schedulers that issue GET",
      response: SweepResponseSchema,
      handler: withOperatorBearer(async (c) => c.json(await recordedSweep(c.var.config, c.env.DB, defaultSweepOptions(c.var.config, "http-cron")))),
    },
    {
      key: "vaultSnapshot",
      method: "GET",
      path: "/vault-snapshot",
      // Public (no token): anyone may read a seller's vault balances, which are on chain anyway.
      tag: "Sellers",
      summary:
        "A seller's split-vault balances: spendable SOL and, with ?spl_mint=, the vault token account " +
        "(?spl_balance_scope=owner_wallet: the seller wallet's own balance; ?spl_token_program= must match the mint)",
      query: VaultSnapshotQuerySchema,
      response: VaultSnapshotResponseSchema,
      handler: async (c) => {
        const query = parseQuery(c, VaultSnapshotQuerySchema);
        const snapshot = await buildVaultSnapshot(c.var.config, query.wallet, query.spl_mint, {
          splTokenProgram: query.spl_token_program,
          splBalanceScope: query.spl_balance_scope,
        });
        return c.body(integerJson(snapshot), 200, { "Content-Type": "application/json; charset=UTF-8" });
      },
    },
  ];
}

/** Runs one keeper pass for pr402's route names; an empty body (or a GET) uses the keeper's defaults. */
async function keeperPass(c: AppContext, body: { dryRun?: boolean; limit?: number }) {
  const report = await runEscrowKeeper(c.var.config, c.env.DB, { dryRun: body.dryRun ?? false, limit: body.limit ?? maxPaymentsWithinBudget() });
  return c.json(toPr402KeeperResponse(report, body));
}

/** pr402's escrow operator routes (public/openapi.json), mapped onto our keeper behind the same operator bearer. */
function pr402KeeperRoutes(): RouteDef[] {
  const post = (key: string, path: string, schema: typeof EscrowSettleOperatorBodySchema | typeof EscrowCloseOperatorBodySchema, summary: string): RouteDef => ({
    key,
    method: "POST",
    path,
    tag: "Operator",
    auth: "bearer",
    summary,
    body: schema,
    response: KeeperPassResponseSchema,
    handler: withOperatorBearer(async (c) => {
      const raw = await c.req.text();
      return keeperPass(c, raw.trim() === "" ? {} : await parseJsonBody(c, schema));
    }),
  });
  const cron = (key: string, path: string, summary: string): RouteDef => ({
    key,
    method: "GET",
    path,
    tag: "Operator",
    auth: "bearer",
    summary,
    response: KeeperPassResponseSchema,
    handler: withOperatorBearer((c) => keeperPass(c, {})),
  });
  return [
    post("slaEscrowSettle", "/sla-escrow-settle", EscrowSettleOperatorBodySchema, "pr402's escrow settle route: one keeper pass (release/refund what the program allows); pr402's scan-steering fields are accepted and listed in `ignored`"),
    cron("slaEscrowSettleCron", "/sla-escrow-settle-cron", "The same keeper pass with its defaults, for schedulers that issue GET"),
    post("slaEscrowClose", "/sla-escrow-close", EscrowCloseOperatorBodySchema, "pr402's escrow close route: the same keeper pass, which also closes settled payments past closed_at (rent to the buyer)"),
    cron("slaEscrowCloseCron", "/sla-escrow-close-cron", "The same keeper pass with its defaults, for schedulers that issue GET"),
  ];
}
