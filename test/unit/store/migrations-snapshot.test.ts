import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import drizzleConfig from "../../../drizzle.config";

const ROOT = path.resolve(__dirname, "../../..");

/**
 * `npm run db:generate` diffs the tables drizzle.config.ts names (src/store/schema.ts and each rail's
 * src/rails/<scheme>/store/tables.ts) against the newest snapshot in migrations/meta. When a migration is
 * written by hand without its snapshot, the next generate re-emits that migration's changes (or stops at an
 * interactive rename prompt). This runs drizzle-kit on a copy of migrations/ and expects it to find nothing to do.
 */
describe("migrations/meta is in step with the drizzle table definitions", () => {
  it("drizzle-kit generate finds no schema change", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "x402-migrations-"));
    try {
      await cp(path.join(ROOT, "migrations"), path.join(dir, "migrations"), { recursive: true });
      const config = path.join(dir, "drizzle.config.mjs");
      // drizzle-kit reads `out` relative to its working directory, so it runs in the copy.
      // The project's own schema list, so a table file it names is never left out of the check.
      const schema = [drizzleConfig.schema].flat().map((file) => path.relative(dir, path.join(ROOT, file!)));
      await writeFile(
        config,
        `export default ${JSON.stringify({ dialect: "sqlite", schema, out: "./migrations" })};\n`,
      );
      const before = await readdir(path.join(dir, "migrations"));
      const { stdout, stderr } = await promisify(execFile)(
        path.join(ROOT, "node_modules/.bin/drizzle-kit"),
        ["generate", "--config", config],
        { cwd: dir, timeout: 60_000 },
      );
      expect(stdout + stderr).toMatch(/No schema changes/);
      expect(await readdir(path.join(dir, "migrations"))).toEqual(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("drizzle.config.ts names every file that defines a table", () => {
    // A table outside the listed files would get no migration; the config's `*` stands for one path segment.
    const listed = [drizzleConfig.schema].flat().map((entry) => {
      const pattern = path.posix
        .normalize(entry!)
        .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, "[^/]+");
      return new RegExp(`^${pattern}$`);
    });
    const definers = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" })
      .filter(
        (file) => file.endsWith(".ts") && /\bsqliteTable\(/.test(readFileSync(path.join(ROOT, "src", file), "utf8")),
      )
      .map((file) => `src/${file.split(path.sep).join("/")}`);
    expect(definers).toContain("src/rails/upto/store/tables.ts");
    expect(definers.filter((file) => !listed.some((re) => re.test(file)))).toEqual([]);
  });
});
