/**
 * The committed stand-in programs (localnet/programs/build/*.so) are what their sources build to:
 * rebuilding into a temporary directory gives the same bytes. Needs the compiler; without it the
 * test is skipped (the committed .so files are used as they are).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PROGRAMS_DIR = fileURLToPath(new URL("../../localnet/programs/", import.meta.url));
const CLANG = process.env.CLANG ?? "clang-19";
const hasClang = spawnSync(CLANG, ["--version"]).status === 0;
const PROGRAMS = ["selftest", "universal-settle", "sla-escrow", "payment-channels", "lighthouse", "swig", "squads"];

describe("stand-in program build", () => {
  it.skipIf(!hasClang)(
    `rebuilds byte-for-byte the committed .so files (skipped when ${CLANG} is not installed: apt-get install clang-19)`,
    () => {
      const out = mkdtempSync(join(tmpdir(), "standin-build-"));
      execFileSync("bash", [join(PROGRAMS_DIR, "build.sh"), out], { stdio: "pipe" });
      for (const name of PROGRAMS) {
        const rebuilt = readFileSync(join(out, `${name}.so`));
        const committed = readFileSync(join(PROGRAMS_DIR, "build", `${name}.so`));
        expect(rebuilt.equals(committed), `${name}.so differs from its sources: run localnet/programs/build.sh`).toBe(
          true,
        );
      }
    },
    // Ends a hang only: seven clang builds are ~20 s of CPU; beside other test runs (load 8-17) they took 77 s.
    600_000,
  );
});
