/**
 * JSON with exact 64-bit integers. `@solana/kit` sends bigint parameters as bare JSON numbers and
 * parses every integer in a response as bigint, so u64 values above 2^53 (lamports, token amounts,
 * rentEpoch = u64::MAX) must survive both directions without passing through a float.
 *
 * Parsing: integers that fit in a double exactly stay `number`, larger ones become `bigint`.
 * Serialising: `bigint` is written as bare digits, `undefined` members are left out (as JSON.stringify does).
 */

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
}

/** Any integer ≥ 2^53 has at least 16 digits; without such a run the built-in parser is exact. */
const LONG_DIGIT_RUN = /\d{16}/;

export function parseJsonWithBigInts(text: string): JsonValue {
  if (!LONG_DIGIT_RUN.test(text)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch (error) {
      throw new JsonSyntaxError(error instanceof Error ? error.message : String(error));
    }
  }
  const parser = new ExactJsonParser(text);
  const value = parser.parseDocument();
  return value;
}

class ExactJsonParser {
  private position = 0;

  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.position !== this.text.length) this.fail("unexpected trailing characters");
    return value;
  }

  private fail(reason: string): never {
    throw new JsonSyntaxError(`${reason} at position ${this.position}`);
  }

  private skipWhitespace(): void {
    while (this.position < this.text.length) {
      const char = this.text.charCodeAt(this.position);
      // space, tab, LF, CR
      if (char === 0x20 || char === 0x09 || char === 0x0a || char === 0x0d) this.position++;
      else break;
    }
  }

  private parseValue(): JsonValue {
    this.skipWhitespace();
    const char = this.text[this.position];
    switch (char) {
      case "{":
        return this.parseObject();
      case "[":
        return this.parseArray();
      case '"':
        return this.parseString();
      case "t":
        return this.parseLiteral("true", true);
      case "f":
        return this.parseLiteral("false", false);
      case "n":
        return this.parseLiteral("null", null);
      default:
        if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) return this.parseNumber();
        return this.fail("unexpected character");
    }
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.position)) this.fail(`expected ${word}`);
    this.position += word.length;
    return value;
  }

  private parseNumber(): number | bigint {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.position, this.position + 400));
    if (!match) return this.fail("invalid number");
    const literal = match[0];
    this.position += literal.length;
    const isInteger = match[2] === undefined && match[3] === undefined;
    if (!isInteger) return Number(literal);
    const asNumber = Number(literal);
    return Number.isSafeInteger(asNumber) ? asNumber : BigInt(literal);
  }

  private parseString(): string {
    // Find the closing quote (skipping escapes) and let the built-in parser decode the escapes.
    const start = this.position;
    let index = start + 1;
    while (index < this.text.length) {
      const char = this.text[index];
      if (char === "\\") index += 2;
      else if (char === '"') break;
      else index++;
    }
    if (index >= this.text.length) this.fail("unterminated string");
    this.position = index + 1;
    try {
      return JSON.parse(this.text.slice(start, index + 1)) as string;
    } catch {
      return this.fail("invalid string");
    }
  }

  private parseArray(): JsonValue[] {
    this.position++; // [
    const items: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text[this.position] === "]") {
      this.position++;
      return items;
    }
    for (;;) {
      items.push(this.parseValue());
      this.skipWhitespace();
      const char = this.text[this.position++];
      if (char === "]") return items;
      if (char !== ",") this.fail("expected , or ]");
    }
  }

  private parseObject(): { [key: string]: JsonValue } {
    this.position++; // {
    const result: { [key: string]: JsonValue } = {};
    this.skipWhitespace();
    if (this.text[this.position] === "}") {
      this.position++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.position] !== '"') this.fail("expected a key");
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text[this.position++] !== ":") this.fail("expected :");
      result[key] = this.parseValue();
      this.skipWhitespace();
      const char = this.text[this.position++];
      if (char === "}") return result;
      if (char !== ",") this.fail("expected , or }");
    }
  }
}

/** Serialises like JSON.stringify, writing bigints as bare integers. */
export function stringifyJsonWithBigInts(value: unknown): string {
  return serialize(value) ?? "null";
}

function serialize(value: unknown): string | undefined {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    default:
      break;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item) ?? "null").join(",")}]`;
  if (value instanceof Uint8Array) return serialize(Array.from(value));
  const parts: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const encoded = serialize(member);
    if (encoded !== undefined) parts.push(`${JSON.stringify(key)}:${encoded}`);
  }
  return `{${parts.join(",")}}`;
}
