import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The core/rail boundary, read from the source text. The core is every folder of src/ but rails/ (the settle engine,
 * the x402 wire protocol, the HTTP layer, the chain layer, the shared store, the platform, the Cron wiring, the
 * directory and the pages) and the top files of src/. It imports no rail folder and names no rail in code: no scheme,
 * no rail's table, no rail's configuration key or `Config` member, no rail's job name, no identifier built on a
 * scheme's name. No rail folder imports another. A rail is one folder of src/rails/; the core reaches the rails only
 * through the top-level files of src/rails/ (the registry, the RailModule type, what the rails' fee quotes and seller
 * views share). Prose inside comments, route summaries and descriptions (the published API documentation) may mention a
 * rail by its scheme; code may not.
 */
const SRC = path.join(import.meta.dirname, "../../../src");
const RAILS_DIR = path.join(SRC, "rails");
const CORE_FOLDERS = ["settlement", "x402", "http", "chain", "store", "platform", "jobs", "directory", "page"];
const CORE_FILES = [
  ...CORE_FOLDERS.flatMap((folder) => sourceFiles(path.join(SRC, folder))),
  ...readdirSync(SRC)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(SRC, name)),
];
const RAIL_FOLDERS = readdirSync(RAILS_DIR).filter((name) => statSync(path.join(RAILS_DIR, name)).isDirectory());

/**
 * The leaks still there, each named by file and what it names, to be moved into its rail (not a pattern to follow:
 * nothing may be added here). Every name listed must still be a leak, so the list only shrinks. A line naming two
 * schemes shows as its first.
 * - The directory's schemes (the listed resources' and the seller preview's) are constants, to come from the rails
 *   list.
 * - The pages (the console's HTML and the browser code, a client of the public API) name the schemes whose answers
 *   they render: the console's scheme picker, the fee lines per scheme, the sweep job's /health entry.
 */
const KNOWN_LEAKS: readonly { file: RegExp; names: readonly string[] }[] = [
  {
    file: new RegExp(
      String.raw`^directory\/(?:resources\/(?:listed-schemes|resource-manifest-schema|resource-inputs|` +
        String.raw`resource-search)|sellers\/seller-inputs)\.ts$`,
    ),
    names: ["exact"],
  },
  { file: /^http\/routes\/sellers-responses\.ts$/, names: ["EXACT_SCHEME"] },
  { file: /^page\/console-html\.ts$/, names: ["exact"] },
  {
    file: /^page\/browser\/(?:console\.ts|console\/(?:money|onboarding|state)\.ts|fee-lines\.ts)$/,
    names: ["ExactView", "exact", "sla-escrow", "sweep", "upto"],
  },
];

interface Leak {
  file: string;
  line: number;
  name: string;
  code: string;
}

const show = (leak: Leak) => `${leak.file}:${leak.line}: ${leak.name} in ${leak.code.trim().slice(0, 100)}`;
const isKnown = (leak: Leak) =>
  KNOWN_LEAKS.some((known) => known.file.test(leak.file) && known.names.includes(leak.name));

/** Every match of `pattern` (global, its first group or whole match the name) in the core's code, comments left out. */
function coreLeaks(pattern: RegExp): Leak[] {
  return CORE_FILES.flatMap((file) =>
    codeOf(file)
      .split("\n")
      .flatMap((code, i) =>
        [...code.matchAll(pattern)].map((m) => ({
          file: path.relative(SRC, file).split(path.sep).join("/"),
          line: i + 1,
          name: m[1] ?? m[0],
          code,
        })),
      ),
  );
}

function unknownLeaks(pattern: RegExp): string[] {
  return coreLeaks(pattern)
    .filter((leak) => !isKnown(leak))
    .map(show);
}

const escapeDash = (text: string) => text.replace(/[-]/g, "\\-");
const anyOf = (names: readonly string[]) => names.map(escapeDash).join("|");

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

/** The configuration keys the rails' slices declare (the `keys` of rails/<scheme>/config.ts, env var names). */
function railConfigKeys(): string[] {
  return RAIL_FOLDERS.flatMap((rail) =>
    [...codeOf(path.join(RAILS_DIR, rail, "config.ts")).matchAll(/^\s{4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!),
  );
}

/**
 * The `Config` members the rails' slices add (their `…ConfigMembers` interface in rails/<scheme>/config.ts): a member
 * of its own (`sweep`, `upto`) and its fields of a member the core has too (`rails.exactVault`, `limits.jit…`).
 */
function railConfigMembers(): string[] {
  const coreMembers = membersOf(interfaceBody(path.join(SRC, "platform/config/load-config.ts"), "CoreConfig"));
  const railMembers = RAIL_FOLDERS.map((rail) =>
    membersOf(interfaceBody(path.join(RAILS_DIR, rail, "config.ts"), "\\w+ConfigMembers")),
  );
  // A member object several rails add to (`rails`, each rail's switch) or the core has too (`limits`) is shared.
  const count = new Map<string, number>();
  for (const members of railMembers) for (const name of members.keys()) count.set(name, (count.get(name) ?? 0) + 1);
  return railMembers.flatMap((members) =>
    [...members].flatMap(([name, fields]) =>
      coreMembers.has(name) || count.get(name)! > 1 ? [...fields.matchAll(/(\w+)\??\s*:/g)].map((m) => m[1]!) : [name],
    ),
  );
}

/** An interface body's top-level members (two-space indent), each with the text of its object type (empty if none). */
function membersOf(body: string): Map<string, string> {
  return new Map(
    [...body.matchAll(/^ {2}(\w+)\??: (?:\{([^}]*)\})?/gm)].map((m) => [m[1]!, m[2] ?? ""] as [string, string]),
  );
}

/** The body of `export interface <name> {…}` (up to the first line that is `}`). */
function interfaceBody(file: string, name: string): string {
  const match = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(codeOf(file));
  if (!match) throw new Error(`no interface ${name} in ${file}`);
  return match[1]!;
}

/** The names of the rails' Cron jobs (`name: "…"` of each `ScheduledJob` in a rail folder). */
function railJobNames(): string[] {
  return RAIL_FOLDERS.flatMap((rail) =>
    sourceFiles(path.join(RAILS_DIR, rail))
      .map((file) => readFileSync(file, "utf8"))
      .filter((text) => /:\s*ScheduledJob\b/.test(text))
      .flatMap((text) => [...text.matchAll(/^\s+name:\s*"([^"]+)"/gm)].map((m) => m[1]!)),
  );
}

/** A scheme's name as an identifier's word: `sla-escrow` gives slaEscrow, SlaEscrow, SLA_ESCROW, sla_escrow. */
function schemeWords(scheme: string): string[] {
  const parts = scheme.split("-");
  const pascal = parts.map((part) => part[0]!.toUpperCase() + part.slice(1)).join("");
  return [pascal[0]!.toLowerCase() + pascal.slice(1), pascal, parts.join("_").toUpperCase(), parts.join("_")];
}

/**
 * English words that are also a scheme's name, where the identifier means the word ("exact": precise), not the rail.
 * Each is listed by name.
 */
const WORDS_NOT_RAILS = new Set([
  "parseIsoExact",
  "exactFilters",
  "ExactFilters",
  "readExactJson",
  "needsExactIntegers",
  "exact_optional",
  "Exactly",
  // @x402/svm's class for the exact scheme, named in a comment-like error message of requirements-match.ts.
  "ExactSvmScheme",
]);

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
  return CORE_FILES.flatMap((file) =>
    importTargets(file)
      .filter((target) => railFolderOf(target) !== null)
      .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
  );
}

/**
 * A string literal that is exactly a scheme name ("upto", 'exact', `sla-escrow`), a member keyed by one
 * (exact: / "sla-escrow":), or the alias form (v2:solana:upto); the name is the first group.
 */
function schemePattern(): RegExp {
  const names = anyOf(RAIL_FOLDERS);
  return new RegExp(
    `["'\`](${names})["'\`]|(?:^|[\\s{,])(${names})\\s*:(?!:)|` +
      `(?:^|[\\s{,])"(${names})"\\s*:(?!:)|v2:solana:(${names})\\b`,
    "g",
  );
}

function schemeLeaks(): string[] {
  return coreLeaks(schemePattern())
    .map((leak) => ({ ...leak, name: firstGroup(leak) }))
    .filter((leak) => !isKnown(leak))
    .map(show);
}

function firstGroup(leak: Leak): string {
  const m = new RegExp(schemePattern().source).exec(leak.code);
  return m?.slice(1).find((group) => group !== undefined) ?? leak.name;
}

/** The code of a file without its comments (line and block), so only code and string literals are searched. */
function codeOf(file: string): string {
  return readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const CHECKS = {
  tables: () => new RegExp(`\\b(${railTableNames().join("|")})\\b`, "g"),
  configKeys: () => new RegExp(`\\b(${railConfigKeys().join("|")})\\b`, "g"),
  configMembers: () => new RegExp(`\\.(${railConfigMembers().join("|")})\\b`, "g"),
  jobNames: () => new RegExp(`["'\`](${anyOf(railJobNames())})["'\`]`, "g"),
  identifiers: () => {
    const words = RAIL_FOLDERS.flatMap(schemeWords);
    // An identifier with a scheme's word at its start (uptoOpen, SLA_ESCROW_…) or after a word boundary inside it
    // (bookUptoOpen, SVC_UPTO_MAX): camelCase, PascalCase, snake_case and CONSTANT_CASE.
    return new RegExp(`\\b(\\w*(?:${words.join("|")})\\w*)\\b`, "g");
  },
};

/**
 * Identifier leaks: the identifier contains a scheme's word at a word boundary of the identifier (not "sweeper" for
 * "sweep").
 */
function identifierLeaks(): string[] {
  const words = RAIL_FOLDERS.flatMap(schemeWords);
  const atBoundary = new RegExp(`(?:^|[a-z0-9_])(?:${words.join("|")})(?:$|[A-Z0-9_])|^(?:${words.join("|")})`);
  return coreLeaks(CHECKS.identifiers())
    .filter((leak) => leak.name !== leak.name.toLowerCase() || leak.name.includes("_"))
    .filter((leak) => atBoundary.test(leak.name) && !WORDS_NOT_RAILS.has(leak.name))
    .filter((leak) => !isKnown(leak))
    .map(show);
}

describe("the core/rail boundary", () => {
  it("finds the rails (one folder each) and what they declare", () => {
    expect(RAIL_FOLDERS).toEqual(expect.arrayContaining(["exact", "sla-escrow", "upto"]));
    expect(railTableNames()).toEqual(
      expect.arrayContaining([
        "escrow_watch",
        "upto_channels",
        "sponsored_funding_failures",
        "jit_provisions",
        "sweep_runs",
      ]),
    );
    expect(railConfigKeys()).toEqual(
      expect.arrayContaining([
        "SVC_EXACT_WALLET_PAYTO",
        "SVC_SLA_ESCROW_SPONSORED_FAILURES_PER_PAYER",
        "SVC_UPTO_TREASURY_OWNER",
      ]),
    );
    expect(railConfigMembers()).toEqual(
      expect.arrayContaining(["exactVault", "exactWallet", "jitProvisioningDailyCap", "sweep", "slaEscrow", "upto"]),
    );
    expect(railJobNames()).toEqual(expect.arrayContaining(["sweep", "escrow-keeper", "upto-keeper"]));
  });

  it("the core imports no rail folder (only the top-level files of src/rails/)", () => {
    expect(coreImportLeaks()).toEqual([]);
  });

  it("the core names no scheme in code: no scheme literal, no scheme-keyed member, no alias", () => {
    expect(schemeLeaks()).toEqual([]);
  });

  it("the core names no rail's table in code (a rail's purge is its RailModule.retention)", () => {
    expect(unknownLeaks(CHECKS.tables())).toEqual([]);
  });

  it("the core names no rail's configuration key (each rail's keys are its slice's, rails/<scheme>/config.ts)", () => {
    expect(unknownLeaks(CHECKS.configKeys())).toEqual([]);
  });

  it("the core reads no rail's Config member (a rail's switch, caps and settings are its own)", () => {
    expect(unknownLeaks(CHECKS.configMembers())).toEqual([]);
  });

  it("the core names no rail's Cron job (job health comes from the modules)", () => {
    expect(unknownLeaks(CHECKS.jobNames())).toEqual([]);
  });

  it("the core has no identifier built on a scheme's name (bookUptoOpen, SVC_UPTO_…, slaEscrowProgramId)", () => {
    expect(identifierLeaks()).toEqual([]);
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

  it("every known leak is still there (the list only shrinks: remove a name once its leak is gone)", () => {
    const all = [
      ...coreLeaks(schemePattern()).map((leak) => ({ ...leak, name: firstGroup(leak) })),
      ...Object.values(CHECKS).flatMap((check) => coreLeaks(check())),
    ];
    const gone = KNOWN_LEAKS.flatMap((known) =>
      known.names
        .filter((name) => !all.some((leak) => known.file.test(leak.file) && leak.name === name))
        .map((name) => `${known.file} ${name}`),
    );
    expect(gone).toEqual([]);
  });

  it("the checks are not vacuous: each sees a rail's name put back into core code", () => {
    const sees = (pattern: RegExp, code: string) => new RegExp(pattern.source).test(code);
    expect(sees(schemePattern(), `if (scheme === "upto") return;`)).toBe(true);
    expect(sees(CHECKS.tables(), "DELETE FROM escrow_watch WHERE")).toBe(true);
    expect(sees(CHECKS.configKeys(), "env.SVC_EXACT_WALLET_PAYTO")).toBe(true);
    expect(sees(CHECKS.configMembers(), "config.rails.exactVault.enabled")).toBe(true);
    expect(sees(CHECKS.configMembers(), "config.upto.treasuryOwner")).toBe(true);
    expect(sees(CHECKS.jobNames(), `names.includes("escrow-keeper")`)).toBe(true);
    expect(sees(CHECKS.identifiers(), "bookUptoOpen(config)")).toBe(true);
    expect(railFolderOf(path.join(RAILS_DIR, "exact", "build.ts"))).toBe("exact");
    expect(railFolderOf(path.join(RAILS_DIR, "registry.ts"))).toBe(null);
    // Every rail folder has files this test reads.
    for (const rail of RAIL_FOLDERS) expect(sourceFiles(path.join(RAILS_DIR, rail)).length).toBeGreaterThan(0);
  });
});
