/**
 * Fails when a source line is longer than 120 characters (CONTRIBUTING.md, "Code style"). Biome formats code to 120
 * but cannot shorten a comment or a string literal; this check holds those to the same width.
 *
 * Checked: the TypeScript and JavaScript under src/, test/, scripts/, bench/ and localnet/, as git tracks them.
 * Not checked: generated files (`*.generated.ts`, localnet/programs/build/), the OpenAPI and /supported snapshots
 * (`__surface__/`), static/ and data files (JSON), which no one writes by hand.
 *
 * Usage: `tsx scripts/check-line-length.ts [--max N] [file ...]` (with no files: every checked file git tracks).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_LINE_LENGTH = 120;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CHECKED_FOLDERS = ["src", "test", "scripts", "bench", "localnet"];
const CHECKED_FILE = /\.(?:ts|tsx|js|mjs)$/;
const SKIPPED = [/\.generated\.ts$/, /(?:^|\/)__surface__\//, /^localnet\/programs\/build\//, /^static\//];

/** Whether the check reads this repository path. */
export function isChecked(file: string): boolean {
  return (
    CHECKED_FOLDERS.some((folder) => file.startsWith(`${folder}/`)) &&
    CHECKED_FILE.test(file) &&
    !SKIPPED.some((pattern) => pattern.test(file))
  );
}

/** `file:line: length` for every line of `text` longer than `max` characters (code points, as an editor counts). */
export function longLines(file: string, text: string, max = MAX_LINE_LENGTH): string[] {
  return text.split("\n").flatMap((line, i) => {
    const length = [...line.replace(/\r$/, "")].length;
    return length > max ? [`${file}:${i + 1}: ${length} characters`] : [];
  });
}

/** Every file the check reads, as git tracks them. */
export function checkedFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", ...CHECKED_FOLDERS], { cwd: ROOT, encoding: "utf8" });
  return listed.split("\0").filter((file) => file !== "" && isChecked(file));
}

function main(argv: string[]): number {
  let max = MAX_LINE_LENGTH;
  const maxAt = argv.indexOf("--max");
  if (maxAt >= 0) {
    max = Number(argv[maxAt + 1]);
    argv = argv.filter((_, i) => i !== maxAt && i !== maxAt + 1);
  }
  if (!Number.isInteger(max) || max <= 0) {
    console.error("--max takes a positive whole number");
    return 2;
  }
  const files = argv.length > 0 ? argv.map((file) => path.relative(ROOT, path.resolve(file))) : checkedFiles();
  const found = files
    .filter(isChecked)
    .flatMap((file) => longLines(file, readFileSync(path.join(ROOT, file), "utf8"), max));
  if (found.length === 0) return 0;
  for (const line of found) console.error(line);
  console.error(`${found.length} lines longer than ${max} characters (wrap comments, split strings with +)`);
  return 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
