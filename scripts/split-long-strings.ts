/**
 * Splits string and template literals that run past 120 characters (scripts/check-line-length.ts) into a
 * concatenation of two literals, at a space inside the text: `"… text " +` on the line, `"more …"` on the next.
 * The value is the same string: only the source is split (esbuild's syntax minifier folds both forms to one
 * literal). Run `npx biome format --write` after it, and again until it changes nothing: the formatter lays the
 * concatenation out, and a part may still be long.
 *
 * Never split: a literal whose type is the literal itself (a literal type, an `as const`, an enum member, a property
 * name, an import path, a directive, a tagged template), or a place where `+` would bind differently (the operand of
 * a member access, a call of the literal, `typeof`, other operators): such a literal is wrapped in parentheses or, when
 * that cannot keep its meaning, left and listed for a hand edit. The type checker has the last word: a split that
 * turns a literal type into `string` is a type error to undo by hand.
 *
 * The pages' HTML documents are the exception: their long lines are broken in the markup (`wrapHtmlLines`).
 *
 * Usage: `tsx scripts/split-long-strings.ts [file ...]` (with no files: every file the line check reads).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { checkedFiles, MAX_LINE_LENGTH } from "./check-line-length";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const width = (text: string) => [...text].length;

type Literal = ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression;

/** Where a literal may become `a + b` as it stands (true), wrapped in parentheses ("wrap"), or not at all (false). */
function splittable(node: Literal): boolean | "wrap" {
  const parent = node.parent;
  if (ts.isLiteralTypeNode(parent) || ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return false;
  if (ts.isExternalModuleReference(parent) || ts.isImportTypeNode(parent) || ts.isModuleDeclaration(parent))
    return false;
  if (ts.isEnumMember(parent) || ts.isTaggedTemplateExpression(parent)) return false;
  if (
    (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isMethodDeclaration(parent) || ts.isComputedPropertyName(parent) || ts.isElementAccessExpression(parent))
    return false;
  if (ts.isAsExpression(parent) && ts.isTypeReferenceNode(parent.type) && parent.type.getText() === "const")
    return false;
  if (ts.isExpressionStatement(parent)) return false; // "use strict"-style directives
  if (
    ts.isCallExpression(parent) ||
    ts.isNewExpression(parent) ||
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isReturnStatement(parent) ||
    ts.isThrowStatement(parent) ||
    ts.isArrayLiteralExpression(parent) ||
    ts.isArrowFunction(parent) ||
    ts.isParenthesizedExpression(parent) ||
    ts.isTemplateSpan(parent) ||
    ts.isConditionalExpression(parent) ||
    ts.isParameter(parent) ||
    ts.isJsxExpression(parent) ||
    (ts.isBinaryExpression(parent) &&
      (parent.operatorToken.kind === ts.SyntaxKind.PlusToken ||
        parent.operatorToken.kind === ts.SyntaxKind.EqualsToken ||
        parent.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
        parent.operatorToken.kind === ts.SyntaxKind.BarBarToken ||
        parent.operatorToken.kind === ts.SyntaxKind.CommaToken ||
        parent.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        parent.operatorToken.kind === ts.SyntaxKind.ExclamationEqualsEqualsToken))
  ) {
    // A call's callee or a `+` whose other side is not a string could change meaning: `1 + 2 + "a b"` is fine
    // (left to right), `"a b" + 1 + 2` too; the callee of a call is not a string. The arguments are.
    if (ts.isCallExpression(parent) && parent.expression === node) return false;
    return true;
  }
  return "wrap";
}

/** The literal's text segments as source offsets [from, to) where a split may go (outside `${…}`). */
function textSegments(node: Literal, file: ts.SourceFile): [number, number][] {
  if (!ts.isTemplateExpression(node)) return [[node.getStart(file) + 1, node.end - 1]];
  const segments: [number, number][] = [[node.head.getStart(file) + 1, node.head.end - 2]];
  for (const span of node.templateSpans) {
    const literal = span.literal;
    segments.push([literal.getStart(file) + 1, literal.end - (ts.isTemplateTail(literal) ? 1 : 2)]);
  }
  return segments;
}

export interface SplitResult {
  text: string;
  /** `file:line: why` for each long literal line left as it is. */
  leftForHand: string[];
}

export function splitLongStrings(fileName: string, source: string, max = MAX_LINE_LENGTH): SplitResult {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineStarts = file.getLineStarts();
  const longLines = new Set<number>();
  source.split("\n").forEach((line, i) => {
    if (width(line) > max) longLines.add(i);
  });
  const edits: { at: number; insert: string }[] = [];
  const leftForHand: string[] = [];
  const handled = new Set<number>();
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      if (isHtmlDocument(node, file)) return; // wrapHtmlLines breaks its lines
      trySplit(node);
      if (ts.isTemplateExpression(node)) for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    node.forEachChild(visit);
  };
  const trySplit = (node: Literal) => {
    const quote = source[node.getStart(file)]!;
    for (const [from, to] of textSegments(node, file)) {
      const firstLine = file.getLineAndCharacterOfPosition(from).line;
      const lastLine = file.getLineAndCharacterOfPosition(to).line;
      for (let line = firstLine; line <= lastLine; line++) {
        if (!longLines.has(line) || handled.has(line)) continue;
        const lineStart = lineStarts[line]!;
        const lineText = source.slice(lineStart, lineStarts[line + 1] ?? source.length).replace(/\n$/, "");
        const low = Math.max(from, lineStart);
        const high = Math.min(to, lineStart + lineText.length);
        const spaces: number[] = [];
        for (let at = low + 1; at < high - 1; at++) if (source[at] === " " && source[at - 1] !== "\\") spaces.push(at);
        if (spaces.length === 0) continue;
        // The last space where `<text up to it>` + quote + " +" fits; else (the literal starts far right) the space
        // nearest the middle of its text here, so the formatter puts the two parts on lines of their own.
        const fitting = spaces.filter((at) => width(source.slice(lineStart, at + 1)) + 3 <= max);
        const middle = (low + high) / 2;
        const split =
          fitting.length > 0
            ? fitting.at(-1)!
            : spaces.reduce((best, at) => (Math.abs(at - middle) < Math.abs(best - middle) ? at : best));
        const can = splittable(node);
        if (can === false) {
          leftForHand.push(`${fileName}:${line + 1}: a literal whose place takes no concatenation`);
          handled.add(line);
          return;
        }
        const indent = /^\s*/.exec(lineText)![0];
        edits.push({ at: split + 1, insert: `${quote} +\n${indent}  ${quote}` });
        if (can === "wrap") {
          edits.push({ at: node.getStart(file), insert: "(" }, { at: node.end, insert: ")" });
        }
        handled.add(line);
        return;
      }
    }
  };
  visit(file);
  for (const line of longLines) {
    if (!handled.has(line))
      leftForHand.push(`${fileName}:${line + 1}: no literal to split at a space within the limit`);
  }
  let text = source;
  for (const edit of edits.sort((a, b) => b.at - a.at))
    text = text.slice(0, edit.at) + edit.insert + text.slice(edit.at);
  return { text, leftForHand };
}

/**
 * The pages' HTML documents (src/page/*-html.ts) are templates of markup: a long line there is broken at a space
 * between words or attributes, as one would write HTML, not split into a concatenation. The string changes only in
 * whitespace where HTML collapses it: never inside an attribute value, inside `<pre>` content or inside `${…}`.
 */
export const HTML_DOCUMENT = /(?:^|\/)src\/page\/[^/]*-html\.ts$/;

/** A template literal that is a whole HTML document (`<!doctype html>…`). */
function isHtmlDocument(node: ts.Node, file: ts.SourceFile): boolean {
  return (
    (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) &&
    /^`\s*<!doctype html>/i.test(node.getText(file))
  );
}

export function wrapHtmlLines(source: string, max = MAX_LINE_LENGTH, fileName = "page.ts"): string {
  // Only the templates that are HTML documents: other strings of the file (a header value) keep every space.
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const documents: [number, number][] = [];
  const visit = (node: ts.Node) => {
    if (isHtmlDocument(node, file)) documents.push([node.getStart(file), node.end]);
    else node.forEachChild(visit);
  };
  visit(file);
  return documents.reduceRight((text, [from, to]) => {
    const wrapped = wrapHtmlDocument(text.slice(from, to), max, text.lastIndexOf("\n", from) + 1, from);
    return text.slice(0, from) + wrapped + text.slice(to);
  }, source);
}

/** The lines of one HTML document template (from its backtick to its closing one), each within `max` if it can be. */
function wrapHtmlDocument(template: string, max: number, lineStartOfTemplate: number, templateStart: number): string {
  // The template's first line shares its start with the code before the backtick: its width counts that code.
  const lead = templateStart - lineStartOfTemplate;
  const source = " ".repeat(lead) + template;
  const start = lead;
  const out: string[] = [];
  let inTag = false;
  let quote: string | null = null;
  let inPre = false;
  let exprDepth = 0;
  let offset = 0;
  for (const line of source.split("\n")) {
    const lineStart = offset;
    offset += line.length + 1;
    if (lineStart + line.length < start) {
      out.push(line);
      continue;
    }
    const indent = /^\s*/.exec(line)![0];
    let rest = line;
    let restIndent = "";
    const candidates: number[] = [];
    for (let i = 0; i < line.length; i++) {
      const at = lineStart + i;
      if (at <= start) continue;
      const c = line[i]!;
      if (exprDepth > 0) {
        if (c === "{") exprDepth++;
        else if (c === "}") exprDepth--;
        continue;
      }
      if (c === "$" && line[i + 1] === "{") {
        exprDepth = 1;
        i++;
        continue;
      }
      if (quote) {
        if (c === quote) quote = null;
        continue;
      }
      if (inTag && (c === '"' || c === "'")) quote = c;
      else if (c === "<") {
        inTag = true;
        if (/^<pre\b/i.test(line.slice(i))) inPre = true;
        if (/^<\/pre>/i.test(line.slice(i))) inPre = false;
      } else if (c === ">") inTag = false;
      else if (c === " " && i > indent.length && (!inPre || inTag)) candidates.push(i);
    }
    // Break at the last candidate space that lets the line fit, again on what is left.
    let cut = 0;
    while (width(restIndent + rest) > max) {
      const room = max - width(restIndent);
      const fitting = candidates.filter((i) => i > cut && i - cut <= room);
      if (fitting.length === 0) break;
      const at = fitting.at(-1)!;
      out.push(restIndent + line.slice(cut, at).replace(/^\s+/, restIndent === "" ? indent : ""));
      cut = at + 1;
      restIndent = indent;
      rest = line.slice(cut);
    }
    out.push(cut === 0 ? line : restIndent + rest);
  }
  return out.join("\n").slice(lead);
}

function main(argv: string[]): number {
  const files = argv.length > 0 ? argv.map((file) => path.relative(ROOT, path.resolve(file))) : checkedFiles();
  let changed = 0;
  const left: string[] = [];
  for (const file of files) {
    const source = readFileSync(path.join(ROOT, file), "utf8");
    const wrapped = HTML_DOCUMENT.test(file) ? wrapHtmlLines(source, MAX_LINE_LENGTH, file) : source;
    const result = splitLongStrings(file, wrapped);
    left.push(...result.leftForHand);
    if (result.text === source) continue;
    changed++;
    writeFileSync(path.join(ROOT, file), result.text);
  }
  for (const line of left) console.log(line);
  console.log(`${changed} files split; ${left.length} long lines left`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
