import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The import graph of src/ has no circle, type-only imports included: a layer that needs a type from a higher one
 * gets it from a leaf file (jobs/scheduled-job.ts) or declares its own port, and the rails add their members to the
 * core's types by declaration merging (platform/config/rail-config.ts, x402/rejection-reasons.ts), so no lower file
 * imports the registry.
 */
const SRC = path.join(import.meta.dirname, "../../../src");

type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * Every .ts file of `dir` (paths relative to it) and the files of `dir` it imports, `import type` and `export … from`
 * included.
 */
function importGraph(dir: string): ImportGraph {
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => file.split(path.sep).join("/"));
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const text = readFileSync(path.join(dir, file), "utf8");
      const targets = [...text.matchAll(/\b(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].flatMap((m) => {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!));
        const candidates = target.endsWith(".ts") ? [target] : [`${target}.ts`, `${target}/index.ts`];
        return candidates.filter((candidate) => known.has(candidate) && existsSync(path.join(dir, candidate)));
      });
      return [file, [...new Set(targets)]];
    }),
  );
}

/**
 * The graph's circles: each strongly connected component of more than one file, or a file that imports itself (sorted).
 */
function circlesOf(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe("the import graph of src/", () => {
  const graph = importGraph(SRC);

  it("has no circle (type-only imports count)", () => {
    expect(circlesOf(graph)).toEqual([]);
  });

  it("is read whole: type-only imports and re-exports are edges", () => {
    expect(graph.size).toBeGreaterThan(300);
    // `import type { ScheduledJob } from "../jobs/scheduled-job"`
    expect(graph.get("rails/rail.ts")).toContain("jobs/scheduled-job.ts");
    expect(graph.get("index.ts")).toContain("app.ts");
  });

  it("finds a circle where there is one (two files, a longer ring, a file importing itself)", () => {
    expect(
      circlesOf(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["a.ts"]],
          ["c.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts"]]);
    expect(
      circlesOf(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(circlesOf(new Map([["a.ts", ["a.ts"]]]))).toEqual([["a.ts"]]);
    expect(
      circlesOf(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", []],
        ]),
      ),
    ).toEqual([]);
  });
});
