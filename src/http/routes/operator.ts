import type { RouteDef } from "../route-def";
import { parseJsonBody, parseQuery } from "../parse-input";
import { withOperatorBearer } from "../middleware/operator-auth";
import type { Config } from "../../config/load-config";
import { defaultSweepOptions, runSweep, type SweepOptions } from "../../jobs/sweep/run-sweep";
import { runRecorded } from "../../jobs/job-run";
import { sweepJob, summarizeSweep } from "../../jobs/sweep-job";
import { escrowKeeperJob, summarizeKeeper } from "../../jobs/escrow-keeper-job";
import { SweepBodySchema, VaultSnapshotQuerySchema } from "../../jobs/sweep/sweep-inputs";
import { buildVaultSnapshot } from "../../jobs/sweep/vault-snapshot";
import { runEscrowKeeper } from "../../jobs/escrow-keeper/run-keeper";
import { maxPaymentsWithinBudget } from "../../jobs/escrow-keeper/budget";
import { EscrowKeeperBodySchema } from "../../jobs/escrow-keeper/keeper-inputs";

/** A sweep started by an operator route: a real run is recorded as the job's last run (/health), a dry run is not. */
function recordedSweep(config: Config, db: D1Database, options: SweepOptions) {
  const run = () => runSweep(config, db, options);
  return options.dryRun ? run() : runRecorded(db, sweepJob.name, options.trigger, run, summarizeSweep);
}

/** Operator endpoints (spec §4.5): sweeps behind the bearer token, and the vault snapshot. */
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
    {
      key: "sweep",
      method: "POST",
      path: "/sweep",
      tag: "Operator",
      auth: "bearer",
      summary: "Sweep eligible split vaults to their sellers (dryRun: true lists without changing anything); empty body = configured defaults",
      body: SweepBodySchema,
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
      handler: withOperatorBearer(async (c) => c.json(await recordedSweep(c.var.config, c.env.DB, defaultSweepOptions(c.var.config, "http-cron")))),
    },
    {
      key: "vaultSnapshot",
      method: "GET",
      path: "/vault-snapshot",
      // Public (no token): anyone may read a seller's vault balances, which are on chain anyway.
      tag: "Sellers",
      summary: "A seller's split-vault balances: spendable SOL and, with ?spl_mint=, the vault token account",
      query: VaultSnapshotQuerySchema,
      handler: async (c) => {
        const { wallet, spl_mint } = parseQuery(c, VaultSnapshotQuerySchema);
        return c.json(await buildVaultSnapshot(c.var.config, wallet, spl_mint));
      },
    },
  ];
}
