import type { Config } from "../config/load-config";
import type { Env } from "../env";
import type { SettleCall, Settlement } from "../settlement/settle-engine";
import type { AcceptedRequirements, PaymentRejection } from "../x402/payment-verdict";
import type { SchemeName } from "../x402/scheme-names";
import type { VerifySettleBody } from "../x402/schemas";

/** A payment rail (x402 scheme): how discovery advertises it and how /verify and /settle handle its payments. */
export interface Rail {
  scheme: SchemeName;
  /** `extra` advertised for this scheme in `/supported` (numbers as decimal strings); null when not served here. */
  supportedExtra(config: Config): Promise<Record<string, unknown> | null>;
  verify(
    config: Config,
    body: VerifySettleBody,
    accepted: AcceptedRequirements,
    options: { simulate: boolean; ledger?: D1Database },
  ): Promise<{ ok: true; payer: string } | PaymentRejection>;
  settle(config: Config, env: Env, body: VerifySettleBody, accepted: AcceptedRequirements, call: SettleCall): Promise<Settlement>;
}
