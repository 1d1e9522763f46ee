import { fetchAccounts } from "../../chain/accounts";
import type { Config } from "../../platform/config/load-config";
import type { Rail } from "../rail";
import { OPEN_MAX_COMPUTE_UNIT_LIMIT } from "./open-rules";
import { settleUptoPayment } from "./settle";
import { verifyUptoPayment } from "./verify";

/** How long an isolate trusts "the payment-channels program is deployed here" (it does not move). */
const PROGRAM_CHECK_TTL_MS = 10 * 60_000;
let programCheck: { programId: string; rpcUrl: string; deployed: boolean; atMs: number } | null = null;

/**
 * The `upto` rail (docs/payment-channels.md, "How the facilitator serves upto"): usage-based payments through the
 * payment-channels program. Served where the program is deployed. `extra` carries what the official
 * `@x402/svm/upto/server` reads — `feePayer` (the channel's fee payer, rent payer and payee) and, when this facilitator
 * holds a voucher key for sellers that delegate, `receiverAuthorizer` — plus this facilitator's bounds on the grace
 * period and lifetime of a channel and its compute caps for the open.
 */
export const uptoRail = {
  scheme: "upto",
  verify: verifyUptoPayment,
  settle: settleUptoPayment,
  async supportedExtra(config: Config) {
    if (!(await isProgramDeployed(config))) return null;
    return {
      feePayer: config.feePayer.address,
      ...(config.upto.delegated ? { receiverAuthorizer: config.upto.delegated.authorizer.address } : {}),
      programId: config.programs.paymentChannels,
      minWithdrawDelay: String(config.upto.minWithdrawDelaySeconds),
      maxWithdrawDelay: String(config.upto.maxWithdrawDelaySeconds),
      maxChannelLifetimeSeconds: String(config.upto.maxChannelLifetimeSeconds),
      maxComputeUnitLimit: String(Math.min(OPEN_MAX_COMPUTE_UNIT_LIMIT, config.compute.maxUnitLimit)),
      maxComputeUnitPrice: String(config.compute.maxUnitPriceMicroLamports),
      // payTo is the seller's own wallet: the channel's one split pays it (docs/payment-channels.md).
      payToForms: ["wallet"],
    };
  },
} satisfies Rail;

async function isProgramDeployed(config: Config): Promise<boolean> {
  const now = Date.now();
  const cached = programCheck;
  if (
    cached &&
    cached.programId === config.programs.paymentChannels &&
    cached.rpcUrl === config.rpcUrl &&
    now - cached.atMs < PROGRAM_CHECK_TTL_MS
  )
    return cached.deployed;
  const account = (await fetchAccounts(config, [config.programs.paymentChannels]).catch(() => null))?.get(
    config.programs.paymentChannels,
  );
  if (account === undefined) return cached?.deployed ?? false; // the read failed: keep the last answer
  const deployed = account?.executable === true;
  programCheck = { programId: config.programs.paymentChannels, rpcUrl: config.rpcUrl, deployed, atMs: now };
  return deployed;
}
