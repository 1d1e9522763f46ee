import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PAGE_SCRIPTS, pageScript } from "../../../scripts/build-page-scripts";

const served = (file: string) => readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8");

/**
 * The pages' scripts are TypeScript (src/page/browser/), bundled into checked-in files of static/ (the Worker's static
 * assets). This is the check that each file is what its source builds to now, so no edit of a browser source ships
 * unbundled.
 */
describe("static/assets/*.js", () => {
  it("are what `npm run build:pages` builds from src/page/browser/ (run it after editing a browser " +
    "source)", async () => {
    for (const { entry, file } of PAGE_SCRIPTS) {
      expect(served(file) === (await pageScript(entry)), `${file} is stale: run \`npm run build:pages\``).toBe(true);
    }
  }, 30_000);

  it("are three strict, self-contained browser scripts (no module syntax left to load)", () => {
    for (const { file } of PAGE_SCRIPTS) {
      const script = served(file);
      expect(script.startsWith('"use strict";')).toBe(true);
      expect(() => new Function(script)).not.toThrow();
      expect(script).not.toMatch(/\bimport\s*[{("*]|\bexport\s/);
    }
  });
});
