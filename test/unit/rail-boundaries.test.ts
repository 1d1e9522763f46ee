import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The core/rail boundary, read from the source text: the core (the settle engine, the x402 wire protocol, the HTTP
 * layer, the chain layer, the shared store, the platform and the Cron wiring) names no scheme and no rail's table and
 * imports no rail folder, and no rail folder imports another. A rail is one folder of src/rails/; the core reaches the
 * rails only through the top-level files of src/rails/ (the registry, the RailModule type, what the rails' fee quotes
 * and seller views share). Prose inside comments, route summaries and descriptions (the published API documentation)
 * may mention a rail; code may not.
 */
const SRC = path.join(import.meta.dirname, "../../src");
const RAILS_DIR = path.join(SRC, "rails");
const CORE_FOLDERS = ["settlement", "x402", "http", "chain", "store", "platform", "jobs"];
const CORE = CORE_FOLDERS.map((folder) => path.join(SRC, folder));

/**
 * The one known leak, to be removed (not a pattern to follow): the fee payer's exposure budget counts a live upto
 * channel's rent on its upto_channels row (the rail writes that row through the budget's port, so no core file
 * imports the rail), and its /health query labels that rent with the upto scheme's name. Nothing may be added here.
 */
const KNOWN_NAME_LEAKS = [/^store\/fee-payer-exposure\.ts:\d+: .*(?:'upto' AS rail|r\.rail === "upto")/];
const RAIL_FOLDERS = readdirSync(RAILS_DIR).filter((name) => statSync(path.join(RAILS_DIR, name)).isDirectory());

/**
 * The same budget leak in table form: the exposure budget's queries read the upto channels' table by name. Only that
 * file may name a rail's table; nothing may be added here.
 */
const KNOWN_TABLE_LEAKS = [/^store\/fee-payer-exposure\.ts:\d+: .*\bupto_channels\b/];

/** The D1 tables the rails declare (`sqliteTable("<name>"` in src/rails/<scheme>/store/tables.ts). */
function railTableNames(): string[] {
  return RAIL_FOLDERS.flatMap((rail) => {
    const file = path.join(RAILS_DIR, rail, "store", "tables.ts");
    try {
      return [...readFileSync(file, "utf8").matchAll(/sqliteTable\(\s*["'`]([a-z0-9_]+)["'`]/g)].map((m) => m[1]!);
    } catch {
      return [];
    }
  });
}

/** `core/file.ts:line: code` for every line of core code that names a rail's table (a rail's table is its own business). */
function coreTableLeaks(): string[] {
  const tables = new RegExp(`\\b(?:${railTableNames().join("|")})\\b`);
  return CORE.flatMap(sourceFiles).flatMap((file) =>
    codeOf(file)
      .split("\n")
      .flatMap((line, i) =>
        tables.test(line) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [],
      ),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(dir, file));
}

/** Relative import targets of a file, resolved to paths inside src/ (with the `.ts` the specifier leaves out). */
function importTargets(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => {
    const target = path.resolve(path.dirname(file), m[1]!);
    return target.endsWith(".ts") ? target : `${target}.ts`;
  });
}

/** The rail folder a path lies in (src/rails/<folder>/...), else null. */
function railFolderOf(target: string): string | null {
  const relative = path.relative(RAILS_DIR, target);
  if (relative.startsWith("..")) return null;
  const [first, ...rest] = relative.split(path.sep);
  return rest.length > 0 && RAIL_FOLDERS.includes(first!) ? first! : null;
}

/** `core/file.ts -> rails/<scheme>/...` for every import of a rail folder by a core file. */
function coreImportLeaks(): string[] {
  return CORE.flatMap(sourceFiles).flatMap((file) =>
    importTargets(file)
      .filter((target) => railFolderOf(target) !== null)
      .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
  );
}

/** `core/file.ts:line: code` for every line of core code that names a scheme. */
function coreNameLeaks(): string[] {
  const names = RAIL_FOLDERS.map((name) => name.replace(/[-]/g, "\\-")).join("|");
  // A string literal that is exactly a scheme name ("upto", 'exact', `sla-escrow`), a member keyed by one
  // (exact: / "sla-escrow":), or the alias form (v2:solana:upto).
  const patterns = [
    new RegExp(`["'\`](?:${names})["'\`]`),
    new RegExp(`(?:^|[\\s{,])(?:${names}|"(?:${names})")\\s*:(?!:)`),
    new RegExp(`v2:solana:(?:${names})\\b`),
  ];
  return CORE.flatMap(sourceFiles).flatMap((file) =>
    codeOf(file)
      .split("\n")
      .flatMap((line, i) =>
        patterns.some((p) => p.test(line))
          ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim().slice(0, 120)}`]
          : [],
      ),
  );
}

/** The code of a file without its comments (line and block), so only code and string literals are searched. */
function codeOf(file: string): string {
  return readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

describe("the core/rail boundary", () => {
  it("finds the rails (one folder each)", () => {
    expect(RAIL_FOLDERS).toEqual(expect.arrayContaining(["exact", "sla-escrow", "upto"]));
  });

  it(`${CORE_FOLDERS.join("/, ")}/ import no rail folder (only the top-level files of src/rails/)`, () => {
    expect(coreImportLeaks()).toEqual([]);
  });

  it(`${CORE_FOLDERS.join("/, ")}/ name no scheme in code: no scheme literal, no scheme-keyed member, no alias`, () => {
    const leaks = coreNameLeaks().filter((leak) => !KNOWN_NAME_LEAKS.some((known) => known.test(leak)));
    expect(leaks).toEqual([]);
  });

  it(`${CORE_FOLDERS.join("/, ")}/ name no rail's table in code (a rail's purge is its RailModule.retention)`, () => {
    expect(railTableNames()).toEqual(
      expect.arrayContaining([
        "escrow_watch",
        "upto_channels",
        "sponsored_funding_failures",
        "jit_provisions",
        "sweep_runs",
      ]),
    );
    const leaks = coreTableLeaks().filter((leak) => !KNOWN_TABLE_LEAKS.some((known) => known.test(leak)));
    expect(leaks).toEqual([]);
    expect(new RegExp(`\\b(?:${railTableNames().join("|")})\\b`).test("DELETE FROM escrow_watch WHERE")).toBe(true);
  });

  it("no rail folder imports another rail folder (shared Solana helpers live in src/chain/)", () => {
    const leaks = RAIL_FOLDERS.flatMap((rail) =>
      sourceFiles(path.join(RAILS_DIR, rail)).flatMap((file) =>
        importTargets(file)
          .filter((target) => {
            const other = railFolderOf(target);
            return other !== null && other !== rail;
          })
          .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
      ),
    );
    expect(leaks).toEqual([]);
  });

  it("the known leak is exactly the budget's label of the upto channels' rent (nothing else is excused)", () => {
    for (const leak of coreNameLeaks()) expect(leak.startsWith("store/fee-payer-exposure.ts:"), leak).toBe(true);
  });

  it("the boundary check is not vacuous: it sees a scheme literal and a cross-rail import where there is one", () => {
    const names = RAIL_FOLDERS.join("|");
    expect(new RegExp(`["'\`](?:${names})["'\`]`).test(`if (scheme === "upto") return;`)).toBe(true);
    expect(railFolderOf(path.join(RAILS_DIR, "exact", "build.ts"))).toBe("exact");
    expect(railFolderOf(path.join(RAILS_DIR, "registry.ts"))).toBe(null);
    // Every rail folder has files this test reads.
    for (const rail of RAIL_FOLDERS) expect(sourceFiles(path.join(RAILS_DIR, rail)).length).toBeGreaterThan(0);
  });
});
