import type { Config } from "../platform/config/load-config";
import type { SettleCall, SettleOutcome } from "../settlement/settle-engine";
import type { AcceptedRequirements, PaymentRejection } from "../x402/payment-verdict";
import type { SchemeName } from "../x402/scheme-names";
import type { VerifySettleBody } from "../x402/schemas";

/**
 * A payment rail (x402 scheme): how `/supported` advertises it and how `/verify` and `/settle` handle its payments.
 * A rail lives in its own folder under `schemes/`, exports one object satisfying this interface from its `rail.ts`,
 * and is listed in `registry.ts`. It may import the payment core (`x402/`, `settlement/`, this file) and the shared
 * layers (`solana/`, `programs/`, `store/`, `config/`), never another rail's folder.
 *
 * Both `verify` and `settle` receive the body only after the common checks (`x402/common-checks.ts`) passed: the
 * scheme is this rail's, `paymentRequirements` equals `paymentPayload.accepted`, the network and asset are served.
 * Refusals use `rejection(reason, message)` with a reason from `x402/rejection-reasons.ts` (add the rail's own
 * reasons there, in its own block).
 */
export interface Rail {
  scheme: SchemeName;
  /** `extra` advertised for this scheme in `/supported` (numbers as decimal strings); null when not served here. */
  supportedExtra(config: Config): Promise<Record<string, unknown> | null>;
  /**
   * Everything short of moving funds: decode, the rail's rules, signatures, chain facts; with `simulate`, a simulation
   * (`solana/simulate.ts`). `ledger` (verify only) lets a chain refusal of an already settled payment be named
   * (`settlement/already-settled.ts`). Writes nothing.
   */
  verify(
    config: Config,
    body: VerifySettleBody,
    accepted: AcceptedRequirements,
    options: { simulate: boolean; ledger?: D1Database },
  ): Promise<{ ok: true; payer: string } | PaymentRejection>;
  /**
   * Verify again (no trust in an earlier /verify; the send's preflight is the simulation), sign what the facilitator
   * must sign, and hand the payment to the settle engine (`settleSignedPayment`), which sends it exactly once and
   * reports success exactly once. A refusal before the engine is `settledWith(rejection)`. The route answers from
   * the outcome, records the seller's history from it and keeps `afterResponse` alive after the response.
   */
  settle(config: Config, body: VerifySettleBody, accepted: AcceptedRequirements, call: SettleCall): Promise<SettleOutcome>;
}
