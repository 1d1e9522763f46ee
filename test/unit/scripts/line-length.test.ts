import { describe, expect, it } from "vitest";
import { isChecked, longLines } from "../../../scripts/check-line-length";
import { rewrapComments } from "../../../scripts/rewrap-comments";
import { splitLongStrings, wrapHtmlLines } from "../../../scripts/split-long-strings";

const words = (count: number, word = "word") => Array.from({ length: count }, () => word).join(" ");

describe("the line-length check (scripts/check-line-length.ts)", () => {
  it("names each line past the limit, counting characters, not bytes", () => {
    const text = ["short", "x".repeat(121), `// ${"é".repeat(117)}`, "y".repeat(120)].join("\n");
    expect(longLines("f.ts", text)).toEqual(["f.ts:2: 121 characters"]);
    expect(longLines("f.ts", text, 100)).toEqual([
      "f.ts:2: 121 characters",
      "f.ts:3: 120 characters",
      "f.ts:4: 120 characters",
    ]);
  });

  it("reads the hand-written TypeScript and JavaScript of the checked folders, not snapshots or generated ones", () => {
    for (const file of ["src/app.ts", "test/unit/x.test.ts", "scripts/start.ts", "bench/run.ts", "localnet/main.ts"])
      expect(isChecked(file), file).toBe(true);
    for (const file of [
      "test/worker/http/self-description/__surface__/openapi.json",
      "test/worker/http/self-description/__surface__/x.ts",
      "src/db.generated.ts",
      "static/assets/console.js",
      "demo/run.ts",
      "test/support/pr402-contract.json",
      "localnet/programs/sla-escrow/sla_escrow.c",
    ])
      expect(isChecked(file), file).toBe(false);
  });
});

describe("the comment rewrap (scripts/rewrap-comments.ts)", () => {
  it("refills a long JSDoc line with the rest of its paragraph, keeping indentation and markers", () => {
    const source = [
      "  /**",
      `   * ${words(30)}`,
      `   * ${words(3, "tail")}`,
      "   *",
      "   * next paragraph",
      "   */",
      "  x = 1;",
    ];
    const { text, leftForHand } = rewrapComments("f.ts", source.join("\n"));
    const lines = text.split("\n");
    expect(leftForHand).toEqual([]);
    expect(longLines("f.ts", text)).toEqual([]);
    expect(lines.slice(1, 3).every((line) => line.startsWith("   * "))).toBe(true);
    expect(
      lines
        .slice(1, 3)
        .join(" ")
        .replace(/\s*\* /g, " ")
        .trim()
        .split(/\s+/),
    ).toEqual([...words(30).split(" "), ...words(3, "tail").split(" ")]);
    expect(lines.slice(3)).toEqual(["   *", "   * next paragraph", "   */", "  x = 1;"]);
  });

  it("turns a long one-line /** */ into a block and moves a long trailing // comment above its code", () => {
    const source = [`/** ${words(28)} */`, "const a = 1;", `const b = "keep // this" + a; // ${words(24)}`].join("\n");
    const { text } = rewrapComments("f.ts", source);
    expect(longLines("f.ts", text)).toEqual([]);
    expect(text.split("\n")[0]).toBe("/**");
    const lines = text.split("\n");
    expect(lines.at(-1)).toBe('const b = "keep // this" + a;');
    expect(lines.at(-2)).toMatch(/^\/\/ word( word)*$/);
  });

  it("leaves strings, directives and laid-out comments alone and lists them", () => {
    const long = `const s = "${words(30)}"; // short`;
    const directive = `// biome-ignore lint/suspicious/noExplicitAny: ${words(20)}`;
    const table = ` *   column:    ${words(25)}`;
    const source = [long, directive, "/**", table, " */"].join("\n");
    const { text, leftForHand } = rewrapComments("f.ts", source);
    expect(text).toBe(source);
    expect(leftForHand).toEqual([
      "f.ts:1: code longer than 120 before its comment (split the string first)",
      "f.ts:2: a directive",
      "f.ts:4: laid out by hand (aligned text or a drawing)",
    ]);
  });

  it("never touches a // inside a template literal", () => {
    const source = `const t = \`\n${words(30)} // not a comment\n\`;`;
    expect(rewrapComments("f.ts", source).text).toBe(source);
  });
});

describe("the string split (scripts/split-long-strings.ts)", () => {
  /** The value of the one expression a snippet assigns to `x`, evaluated (the snippets are plain JavaScript). */
  const evaluated = (source: string, scope: Record<string, unknown> = {}) =>
    new Function(...Object.keys(scope), `${source}; return x;`)(...Object.values(scope));

  it("splits a long string and template at a space into a concatenation of the same value", () => {
    const plain = `const x = "${words(30)}";`;
    const template = `const x = \`${words(12)} \${n} ${words(15)}\`;`;
    for (const source of [plain, template]) {
      const { text, leftForHand } = splitLongStrings("f.ts", source);
      expect(leftForHand).toEqual([]);
      expect(text).toContain(" +\n");
      expect(longLines("f.ts", text)).toEqual([]);
      expect(evaluated(text, { n: 7 })).toBe(evaluated(source, { n: 7 }));
    }
  });

  it("wraps a literal in parentheses where + would bind differently", () => {
    const source = `const x = "${words(30)}".length;`;
    const { text } = splitLongStrings("f.ts", source);
    expect(text.startsWith('const x = ("word')).toBe(true);
    expect(evaluated(text)).toBe(evaluated(source));
  });

  it("leaves a literal type, an import path and an enum member alone, and lists them", () => {
    const source = [`type T = "${words(30)}";`, `import "${words(30)}";`, `enum E { A = "${words(30)}" }`].join("\n");
    const { text, leftForHand } = splitLongStrings("f.ts", source);
    expect(text).toBe(source);
    expect(leftForHand).toHaveLength(3);
  });
});

describe("the HTML documents' line breaks (scripts/split-long-strings.ts wrapHtmlLines)", () => {
  it("breaks markup at spaces between words and attributes, not in attribute values, <pre> text or expressions", () => {
    const long = `  <p class="a b">${words(20)} <input placeholder="${words(8)}" \${x ? "${words(6)}" : ""}></p>`;
    const pre = `  <pre id="p">${words(30)}</pre>`;
    const header = `const csp = \`${words(30)}\`;`; // not an HTML document: a header value keeps every space
    const source = ["/** page */", "export const HTML = `<!doctype html>", long, pre, "`;", header].join("\n");
    const wrapped = wrapHtmlLines(source);
    expect(wrapped.replace(/\s+/g, " ")).toBe(source.replace(/\s+/g, " "));
    expect(
      wrapped
        .split("\n")
        .filter((line) => line.includes("<p class"))
        .every((line) => line.length <= 120),
    ).toBe(true);
    expect(wrapped).toContain(`placeholder="${words(8)}"`);
    expect(wrapped).toContain(`\${x ? "${words(6)}" : ""}`);
    expect(wrapped).toContain(`>${words(30)}</pre>`); // the content keeps its one line
    expect(wrapped.endsWith(`\n${header}`)).toBe(true);
  });
});
