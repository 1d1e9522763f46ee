import { ERROR_STATUS, type ErrorReason, isFacilitatorError } from "../../platform/errors/catalogue";
import { log } from "../../platform/observability/log";
import { recordRequestTelemetry } from "../../platform/observability/telemetry";
import type { RailModule } from "../../rails/rail";
import { railsBySchemeOf, rejectionReasonsOf, verifySettleBodySchemaOf } from "../../rails/registry";
import { type SettleOutcome, settledWith } from "../../settlement/settle-engine";
import { settleLedgerOf } from "../../settlement/settle-ports";
import { type PaymentAttempt, recordPaymentAttempt } from "../../store/payment-attempts";
import type { PaymentAttemptOutcome, PaymentAttemptRole } from "../../store/states";
import { asVerifySettleBody } from "../../x402/bare-payment-payload";
import { checkCommonRequirementsAmong } from "../../x402/common-checks";
import { payerKeyOf } from "../../x402/payer-key";
import { paymentIdentifierOf } from "../../x402/payment-identifier";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import type { RejectionReason } from "../../x402/rejection-reasons";
import type { VerifySettleBody } from "../../x402/schemas";
import { normalizeSchemeAmong, type SchemeName } from "../../x402/scheme-names";
import type { AppContext } from "../context";
import { callerCorrelationIdOf } from "../middleware/correlation-id";
import { enforceRateLimit } from "../middleware/rate-limit";
import { type RouteDef, route } from "../route-def";
import { SettleResponseSchema, VerifyResponseSchema } from "./payments-responses";

/**
 * `/verify` and `/settle` (docs/facilitator-spec.md §4.1), answering in the union shape of docs/wire-notes.md "Verify /
 * settle responses" so official x402 clients parse both. `rails`: the rails they dispatch to (the Worker: `RAILS`).
 */
export function paymentRoutes(rails: readonly RailModule[]): RouteDef[] {
  const served: ServedRails = railsBySchemeOf(rails);
  const body = verifySettleBodySchemaOf(rails);
  const input = { ...PAYMENT_INPUT, reasons: rejectionReasonsOf(rails) };
  return [
    route({
      key: "verify",
      body,
      ...input,
      response: VerifyResponseSchema,
      agentTool: {
        name: "verify_payment",
        description:
          "Check a signed x402 v2 payment (paymentPayload + paymentRequirements) without moving funds. Returns " +
          "isValid and, when invalid, invalidReason.",
      },
      method: "POST",
      path: "/verify",
      tag: "Payments",
      summary: "Verify an x402 v2 payment proof against payment requirements (no funds move)",
      invalidInput: (c, message, reason) =>
        answerVerify(c, served, Date.now(), rejection(paymentInputReason(reason), message)),
      handler: async (c, { body }) => answerVerify(c, served, Date.now(), await limitedPayment(c, body)),
    }),
    route({
      key: "settle",
      body,
      ...input,
      response: SettleResponseSchema,
      agentTool: {
        name: "settle_payment",
        description:
          "Settle a signed x402 v2 payment: the facilitator verifies it, co-signs as fee payer and submits it. " +
          "Idempotent per transaction. Returns success and the transaction signature.",
      },
      method: "POST",
      path: "/settle",
      tag: "Payments",
      summary: "Verify, co-sign as fee payer, submit and confirm an x402 v2 payment (idempotent)",
      invalidInput: (c, message, reason) =>
        answerSettle(c, served, Date.now(), rejection(paymentInputReason(reason), message)),
      handler: async (c, { body }) => answerSettle(c, served, Date.now(), await limitedPayment(c, body)),
    }),
  ];
}

/**
 * How verify and settle read their input: the per-client limit before anything is read, any Content-Type, and a
 * malformed or wrongly shaped body is an x402 `invalid_payload` answered in the route's own shape.
 */
const PAYMENT_INPUT = {
  limit: "paymentClient",
  anyContentType: true,
  networkAt: [
    ["paymentRequirements", "network"],
    ["paymentPayload", "accepted", "network"],
    ["accepted", "network"],
  ],
  reshapeBody: asVerifySettleBody,
} as const;

/** The rails /verify and /settle dispatch to, by their wire name. */
type ServedRails = ReadonlyMap<SchemeName, RailModule>;

/**
 * A body refused before it parses: a foreign network keeps its reason (as on every route), any other flaw is x402's
 * `invalid_payload`.
 */
function paymentInputReason(reason: ErrorReason): RejectionReason {
  return reason === "invalid_network" ? "invalid_network" : "invalid_payload";
}

async function answerVerify(
  c: AppContext,
  served: ServedRails,
  startedAtMs: number,
  parsed: ParsedBody,
): Promise<Response> {
  const correlationId = parsed.ok ? (parsed.body.correlationId ?? c.var.correlationId) : c.var.correlationId;
  const verdict = parsed.ok ? await asRejectionOnFault(verifyPayment(c, served, parsed.body)) : parsed;
  // Telemetry only: /verify writes nothing to D1, whoever calls it.
  recordTelemetry(
    c,
    "verify",
    parsed.ok ? parsed.body : null,
    startedAtMs,
    verdict.ok ? "valid" : "invalid",
    verdict.ok ? null : verdict.reason,
  );
  if (verdict.ok) return c.json({ isValid: true, valid: true, payer: verdict.payer, correlationId });
  return c.json(
    {
      isValid: false,
      valid: false,
      invalidReason: verdict.reason,
      invalidMessage: verdict.message,
      reason: verdict.reason,
      ...(verdict.payer ? { payer: verdict.payer } : {}),
      error: verdict.message,
      code: verdict.code ?? "PAYMENT_INVALID",
      correlationId,
    },
    ERROR_STATUS[verdict.code ?? "PAYMENT_INVALID"],
  );
}

async function answerSettle(
  c: AppContext,
  served: ServedRails,
  startedAtMs: number,
  parsed: ParsedBody,
): Promise<Response> {
  const config = c.var.config;
  const correlationId = parsed.ok ? (parsed.body.correlationId ?? c.var.correlationId) : c.var.correlationId;
  const settled = parsed.ok
    ? await asRejectionOnFault(settlePayment(c, served, parsed.body, parsed.paymentId))
    : parsed;
  const { settlement: result, afterResponse } = "settlement" in settled ? settled : settledWith(settled);
  const signature = "signature" in result && result.signature ? result.signature : "";
  const outcome: PaymentAttemptOutcome = result.ok ? "settled" : "pending" in result ? "pending" : "failed";
  recordTelemetry(c, "settle", parsed.ok ? parsed.body : null, startedAtMs, outcome, result.ok ? null : result.reason);
  // The seller's payment history, from the outcome: only for a body that parsed (an anonymous junk request
  // writes nothing). The ledger's success report itself was written before this answer, by the engine.
  if (parsed.ok) {
    runAfterResponse(
      c,
      recordPaymentAttempt(
        c.env.DB,
        settleAttempt(
          parsed.body,
          correlationId,
          startedAtMs,
          outcome,
          result.ok ? null : result.reason,
          signature || null,
          result.payer ?? null,
          "settlement" in settled && settled.deposit ? "deposit" : "sale",
        ),
      ),
      correlationId,
    );
  }
  for (const work of afterResponse) runAfterResponse(c, work, correlationId);
  if (result.ok) {
    return c.json({
      success: true,
      payer: result.payer,
      transaction: result.signature,
      network: config.network,
      ...(result.alreadySettled ? { alreadySettled: true } : {}),
      ...settledAmountOf(served, parsed),
      correlationId,
    });
  }
  const code = "pending" in result ? null : (result.code ?? "PAYMENT_INVALID");
  return c.json(
    {
      success: false,
      errorReason: result.reason,
      errorMessage: result.message,
      reason: result.reason,
      ...(result.payer ? { payer: result.payer } : {}),
      transaction: signature,
      network: config.network,
      error: result.message,
      code: code ?? "SETTLEMENT_PENDING",
      correlationId,
    },
    code === null ? 202 : ERROR_STATUS[code],
  );
}

/** `amount` of a success (`SettleResponse.amount` of @x402/core), for a rail whose settled amount it names. */
function settledAmountOf(served: ServedRails, parsed: ParsedBody): { amount?: string } {
  if (!parsed.ok) return {};
  const requirements = parsed.body.paymentRequirements;
  const scheme = normalizeSchemeAmong(requirements.scheme, served);
  const settledAmount = scheme === null ? undefined : served.get(scheme)?.settledAmount;
  return settledAmount ? { amount: settledAmount(requirements) } : {};
}

type ParsedBody = { ok: true; body: VerifySettleBody; paymentId: string | null } | PaymentRejection;

/** The payment identifier, then the per-payer limit once the proof is parsed (429 with Retry-After). */
async function limitedPayment(c: AppContext, body: VerifySettleBody): Promise<ParsedBody> {
  const paymentId = paymentIdentifierOf(body.paymentPayload);
  const parsed: ParsedBody = paymentId.ok ? { ok: true, body, paymentId: paymentId.id } : paymentId;
  const payer = parsed.ok ? payerKeyOf(parsed.body.paymentPayload.payload.transaction) : null;
  if (payer) await enforceRateLimit(c, "paymentPayer", payer);
  return parsed;
}

async function verifyPayment(
  c: AppContext,
  served: ServedRails,
  body: VerifySettleBody,
): Promise<{ ok: true; payer: string } | PaymentRejection> {
  const config = c.var.config;
  const accepted = checkCommonRequirementsAmong(config, body, served);
  if ("ok" in accepted) return accepted;
  const rail = served.get(accepted.scheme);
  if (!rail) return schemeNotAvailable(accepted.scheme);
  const verdict = await rail.verify(config, body, accepted, { simulate: true, db: c.env.DB });
  return verdict.ok ? { ok: true, payer: verdict.payer } : verdict;
}

async function settlePayment(
  c: AppContext,
  served: ServedRails,
  body: VerifySettleBody,
  paymentId: string | null,
): Promise<SettleOutcome> {
  const config = c.var.config;
  const accepted = checkCommonRequirementsAmong(config, body, served);
  if ("ok" in accepted) return settledWith(accepted);
  const rail = served.get(accepted.scheme);
  if (!rail) return settledWith(schemeNotAvailable(accepted.scheme));
  return rail.settle(
    config,
    body,
    accepted,
    {
      db: c.env.DB,
      // The ledger objects a new payment is claimed in are this Worker's location's: behind Cloudflare only its edge
      // sets `cf`; local serving (Miniflare would take it from a caller's header) strips it
      // (scripts/lib/local-edge.ts).
      settleLedger: settleLedgerOf(
        config,
        c.env,
        (c.req.raw.cf as { colo?: unknown } | undefined)?.colo as string | undefined,
      ),
      // Only the header counts as the seller's retry key: the body may come verbatim from the buyer.
      callerCorrelationId: callerCorrelationIdOf(c.req.header("X-Correlation-ID")),
      paymentId,
    },
    { bearerToken: bearerTokenOf(c.req.header("Authorization")) },
  );
}

/**
 * An upstream fault (RPC down, timeout) during verify or settle is still answered in the x402 shape, so the
 * official client sees `isValid`/`success` false with a reason instead of an unparseable error.
 */
async function asRejectionOnFault<T>(work: Promise<T>): Promise<T | PaymentRejection> {
  try {
    return await work;
  } catch (error) {
    if (isFacilitatorError(error) && error.code === "FACILITATOR_UPSTREAM") {
      return rejection("facilitator_upstream_error", error.message, { code: "FACILITATOR_UPSTREAM" });
    }
    throw error;
  }
}

/** The token of an `Authorization: Bearer <token>` header, else null. */
function bearerTokenOf(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S{1,512})$/i);
  return match ? match[1]! : null;
}

function schemeNotAvailable(scheme: string): PaymentRejection {
  return rejection("unsupported_scheme", `The ${scheme} rail is not available on this deployment; see /supported`);
}

function recordTelemetry(
  c: AppContext,
  route: "verify" | "settle",
  body: VerifySettleBody | null,
  startedAtMs: number,
  outcome: string,
  reason: string | null,
): void {
  const requirements = body?.paymentRequirements;
  recordRequestTelemetry(c.env, {
    route,
    outcome,
    reason,
    scheme: requirements?.scheme ?? null,
    network: requirements?.network ?? null,
    latencyMs: Date.now() - startedAtMs,
  });
}

/** The settle attempt row (audit trail and the seller's payment history). */
function settleAttempt(
  body: VerifySettleBody,
  correlationId: string,
  startedAtMs: number,
  outcome: PaymentAttemptOutcome,
  reason: string | null,
  signature: string | null,
  payer: string | null | undefined,
  role: PaymentAttemptRole,
): PaymentAttempt {
  const requirements = body.paymentRequirements;
  const merchantWallet = requirements.extra.merchantWallet;
  return {
    kind: "settle",
    correlationId,
    scheme: requirements.scheme,
    network: requirements.network,
    payer: payer ?? null,
    payTo: requirements.payTo,
    merchantWallet: typeof merchantWallet === "string" ? merchantWallet.slice(0, 64) : null,
    asset: requirements.asset,
    amount: requirements.amount,
    outcome,
    reason,
    signature,
    startedAtMs,
    durationMs: Date.now() - startedAtMs,
    role,
  };
}

/** Keeps the isolate alive for work that finishes after the response; failures are logged, never surfaced. */
function runAfterResponse(c: AppContext, work: Promise<unknown>, correlationId: string): void {
  const logged = work.catch((error: unknown) => log("error", "deferred_write_failed", { correlationId, error }));
  try {
    c.executionCtx.waitUntil(logged);
  } catch {
    // No execution context (direct app.request in tests): the work still runs.
  }
}
