import { buildApp } from "./app";
import type { Env } from "./env";
import { runScheduled } from "./jobs/scheduled";
import { RAILS } from "./rails/registry";

export { SettleLedgerObject } from "./settlement/settle-ledger-object";

const app = buildApp(RAILS);

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runScheduled(RAILS, controller.cron, env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
