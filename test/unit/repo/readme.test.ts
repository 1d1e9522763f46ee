import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * README leads a newcomer, so what it says must work: its commands are scripts that exist (and the flags they are
 * given are read), its links reach files and headings that exist, the environment variables it lists are read by the
 * scripts it names, CI runs the test command it gives, and it stays short.
 */
const ROOT = path.join(import.meta.dirname, "../../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const README = read("README.md");
const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Relative links `[text](target)` of a markdown file, resolved against its folder. */
function relativeLinks(file: string): { target: string; file: string; anchor: string | null }[] {
  const text = read(file);
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^(https?:|mailto:)/.test(target))
    .map((target) => {
      const [linked = "", anchor = null] = target.split("#");
      return { target, file: linked === "" ? file : path.join(path.dirname(file), linked), anchor };
    });
}

describe("README", () => {
  it("is at most 250 lines", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(250);
  });

  it("gives only npm commands that exist, with flags the scripts read", () => {
    const commands = [...README.matchAll(/\bnpm (install|start|test|run [\w:-]+)(?: -- ([^`\n#]*))?/g)];
    expect(commands.length).toBeGreaterThan(5);
    for (const [command, verb, flags] of commands) {
      if (verb === "install") continue;
      const name = verb!.replace(/^run /, "");
      expect(scripts, command).toHaveProperty(name);
      const entry = scripts[name]!.match(/tsx (\S+\.ts)/)?.[1];
      for (const flag of flags?.match(/--[\w-]+/g) ?? []) {
        expect(entry, `${command}: the script's entry file`).toBeDefined();
        expect(read(entry!), `${command}: ${entry} reads ${flag}`).toContain(`"${flag}"`);
      }
    }
  });

  it("names the test command CI runs", () => {
    expect(README).toContain("npm test");
    expect(read(".ci/run")).toMatch(/^npm test$/m);
  });

  it("lists environment variables the scripts it names really read", () => {
    // npm start and the demo find each other's ports through one module: a script reads a port if it imports it.
    const PORTS = "scripts/lib/local-ports.ts";
    const readers: Record<string, string[]> = {
      PORT: ["scripts/start.ts", "demo/run.ts"],
      LOCALNET_PORT: ["scripts/start.ts", "demo/run.ts"],
      SOLANA_RPC_URL: ["scripts/start.ts", "demo/run.ts"],
      FACILITATOR_URL: ["demo/run.ts"],
    };
    const reads = (file: string, variable: string) =>
      read(file).includes(`process.env.${variable}`) ||
      (read(file).includes(`lib/local-ports"`) && read(PORTS).includes(`process.env.${variable}`));
    for (const [variable, files] of Object.entries(readers)) {
      expect(README, variable).toContain(`| \`${variable}\` |`);
      for (const file of files) expect(reads(file, variable), `${file} reads ${variable}`).toBe(true);
      const usedBy = README.match(new RegExp(`^\\| \`${variable}\` \\| ([^|]*) \\|`, "m"))?.[1] ?? "";
      for (const file of files) {
        const command = file === "demo/run.ts" ? "`npm run demo`" : "`npm start`";
        expect(usedBy, `README names ${command} among the readers of ${variable}`).toContain(command);
      }
    }
  });

  it("links only to files and headings that exist (README and the documents it indexes)", () => {
    const documents = [
      "README.md",
      ...relativeLinks("README.md")
        .map((l) => path.relative(ROOT, l.file))
        .filter((f) => f.endsWith(".md")),
    ];
    const broken: string[] = [];
    for (const document of new Set(documents)) {
      for (const link of relativeLinks(document)) {
        const target = path.join(ROOT, link.file);
        if (!existsSync(target)) {
          broken.push(`${document}: ${link.target}`);
          continue;
        }
        if (link.anchor && link.file.endsWith(".md")) {
          const anchors = [...read(path.relative(ROOT, target)).matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!));
          if (!anchors.includes(link.anchor)) broken.push(`${document}: ${link.target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
