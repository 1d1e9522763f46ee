import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What `npm install` needs to work on a newcomer's machine, read from package.json and the lock file: the local chain's
 * native addon for every platform a developer or CI uses, and an `engines` floor every locked package accepts (npm
 * prints EBADENGINE otherwise), and a reviewed `allowScripts` entry for every package with an install script (npm 11
 * lists the unreviewed ones after every install; npm 12 skips their scripts, and workerd's and esbuild's are needed).
 */
const root = path.join(import.meta.dirname, "../../..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  packages: Record<
    string,
    {
      version?: string;
      hasInstallScript?: boolean;
      engines?: { node?: string } | string[];
      optionalDependencies?: Record<string, string>;
    }
  >;
};

/** macOS on Apple silicon and Intel, Linux (glibc) on x64 and arm64. */
const PLATFORMS = ["darwin-arm64", "darwin-x64", "linux-x64-gnu", "linux-arm64-gnu"];
/** The Node version CI runs (the machine image), besides the `engines` floor. */
const CI_NODE = "20.20.2";

describe("install manifest", () => {
  it("locks litesvm's native package for every platform, at litesvm's own version", () => {
    const litesvm = lock.packages["node_modules/litesvm"]!;
    for (const platform of PLATFORMS) {
      const name = `litesvm-${platform}`;
      expect(litesvm.optionalDependencies?.[name], name).toBe(litesvm.version);
      expect(lock.packages[`node_modules/${name}`]?.version, `${name} in package-lock.json`).toBe(litesvm.version);
    }
  });

  it("declares an engines floor that every locked package accepts, and CI's Node is above it", () => {
    const floor = manifest.engines.node.match(/^>=\s*(\d+\.\d+\.\d+)$/)?.[1];
    expect(floor, "engines.node is a plain >= floor").toBeDefined();
    const refusing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!key || !range) continue;
      for (const node of [floor!, CI_NODE])
        if (!satisfies(node, range)) refusing.push(`${key} wants node ${range} (not ${node})`);
    }
    expect(refusing).toEqual([]);
    expect(satisfies(CI_NODE, manifest.engines.node)).toBe(true);
  });

  it(
    "reviews every locked package's install script in allowScripts (name-only entries: a version bump needs no new " +
      "review)",
    () => {
      const withScripts = new Set(
        Object.entries(lock.packages)
          .filter(([key, entry]) => key && entry.hasInstallScript)
          .map(([key]) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length)),
      );
      expect(withScripts.has("workerd"), "the lock file records install scripts").toBe(true);
      const reviewed = Object.keys(manifest.allowScripts ?? {});
      expect([...withScripts].filter((name) => !reviewed.includes(name))).toEqual([]);
      expect(
        reviewed.filter((name) => !withScripts.has(name)),
        "no stale entries",
      ).toEqual([]);
    },
  );

  it("reads the engines ranges npm packages use", () => {
    expect(satisfies("20.19.0", "^20.19.0 || >=22.12.0")).toBe(true);
    expect(satisfies("20.18.3", "^20.19.0 || >=22.12.0")).toBe(false);
    expect(satisfies("20.20.2", ">=22.12.0")).toBe(false);
    expect(satisfies("20.20.2", ">= 20")).toBe(true);
    expect(satisfies("20.20.2", "4.x || >=6.0.0")).toBe(true);
    expect(satisfies("20.20.2", "^14.21.3 || >=16")).toBe(true);
    expect(satisfies("21.0.0", "^20.0.0 || ^22.0.0 || >=24.0.0")).toBe(false);
    expect(satisfies("20.20.2", "> 0.1.90")).toBe(true);
  });
});

type Version = [number, number, number];

function parse(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = text.replace(/\.x$/, "").split(".").map(Number);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * The subset of npm's range grammar found in `engines.node` fields: `||`, `>=`, `>`, `^`, `N.x`, `*` and bare versions.
 */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split("||").some((alternative) => {
    const comparators = alternative
      .trim()
      .replace(/(>=|>|\^)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    return comparators.every((comparator) => {
      if (comparator === "*") return true;
      const [, op = "", rest = ""] = comparator.match(/^(>=|>|\^|<=|<)?(.+)$/) ?? [];
      const bound = parse(rest);
      if (op === ">=") return compare(v, bound) >= 0;
      if (op === ">") return compare(v, bound) > 0;
      if (op === "<") return compare(v, bound) < 0;
      if (op === "<=") return compare(v, bound) <= 0;
      if (op === "^") return v[0] === bound[0] && compare(v, bound) >= 0;
      if (rest.endsWith(".x")) return v[0] === bound[0];
      return compare(v, bound) === 0;
    });
  });
}
