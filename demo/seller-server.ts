/**
 * A small x402 v2 seller (docs/facilitator-spec.md §1 "A seller's path") on plain node:http, bound to a loopback port.
 * Used by `npm run demo` and by the end-to-end tests with the official x402 clients.
 *
 * - The 402 body is made once at start: a naive body (payTo = the seller's wallet) sent through the
 *   facilitator's POST /payment-required/enrich, so payTo becomes the vault PDA and extra carries the
 *   facilitator's fee payer. It is served as the JSON body AND as header PAYMENT-REQUIRED (base64 JSON),
 *   which is where the official x402 v2 client reads it.
 * - A request with PAYMENT-SIGNATURE: the header is decoded as base64 JSON, falling back to raw JSON. Two
 *   shapes are understood: the filled `verifyBodyTemplate` of /build-exact-payment-tx ({paymentPayload, ...})
 *   and a bare x402 PaymentPayload ({accepted, payload, ...}) as the official client sends it. The chosen
 *   `accepted` line must be one of this seller's own lines (else a buyer could name its own price); the
 *   payment is then settled through the official `HTTPFacilitatorClient` (POST /settle).
 * - 200 with the resource and PAYMENT-RESPONSE (base64 of the settle result) only when settle succeeded;
 *   any failure answers 402 again, with the reason in `error`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HTTPFacilitatorClient } from "@x402/core/http";
import type { Network, PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { SettleError } from "@x402/core/types";

export interface SellerServerOptions {
  /** The facilitator API base, e.g. http://127.0.0.1:8787/api/v1/facilitator (no trailing slash needed). */
  facilitatorUrl: string;
  /** The seller's own wallet (base58); enrich turns it into the vault PDA. */
  sellerWallet: string;
  /** CAIP-2 network, e.g. solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1. */
  network: Network | string;
  /** Payment mint (base58). */
  asset: string;
  /** Price in base units, as a decimal string. */
  amount: string;
  maxTimeoutSeconds?: number;
  /** Path of the paid resource; default /report. */
  resourcePath?: string;
  /** What a paying buyer receives (JSON). */
  content?: unknown;
  description?: string;
  /**
   * Served as JSON at /.well-known/x402-resources.json when given: the origin's Seller Resource Manifest, which proves
   * to the facilitator's directory that the seller's wallet may list resources on this origin (it names the wallet).
   */
  manifest?: unknown;
  /** Default 0: a free port. The server always binds 127.0.0.1. */
  port?: number;
  /** Per facilitator call; default 30 s. */
  facilitatorTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface SellerSettlement {
  ok: boolean;
  reason?: string;
  result?: SettleResponse;
}

export interface RunningSellerServer {
  /** Full URL of the paid resource. */
  url: string;
  /** The enriched 402 body this seller serves. */
  paymentRequired: PaymentRequired;
  /** Every settle attempt, in order (for tests and the demo's summary). */
  settlements: SellerSettlement[];
  close(): Promise<void>;
}

const HOST = "127.0.0.1";
const MAX_HEADER_JSON_BYTES = 16 * 1024;

export async function startSellerServer(options: SellerServerOptions): Promise<RunningSellerServer> {
  const facilitatorUrl = options.facilitatorUrl.replace(/\/+$/, "");
  const resourcePath = options.resourcePath ?? "/report";
  const log = options.log ?? (() => {});
  const facilitator = new HTTPFacilitatorClient({
    url: facilitatorUrl,
    timeoutMs: options.facilitatorTimeoutMs ?? 30_000,
  });
  const settlements: SellerSettlement[] = [];
  const content = options.content ?? { report: "the paid resource", servedAt: null };

  // Filled in once the port is known (the 402 body names this server's own URL).
  let paymentRequired: PaymentRequired | null = null;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`seller: internal error: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) sendJson(response, 500, { error: "internal error" });
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", `http://${HOST}`).pathname;
    if (path === "/.well-known/x402-resources.json" && options.manifest !== undefined) {
      sendJson(response, 200, options.manifest);
      return;
    }
    if (path !== resourcePath || paymentRequired === null) {
      sendJson(response, 404, { error: "not found" });
      return;
    }
    // Drain any request body; this resource does not read it.
    for await (const _chunk of request) void _chunk;

    const header = request.headers["payment-signature"];
    const signatureHeader = Array.isArray(header) ? header[0] : header;
    if (!signatureHeader) {
      sendPaymentRequired(response, paymentRequired, "PAYMENT-SIGNATURE header is required");
      return;
    }

    const decoded = decodePaymentSignature(signatureHeader);
    if (!decoded.ok) {
      sendPaymentRequired(response, paymentRequired, decoded.error);
      return;
    }
    const requirements = paymentRequired.accepts.find((line) => sameRequirements(line, decoded.payload.accepted));
    if (!requirements) {
      sendPaymentRequired(
        response,
        paymentRequired,
        "the payment's accepted line is not one of this resource's accepts[] lines",
      );
      return;
    }

    let result: SettleResponse;
    try {
      result = await facilitator.settle(decoded.payload, requirements);
    } catch (error) {
      const reason =
        error instanceof SettleError
          ? (error.errorReason ?? error.message)
          : `facilitator unreachable: ${error instanceof Error ? error.message : String(error)}`;
      settlements.push({ ok: false, reason });
      log(`seller: settle failed: ${error instanceof Error ? error.message : String(error)}`);
      sendPaymentRequired(response, paymentRequired, `settlement failed: ${reason}`);
      return;
    }
    if (!result.success) {
      const reason = result.errorReason ?? "settlement failed";
      settlements.push({ ok: false, reason, result });
      log(`seller: settle unsuccessful: ${reason}`);
      sendPaymentRequired(response, paymentRequired, `settlement failed: ${reason}`);
      return;
    }
    settlements.push({ ok: true, result });
    log(`seller: settled ${result.transaction} from ${result.payer ?? "?"}`);
    response.writeHead(200, {
      "Content-Type": "application/json",
      "PAYMENT-RESPONSE": toBase64Json(result),
      "Access-Control-Expose-Headers": "PAYMENT-RESPONSE",
    });
    response.end(JSON.stringify(content));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.keepAliveTimeout = 2_000;
  const port = (server.address() as AddressInfo).port;
  const url = `http://${HOST}:${port}${resourcePath}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  try {
    paymentRequired = await enrich(facilitatorUrl, {
      x402Version: 2,
      resource: { url, description: options.description ?? "A paid report", mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: options.network as Network,
          asset: options.asset,
          amount: options.amount,
          payTo: options.sellerWallet,
          maxTimeoutSeconds: options.maxTimeoutSeconds ?? 60,
          extra: {},
        },
      ],
    });
  } catch (error) {
    await close();
    throw error;
  }
  return { url, paymentRequired, settlements, close };
}

/** POST /payment-required/enrich: the naive body in, the body buyers can pay through this facilitator out. */
async function enrich(facilitatorUrl: string, naive: PaymentRequired): Promise<PaymentRequired> {
  const response = await fetch(`${facilitatorUrl}/payment-required/enrich`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(naive),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(
      `POST ${facilitatorUrl}/payment-required/enrich answered ${response.status}: ${text.slice(0, 300)}`,
    );
  const body = JSON.parse(text) as PaymentRequired;
  if (!Array.isArray(body.accepts) || body.accepts.length === 0) throw new Error("enrich returned no accepts[] lines");
  return body;
}

type Decoded = { ok: true; payload: PaymentPayload } | { ok: false; error: string };

/** PAYMENT-SIGNATURE: base64 JSON (x402 v2), else raw JSON; a verify/settle body or a bare PaymentPayload. */
export function decodePaymentSignature(header: string): Decoded {
  const trimmed = header.trim();
  if (trimmed.length > MAX_HEADER_JSON_BYTES * 2) return { ok: false, error: "PAYMENT-SIGNATURE is too large" };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(trimmed, "base64").toString("utf8"));
  } catch {
    try {
      json = JSON.parse(trimmed);
    } catch {
      return { ok: false, error: "PAYMENT-SIGNATURE is neither base64 JSON nor JSON" };
    }
  }
  if (!isObject(json)) return { ok: false, error: "PAYMENT-SIGNATURE must decode to a JSON object" };
  const candidate = isObject(json.paymentPayload) ? json.paymentPayload : json;
  if (
    !isObject(candidate.accepted) ||
    !isObject(candidate.payload) ||
    typeof candidate.payload.transaction !== "string"
  ) {
    return {
      ok: false,
      error: "PAYMENT-SIGNATURE must carry paymentPayload.accepted and paymentPayload.payload.transaction",
    };
  }
  if (candidate.x402Version !== 2) return { ok: false, error: "only x402Version 2 payments are accepted" };
  return { ok: true, payload: candidate as unknown as PaymentPayload };
}

/** Same line: identical JSON after the scheme alias is normalised (key order does not matter). */
function sameRequirements(own: PaymentRequirements, given: unknown): boolean {
  if (!isObject(given)) return false;
  const normalise = (line: Record<string, unknown>) =>
    canonicalJson({ ...line, scheme: line.scheme === "v2:solana:exact" ? "exact" : line.scheme });
  return normalise(own as unknown as Record<string, unknown>) === normalise(given);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function sendPaymentRequired(response: ServerResponse, body: PaymentRequired, error: string): void {
  const withError = { ...body, error };
  response.writeHead(402, {
    "Content-Type": "application/json",
    "PAYMENT-REQUIRED": toBase64Json(withError),
    "Access-Control-Expose-Headers": "PAYMENT-REQUIRED",
  });
  response.end(JSON.stringify(withError));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify(body));
}

function toBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
