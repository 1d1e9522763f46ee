/** Every HTTP call the console makes, shown under its section as a copyable curl line with the answer's status. */
import { API } from "../api";
import { byId, el, errorMessage } from "../dom";
import { applyStepStates } from "./steps";

const CALLS_SHOWN_PER_SECTION = 8;
const ANSWER_SHOWN_CHARS = 2000;

export class CallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

type JsonBody = Record<string, unknown>;

/** Calls the API (a path under it) or an absolute URL (the wallet RPC); a non-2xx answer throws a CallError. */
export async function call<T>(section: string, method: string, path: string, body?: JsonBody): Promise<T> {
  const url = new URL(path.startsWith("http") ? path : API + path, location.href).href;
  const headers: Record<string, string> = { Accept: "application/json" };
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response: Response | undefined;
  let text = "";
  let parsed: unknown = null;
  try {
    response = await fetch(url, init);
    text = await response.text();
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  } finally {
    showCall(section, method, url, body, response ? String(response.status) : "network error", text);
  }
  if (!response.ok) {
    const answer = parsed as { error?: string; message?: string } | null;
    throw new CallError(answer?.error || answer?.message || "HTTP " + response.status, response.status, parsed);
  }
  return parsed as T;
}

function showCall(
  section: string,
  method: string,
  url: string,
  body: JsonBody | undefined,
  status: string,
  answer: string,
): void {
  const box = document.getElementById(section + "-calls");
  if (!box) return;
  const quote = (s: string) => "'" + s.replaceAll("'", "'\\''") + "'";
  let curl = "curl -X " + method + " " + quote(url);
  if (body !== undefined) curl += " -H 'Content-Type: application/json' --data " + quote(JSON.stringify(body));
  const target = new URL(url);
  const rpcMethod = body?.jsonrpc && typeof body.method === "string" ? " " + body.method : "";
  const details = el(
    "details",
    { class: "call" },
    el("summary", {
      text: method + " " + (target.origin === location.origin ? target.pathname : url) + rpcMethod + " → " + status,
    }),
    el("pre", { class: "curl", text: curl }),
    el("pre", {
      class: "answer",
      text: answer.length > ANSWER_SHOWN_CHARS ? answer.slice(0, ANSWER_SHOWN_CHARS) + "…" : answer,
    }),
  );
  box.prepend(details);
  while (box.children.length > CALLS_SHOWN_PER_SECTION) box.lastElementChild?.remove();
}

/** A status line: plain, good ("ok") or bad. */
export function say(id: string, text: string, kind?: "ok" | "bad"): void {
  const node = byId(id);
  node.textContent = text;
  node.className = kind ?? "";
  delete node.dataset.doneNote;
}

/** Runs one action with every wallet button disabled; a failure is said in the section's status line. */
export async function guarded(statusId: string, work: () => Promise<void>): Promise<void> {
  document.querySelectorAll<HTMLButtonElement>(".needs-wallet").forEach((b) => {
    b.disabled = true;
  });
  try {
    await work();
  } catch (error) {
    say(statusId, "Failed: " + errorMessage(error), "bad");
  } finally {
    applyStepStates();
  }
}
