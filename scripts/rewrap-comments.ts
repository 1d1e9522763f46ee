/**
 * Rewraps comments that run past 120 characters (scripts/check-line-length.ts), touching nothing but comments:
 *
 * - a `//` or `/** … *\/` line is refilled from that line to the end of its paragraph (the lines before it stay as
 *   they are), with the same indentation and comment marker; a list item's continuation lines keep its hanging indent;
 * - a one-line `/** … *\/` or `/* … *\/` becomes a block of its own lines;
 * - a `//` comment after code that fits by itself moves to its own line above that code, at the code's indentation.
 *
 * Left for a hand edit, and listed: directives (`biome-ignore`, `@ts-…`, `eslint-…`), lines inside a fenced code
 * block or that look laid out (two spaces inside the text, box drawing), a word longer than the room left, a comment
 * inside a line of code, and every long line that is not a comment (strings: split them with `+`).
 *
 * Comments are found by the TypeScript parser, never by pattern, so a `//` inside a string or a template is never
 * touched. Usage: `tsx scripts/rewrap-comments.ts [--check] [file ...]` (with no files: every file the line check
 * reads). `--check` writes nothing and exits 1 when a comment would change.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { checkedFiles, MAX_LINE_LENGTH } from "./check-line-length";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Text a rewrap must never move: tools read these comments by position or by exact text. */
const DIRECTIVE = /biome-ignore|@ts-|eslint-|prettier-ignore|<reference |@__PURE__|#__PURE__|^\s*\/\/[#@] source/;
/** Text that is laid out by hand (a table, a diagram, aligned columns), which refilling would scramble. */
const LAID_OUT = /\S {2,}\S|[│├└┌┐┘┬┴┼─═║]|^\s*\|/;
/** A line that starts a paragraph of its own inside a comment: a list item, a JSDoc tag, a heading. */
const PARAGRAPH_START = /^(?:[-*+] |\d+[.)] |@\w|#+ )/;

const width = (text: string) => [...text].length;

interface CommentRange {
  pos: number;
  end: number;
  kind: ts.CommentKind;
}

/** Every comment of a file, found by the parser (leading and trailing comments of every node and of the end). */
function commentRanges(file: ts.SourceFile): CommentRange[] {
  const text = file.text;
  const seen = new Map<number, CommentRange>();
  const add = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, { pos: range.pos, end: range.end, kind: range.kind });
  };
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    node.getChildren(file).forEach(visit);
  };
  visit(file);
  return [...seen.values()].sort((a, b) => a.pos - b.pos);
}

/** The ranges of string and template text, where a line start must not be touched. */
function literalRanges(file: ts.SourceFile): [number, number][] {
  const ranges: [number, number][] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isRegularExpressionLiteral(node)
    )
      ranges.push([node.getStart(file), node.end]);
    node.getChildren(file).forEach(visit);
  };
  visit(file);
  return ranges;
}

/** Greedy fill of `words` into lines of at most `room` characters each (a longer word gets a line of its own). */
function fill(words: string[], room: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of words) {
    if (current === "") current = word;
    else if (width(current) + 1 + width(word) <= room) current += ` ${word}`;
    else {
      lines.push(current);
      current = word;
    }
  }
  if (current !== "") lines.push(current);
  return lines;
}

/** One line of a comment block: its prefix (indentation and marker) and its text. */
interface CommentLine {
  prefix: string;
  text: string;
}

/** Splits a line of a `//` run or of a block's body into prefix and text, or null when it is not such a line. */
function splitLine(line: string, marker: "//" | "*"): CommentLine | null {
  const match = marker === "//" ? /^(\s*\/\/ ?)(.*)$/.exec(line) : /^(\s*\* ?)(.*)$/.exec(line);
  if (!match || (marker === "*" && /^\s*\*\//.test(line))) return null;
  return { prefix: match[1]!, text: match[2]! };
}

/** The prefix of a paragraph's continuation lines: a list item's continuation hangs under its text. */
function continuationPrefix(first: CommentLine): string {
  const item = /^(?:[-*+] |\d+[.)] )/.exec(first.text);
  return item ? first.prefix + " ".repeat(item[0].length) : first.prefix;
}

export interface RewrapResult {
  text: string;
  /** `file:line: why` for each long comment line left as it is. */
  leftForHand: string[];
}

/**
 * Refills the paragraph that starts at `lines[start]` (already known to be too long), where each line of the run
 * from `start` on is `prefix + text`. Returns the new lines and how many old lines they replace.
 */
function refill(lines: string[], start: number, marker: "//" | "*", max: number): { replaced: number; with: string[] } {
  const first = splitLine(lines[start]!, marker)!;
  const hang = continuationPrefix(first);
  const words = first.text.split(/\s+/).filter(Boolean);
  let end = start + 1;
  for (; end < lines.length; end++) {
    const next = splitLine(lines[end]!, marker);
    if (!next || next.prefix !== hang || next.text.trim() === "") break;
    if (PARAGRAPH_START.test(next.text) || DIRECTIVE.test(next.text) || LAID_OUT.test(next.text)) break;
    if (next.text.startsWith("```")) break;
    words.push(...next.text.split(/\s+/).filter(Boolean));
    if (next.text.trimEnd().endsWith("*/")) {
      end++;
      break;
    }
  }
  const firstLines = fill(words, max - width(first.prefix));
  // The first output line takes the first prefix; the rest hang. Refill the rest with the hanging prefix's room.
  const head = firstLines[0]!;
  const restWords = words.slice(head.split(" ").length);
  const rest = fill(restWords, max - width(hang));
  return {
    replaced: end - start,
    with: [`${first.prefix}${head}`.trimEnd(), ...rest.map((line) => `${hang}${line}`.trimEnd())],
  };
}

export function rewrapComments(fileName: string, source: string, max = MAX_LINE_LENGTH): RewrapResult {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const comments = commentRanges(file);
  const literals = literalRanges(file);
  const lines = source.split("\n");
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const insideLiteral = (pos: number) => literals.some(([from, to]) => pos > from && pos < to);
  const leftForHand: string[] = [];
  const out: string[] = [];
  const byLine = new Map<number, CommentRange[]>();
  for (const comment of comments) {
    for (let l = lineOf(comment.pos); l <= lineOf(comment.end - 1); l++)
      byLine.set(l, [...(byLine.get(l) ?? []), comment]);
  }

  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const here = byLine.get(i) ?? [];
    const fenceToggle = here.length > 0 && /^\s*(?:\/\/|\*)\s*```/.test(line);
    if (fenceToggle) inFence = !inFence;
    if (width(line) <= max || here.length === 0) {
      out.push(line);
      continue;
    }
    const why = (reason: string) => {
      leftForHand.push(`${fileName}:${i + 1}: ${reason}`);
      out.push(line);
    };
    const comment = here[here.length - 1]!;
    const lineStart = lineStarts[i]!;
    const codeBefore = source.slice(lineStart, Math.max(lineStart, comment.pos)).trim();
    const commentText = source.slice(comment.pos, comment.end);
    if (DIRECTIVE.test(commentText)) {
      why("a directive");
      continue;
    }
    if (inFence || fenceToggle) {
      why("inside a fenced code block");
      continue;
    }
    // A `//` comment after code: its own line(s) above the code.
    if (comment.kind === ts.SyntaxKind.SingleLineCommentTrivia && codeBefore !== "") {
      const code = line.slice(0, comment.pos - lineStart).trimEnd();
      if (insideLiteral(lineStart) || here.length > 1 || lineOf(comment.pos) !== i) {
        why("a comment inside a line of code");
        continue;
      }
      if (width(code) > max) {
        why(`code longer than ${max} before its comment (split the string first)`);
        continue;
      }
      const indent = /^\s*/.exec(line)![0];
      const text = commentText.replace(/^\/\/\s?/, "");
      const moved = fill(text.split(/\s+/).filter(Boolean), max - width(indent) - 3).map((l) => `${indent}// ${l}`);
      out.push(...moved, code);
      continue;
    }
    if (codeBefore !== "" || source.slice(comment.end, lineStarts[i + 1] ?? source.length).trim() !== "") {
      if (lineOf(comment.pos) === i && lineOf(comment.end - 1) === i) {
        why("a comment inside a line of code");
        continue;
      }
    }
    if (LAID_OUT.test(line.replace(/^\s*(?:\/\/|\/\*\*?|\*)\s?/, ""))) {
      why("laid out by hand (aligned text or a drawing)");
      continue;
    }
    // A one-line block comment: a block of its own lines.
    if (
      comment.kind === ts.SyntaxKind.MultiLineCommentTrivia &&
      lineOf(comment.pos) === i &&
      lineOf(comment.end - 1) === i
    ) {
      const indent = /^\s*/.exec(line)![0];
      const open = commentText.startsWith("/**") ? "/**" : "/*";
      const body = commentText.slice(open.length, -2).trim();
      const wrapped = fill(body.split(/\s+/).filter(Boolean), max - width(indent) - 3);
      if (wrapped.some((l) => width(l) > max - width(indent) - 3)) {
        why("a word longer than the room left");
        continue;
      }
      out.push(`${indent}${open}`, ...wrapped.map((l) => `${indent} * ${l}`), `${indent} */`);
      continue;
    }
    const marker = comment.kind === ts.SyntaxKind.SingleLineCommentTrivia ? "//" : "*";
    const parsed = splitLine(line, marker);
    if (!parsed) {
      why("the opening or closing line of a block comment");
      continue;
    }
    const { replaced, with: refilled } = refill(lines, i, marker, max);
    if (refilled.some((l) => width(l) > max)) {
      why("a word longer than the room left");
      continue;
    }
    out.push(...refilled);
    i += replaced - 1;
  }
  return { text: out.join("\n"), leftForHand };
}

function main(argv: string[]): number {
  const check = argv.includes("--check");
  const named = argv.filter((arg) => arg !== "--check");
  const files = named.length > 0 ? named.map((file) => path.relative(ROOT, path.resolve(file))) : checkedFiles();
  let changed = 0;
  const leftForHand: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(ROOT, file), "utf8");
    const result = rewrapComments(file, source);
    leftForHand.push(...result.leftForHand);
    if (result.text === source) continue;
    changed++;
    if (!check) writeFileSync(path.join(ROOT, file), result.text);
  }
  for (const line of leftForHand) console.log(line);
  console.log(
    `${changed} files ${check ? "would change" : "rewrapped"}; ${leftForHand.length} long comment lines left`,
  );
  return check && changed > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
