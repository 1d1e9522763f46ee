import { SWEEP_CRON } from "../jobs/scheduled";
import { CONSOLE_SCRIPT } from "./page-scripts.generated";

/**
 * The script of /console, served as /assets/console.js (same origin, so the page's CSP can stay 'self'): the sources
 * are src/page/browser/console.ts and src/page/browser/console/, bundled by `npm run build:pages`. The sweep's Cron
 * Trigger is written in here, so the console names the schedule that runs.
 */
export const CONSOLE_JS = CONSOLE_SCRIPT.replace("@@SWEEP_CRON@@", SWEEP_CRON);
