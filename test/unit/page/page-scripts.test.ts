import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED_MODULE, pageScriptsModule } from "../../../scripts/build-page-scripts";
import { CONSOLE_SCRIPT, HOME_SCRIPT, TRANSACTION_SCRIPT } from "../../../src/page/page-scripts.generated";

/**
 * The pages' scripts are TypeScript (src/page/browser/), bundled into a checked-in module the Worker imports. This is
 * the check that the module is what the sources build to now, so no edit of a browser source ships unbundled.
 */
describe("src/page/page-scripts.generated.ts", () => {
  it("is what `npm run build:pages` builds from src/page/browser/ (run it after editing a browser source)", async () => {
    expect(
      readFileSync(GENERATED_MODULE, "utf8") === (await pageScriptsModule()),
      "src/page/page-scripts.generated.ts is stale: run `npm run build:pages`",
    ).toBe(true);
  }, 30_000);

  it("holds three strict, self-contained browser scripts (no module syntax left to load)", () => {
    for (const script of [HOME_SCRIPT, CONSOLE_SCRIPT, TRANSACTION_SCRIPT]) {
      expect(script.startsWith('"use strict";')).toBe(true);
      expect(() => new Function(script)).not.toThrow();
      expect(script).not.toMatch(/\bimport\s*[{("*]|\bexport\s/);
    }
  });
});
