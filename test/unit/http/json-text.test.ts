import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parseJsonText } from "../../../src/http/json-text";

/** The nesting guard skips strings with indexOf; brackets and quotes inside strings must not fool it. */
describe("parseJsonText", () => {
  const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);

  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(parseJsonText(nested(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
    expect(parseJsonText(nested(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      message: expect.stringContaining("nests deeper"),
    });
  });

  it("does not count brackets inside strings, including after escaped quotes and backslashes", () => {
    const brackets = JSON.stringify({ a: "[[[[".repeat(20) + '\\"{{{{' + "\\" });
    expect(parseJsonText(brackets)).toMatchObject({ ok: true, value: { a: expect.any(String) } });
    // An escaped quote does not end the string; the brackets after it are still string content.
    const escapedQuote = `{"a":"x\\"${"[".repeat(40)}"}`;
    expect(parseJsonText(escapedQuote)).toMatchObject({ ok: true });
    // An escaped backslash right before the quote does end the string; the nesting after it counts.
    const escapedBackslash = `{"a":"x\\\\","b":${nested(MAX_JSON_DEPTH)}}`;
    expect(parseJsonText(escapedBackslash)).toEqual({ ok: false, message: expect.stringContaining("nests deeper") });
  });

  it("reports unterminated strings and empty bodies as errors", () => {
    expect(parseJsonText('{"a":"unterminated')).toEqual({
      ok: false,
      message: expect.stringContaining("not valid JSON"),
    });
    expect(parseJsonText("  ")).toEqual({ ok: false, message: expect.stringContaining("empty") });
  });
});
