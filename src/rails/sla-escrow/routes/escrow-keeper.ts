import type { AppContext } from "../../../http/context";
import { type RouteDef, route } from "../../../http/route-def";
import { runRecorded } from "../../../jobs/job-run";
import { maxPaymentsPerRun } from "../keeper/budget";
import { escrowKeeperJob, summarizeKeeper } from "../keeper/escrow-keeper-job";
import { EscrowKeeperBodySchema } from "../keeper/keeper-inputs";
import {
  EscrowCloseOperatorBodySchema,
  EscrowSettleOperatorBodySchema,
  toPr402KeeperResponse,
} from "../keeper/pr402-keeper-report";
import { runEscrowKeeper } from "../keeper/run-keeper";
import { KeeperPassResponseSchema } from "./responses";

/**
 * The escrow keeper behind the operator bearer (docs/facilitator-spec.md §4.5): our trigger and pr402's route names for
 * the same pass.
 */
export function escrowKeeperRoutes(): RouteDef[] {
  return [
    route({
      key: "escrowKeeper",
      method: "POST",
      path: "/escrow-keeper",
      tag: "Operator",
      auth: "bearer",
      summary:
        "Release or refund the sla-escrow payments whose verdict or expiry the program allows (dryRun: true lists " +
        "without sending)",
      body: EscrowKeeperBodySchema,
      emptyBodyIsDefaults: true,
      handler: async (c, { body }) => {
        const options = { dryRun: body.dryRun ?? false, limit: keeperLimit(c, body) };
        const run = () => runEscrowKeeper(c.var.config, c.env.DB, options);
        return c.json(
          options.dryRun
            ? await run()
            : await runRecorded(c.env.DB, escrowKeeperJob.name, "http", run, summarizeKeeper),
        );
      },
    }),
    ...pr402KeeperRoutes(),
  ];
}

/**
 * The caller's limit, never beyond what one run may take on under the Workers plan
 * (src/platform/config/workers-plan.ts).
 */
function keeperLimit(c: AppContext, body: { limit?: number }): number {
  return Math.min(body.limit ?? Number.MAX_SAFE_INTEGER, maxPaymentsPerRun(c.var.config.workersPlan));
}

/** Runs one keeper pass for pr402's route names; an empty body (or a GET) uses the keeper's defaults. */
async function keeperPass(c: AppContext, body: { dryRun?: boolean; limit?: number }) {
  const report = await runEscrowKeeper(c.var.config, c.env.DB, {
    dryRun: body.dryRun ?? false,
    limit: keeperLimit(c, body),
  });
  return c.json(toPr402KeeperResponse(report, body));
}

/** pr402's escrow operator routes (public/openapi.json), mapped onto our keeper behind the same operator bearer. */
function pr402KeeperRoutes(): RouteDef[] {
  const post = (
    key: string,
    path: string,
    schema: typeof EscrowSettleOperatorBodySchema | typeof EscrowCloseOperatorBodySchema,
    summary: string,
  ) =>
    route({
      key,
      method: "POST",
      path,
      tag: "Operator",
      auth: "bearer",
      summary,
      body: schema,
      emptyBodyIsDefaults: true,
      response: KeeperPassResponseSchema,
      handler: (c, { body }) => keeperPass(c, body),
    });
  const cron = (key: string, path: string, summary: string) =>
    route({
      key,
      method: "GET",
      path,
      tag: "Operator",
      auth: "bearer",
      summary,
      response: KeeperPassResponseSchema,
      handler: (c) => keeperPass(c, {}),
    });
  return [
    post(
      "slaEscrowSettle",
      "/sla-escrow-settle",
      EscrowSettleOperatorBodySchema,
      "pr402's escrow settle route: one keeper pass (release/refund what the program allows); pr402's scan-steering " +
        "fields are accepted and listed in `ignored`",
    ),
    cron(
      "slaEscrowSettleCron",
      "/sla-escrow-settle-cron",
      "The same keeper pass with its defaults, for schedulers that issue GET",
    ),
    post(
      "slaEscrowClose",
      "/sla-escrow-close",
      EscrowCloseOperatorBodySchema,
      "pr402's escrow close route: the same keeper pass, which also closes settled payments past closed_at (rent to " +
        "the buyer)",
    ),
    cron(
      "slaEscrowCloseCron",
      "/sla-escrow-close-cron",
      "The same keeper pass with its defaults, for schedulers that issue GET",
    ),
  ];
}
