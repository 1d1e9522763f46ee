import { judgeProbeHost } from "./ssrf-guard";

/** Probe limits (docs/wire-notes.md "Directory"). */
export const PROBE_TIMEOUT_MS = 5_000;
export const PROBE_MAX_BODY_BYTES = 64 * 1024;
/** Every request to a seller's origin (probe and manifest) says who sends it and why. */
export const PROBE_USER_AGENT = "x402-solana-facilitator-probe/1 (x402 402-check; sends no body, follows no redirect)";

export interface ProbeTarget {
  resourceUrl: string;
  httpMethod: string;
}

export interface ProbeResult {
  ok: boolean;
  httpStatus: number | null;
  scheme: string | null;
  error: string | null;
  /**
   * A failure of the transport, not an answer of the seller: a timeout, a refused or broken connection, or a 5xx.
   * Only these count toward SVC_PROBE_MAX_FAILURES; any other failure is the seller's definite answer and unlists
   * the resource at once (docs/facilitator-spec.md §3.3 gate 4).
   */
  transient?: boolean;
  /** The 402's `accepts[]` lines and `bazaar` extension when ok (served by /discovery/resources). */
  accepts?: unknown[];
  bazaar?: unknown;
}

export interface ProbeOptions {
  allowLoopback: boolean;
  timeoutMs?: number;
  maxBodyBytes?: number;
}

/**
 * One 402 probe (docs/facilitator-spec.md §3.3 gate 4): the stored URL with its method and no body, no redirects
 * followed, a deadline over the whole exchange (headers and body) and a body size cap, after the SSRF guard passed.
 * Callers probe only resources on an origin whose owner proved it (src/directory/resources/origin-proof.ts).
 *
 * A POST, PUT, PATCH or DELETE resource is probed with its own method: x402 middleware matches the route by method
 * and answers 402 before any handler runs (the request carries no payment and no body), so the seller's own
 * method is the only request that shows the resource is payable; a GET of a POST route proves nothing. That is
 * safe only because the origin's owner opted in by naming the wallet in its manifest: a server that is not an x402
 * seller may act on a bodiless DELETE, which is why nothing is ever sent to an origin that did not prove itself.
 */
export async function probeResource(target: ProbeTarget, options: ProbeOptions): Promise<ProbeResult> {
  const fail = (error: string, httpStatus: number | null = null, transient = false): ProbeResult => ({
    ok: false,
    httpStatus,
    scheme: null,
    error,
    transient,
  });
  let url: URL;
  try {
    url = new URL(target.resourceUrl);
  } catch {
    return fail("resourceUrl is not a URL");
  }
  const verdict = judgeProbeHost(url, { allowLoopback: options.allowLoopback });
  if (!verdict.allowed) return fail(`refused: ${verdict.reason}`);

  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url.href, {
      method: target.httpMethod,
      redirect: "manual",
      signal: controller.signal,
      headers: { Accept: "application/json", "User-Agent": PROBE_USER_AGENT },
    });
    if (response.status !== 402) {
      await response.body?.cancel().catch(() => undefined);
      const redirect = response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : "";
      return fail(`expected HTTP 402, got ${response.status}${redirect}`, response.status, response.status >= 500);
    }
    const header = response.headers.get("PAYMENT-REQUIRED");
    const text =
      header !== null
        ? decodeHeader(header)
        : await readCapped(response, options.maxBodyBytes ?? PROBE_MAX_BODY_BYTES, controller.signal);
    if (header !== null) await response.body?.cancel().catch(() => undefined);
    if (text === null)
      return fail(
        header !== null
          ? "PAYMENT-REQUIRED header is not base64 JSON"
          : `402 body exceeds ${options.maxBodyBytes ?? PROBE_MAX_BODY_BYTES} bytes`,
        402,
      );
    if (text.length > (options.maxBodyBytes ?? PROBE_MAX_BODY_BYTES))
      return fail("PAYMENT-REQUIRED header is too large", 402);
    return { ...judgePaymentRequired(text, url), httpStatus: 402 };
  } catch (error) {
    if (controller.signal.aborted) return fail(`no complete answer within ${timeoutMs} ms`, null, true);
    return fail(`fetch failed: ${error instanceof Error ? error.message : String(error)}`, null, true);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads at most `maxBytes` of the body; null (and the stream cancelled) when it is longer. */
export async function readCapped(response: Response, maxBytes: number, signal: AbortSignal): Promise<string | null> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) return null;
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function decodeHeader(value: string): string | null {
  try {
    const binary = atob(value.trim().replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  } catch {
    return null;
  }
}

/** `ok` only for a PaymentRequired with `accepts[0].scheme` whose `resource.url` names the probed URL. */
export function judgePaymentRequired(text: string, probed: URL): Omit<ProbeResult, "httpStatus"> {
  const fail = (error: string) => ({ ok: false, scheme: null, error });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail("402 payload is not JSON");
  }
  if (!isObject(body)) return fail("402 payload is not a JSON object");
  const accepts = body.accepts;
  if (
    !Array.isArray(accepts) ||
    accepts.length === 0 ||
    !isObject(accepts[0]) ||
    typeof accepts[0].scheme !== "string"
  ) {
    return fail("402 payload has no accepts[0].scheme");
  }
  const resource = body.resource;
  if (!isObject(resource) || typeof resource.url !== "string") return fail("402 payload has no resource.url");
  if (!sameResource(resource.url, probed))
    return fail(`402 resource.url ${resource.url} does not match the probed URL`);
  const extensions = body.extensions;
  const bazaar = isObject(extensions) && extensions.bazaar !== undefined ? extensions.bazaar : undefined;
  return { ok: true, scheme: accepts[0].scheme, error: null, accepts, ...(bazaar !== undefined ? { bazaar } : {}) };
}

/** Scheme, host, port (defaults made explicit by URL) and path must agree; query and fragment may differ. */
export function sameResource(claimed: string, probed: URL): boolean {
  try {
    const url = new URL(claimed);
    return (
      url.protocol === probed.protocol &&
      url.hostname === probed.hostname &&
      url.port === probed.port &&
      url.pathname === probed.pathname
    );
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
