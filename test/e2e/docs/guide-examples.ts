/**
 * The executable examples of the served guides: fenced blocks tagged `sh example status=N keys=a,b` hold one curl
 * command (run against the Worker, answer checked), blocks tagged `json example=<name>` hold a JSON document
 * checked by the caller. Untagged blocks are prose.
 */
export interface CurlExample {
  kind: "curl";
  command: string;
  status: number;
  keys: string[];
}

export interface JsonExample {
  kind: "json";
  name: string;
  text: string;
}

export function guideExamples(markdown: string): (CurlExample | JsonExample)[] {
  const examples: (CurlExample | JsonExample)[] = [];
  for (const match of markdown.matchAll(/^```(\w+) ([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const [, language, info, body] = match;
    const tags = Object.fromEntries(
      info!
        .split(/\s+/)
        .filter((t) => t.includes("="))
        .map((t) => t.split("=", 2) as [string, string]),
    );
    if (language === "sh" && info!.split(/\s+/)[0] === "example") {
      examples.push({
        kind: "curl",
        command: body!,
        status: Number(tags.status),
        keys: tags.keys ? tags.keys.split(",") : [],
      });
    } else if (language === "json" && tags.example) {
      examples.push({ kind: "json", name: tags.example, text: body! });
    }
  }
  return examples;
}

/** Shell words of a one-command curl line (single/double quotes, backslash-newline continuations, `#` comments). */
function shellWords(command: string): string[] {
  const text = command.replace(/\\\n/g, " ");
  const words: string[] = [];
  let current = "";
  let quote: "'" | '"' | null = null;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else if (ch === "#" && !inWord) {
      break;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated quote in: ${command}`);
  if (inWord) words.push(current);
  return words;
}

/** The fetch a curl command stands for (`-s`, `-X`, `-H`, `-d` and one URL: what the guides use). */
export function curlToRequest(command: string): { url: string; init: RequestInit } {
  const words = shellWords(command.trim());
  if (words[0] !== "curl") throw new Error(`not a curl command: ${command}`);
  const headers = new Headers();
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "-s") continue;
    else if (word === "-X") method = words[++i];
    else if (word === "-H") {
      const header = words[++i]!;
      const colon = header.indexOf(":");
      headers.append(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
    } else if (word === "-d") body = words[++i];
    else if (word.startsWith("http")) url = word;
    else throw new Error(`curl option the guide test does not know: ${word}`);
  }
  if (!url) throw new Error(`no URL in: ${command}`);
  return { url, init: { method: method ?? (body !== undefined ? "POST" : "GET"), headers, body } };
}
