/**
 * `npm run build:pages`: bundles the browser scripts of the pages (src/page/browser/*.ts, type-checked by
 * `npm run typecheck` against the DOM) into static/assets/home.js, console.js and tx.js, files of the Worker's
 * static-assets directory (wrangler.toml [assets]).
 *
 * Why committed files rather than a build step: the Worker and its static files are served by `wrangler deploy`
 * (and `--dry-run`, which `npm start` serves), by the vitest Workers pool and by the e2e servers, each from a clean
 * clone with no step of ours before it; checked-in files work for all of them unchanged.
 * test/unit/page/page-scripts.test.ts rebuilds them and fails when one differs, naming this command (as the drizzle
 * snapshot test does for migrations). `npm start` and `npm run dev` run it first (prestart, predev), so a local run
 * always serves the sources as they are.
 */

import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { RAIL_JOBS_CRON } from "../src/jobs/scheduled";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Each page's entry and the file of static/ it is bundled into. */
export const PAGE_SCRIPTS = [
  { entry: "src/page/browser/home.ts", file: "static/assets/home.js" },
  { entry: "src/page/browser/console.ts", file: "static/assets/console.js" },
  { entry: "src/page/browser/tx.ts", file: "static/assets/tx.js" },
] as const;

/** The sweep's Cron Trigger, written into the console's script so it names the schedule that runs. */
const SWEEP_CRON_PLACEHOLDER = "@@SWEEP_CRON@@";

/** The text a page's script is bundled to. */
export async function pageScript(entry: string): Promise<string> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    tsconfig: "src/page/browser/tsconfig.json",
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    // Served to every visitor: small beats readable here (the sources are in src/page/browser/).
    minify: true,
    logLevel: "silent",
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return output.text.replaceAll(SWEEP_CRON_PLACEHOLDER, RAIL_JOBS_CRON);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const { entry, file } of PAGE_SCRIPTS) {
    writeFileSync(path.join(ROOT, file), await pageScript(entry));
    console.log(`wrote ${file}`);
  }
}
