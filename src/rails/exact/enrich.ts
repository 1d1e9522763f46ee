import { type Address, isAddress, isOffCurveAddress } from "@solana/kit";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { RAIL_SWITCH_REASONS, railNotEnabled } from "../../platform/config/rail-switches";
import { badRequest, type ErrorReason } from "../../platform/errors/catalogue";
import { log } from "../../platform/observability/log";
import { assetNotAllowedMessage } from "../../x402/asset-allowlist";
import { type PaymentRequiredBody, PaymentRequirementsSchema } from "../../x402/schemas";
import { bareScheme } from "../../x402/scheme-names";
import { EXACT_BELOW_MINIMUM_REASON, refuseBelowExactMinimum } from "./minimum-amount";
import { decodeSplitVault } from "./program/accounts";
import { findVaultPda } from "./program/pda";
import { DEFAULT_SOVEREIGN_FEE_BPS, getUniversalSettleFacts } from "./program-facts";
import { exactRail } from "./rail";
import { requireUniversalSettle } from "./universal-settle-program";
import { walletLineExtra } from "./wallet-line";

/**
 * `POST /payment-required/enrich` for the `exact` rail: turns a seller's naive 402 body into one a buyer can
 * pay through this facilitator (docs/facilitator-spec.md §1 "402 publishing", §4.3). A read-only JSON transform: it
 * reads the chain only to quote the seller's fee tier, and writes nothing.
 *
 * Per `accepts[i]` line:
 * - another network, or a scheme other than `exact` (or its alias): returned as given, untouched.
 * - `exact` on this network, with `payTo` a bare wallet: `payTo` becomes the wallet's vault PDA, `scheme` the
 *   wire name `exact`, and `extra` gains this facilitator's keys (ours overwrite same-named seller keys; the
 *   seller's other keys stay) plus `merchantWallet` = the wallet.
 * - already pointing at the vault (`payTo` = vault PDA of `extra.merchantWallet`, or an existing SplitVault
 *   account whose recorded seller derives exactly that PDA): gets the same `extra` keys a wallet line gets, so
 *   enriching an enriched (or vault-only) line returns what enriching the wallet line returns. Official clients
 *   refuse a line without `extra.feePayer`, so passing a vault line through bare would leave it unpayable.
 * - any other `payTo` off the ed25519 curve (a PDA, not a wallet) without `extra.merchantWallet`: returned as
 *   given with nothing added. The wallet behind an unknown PDA cannot be recovered, so any rewrite would be a
 *   guess that could route money to the wrong place; the build endpoint later refuses such a line.
 * - `extra.merchantWallet` given but `payTo` is neither that wallet nor its vault PDA: 400, because the two
 *   disagree about who is paid and guessing either one could misdirect funds.
 */

type JsonObject = Record<string, unknown>;

/**
 * What the exact enrich refuses a line with besides a malformed line: an amount below the minimum, a vault line when
 * vaults are off.
 */
export const EXACT_ENRICH_REASONS = [
  EXACT_BELOW_MINIMUM_REASON,
  ...RAIL_SWITCH_REASONS,
] as const satisfies readonly ErrorReason[];

/** Keys of `extra` this facilitator owns on an enriched line (docs/wire-notes.md "Discovery shapes": exact `extra`). */
const OWNED_EXTRA_KEYS = [
  "feePayer",
  "programId",
  "configAddress",
  "feeBps",
  "minFeeAmount",
  "minFeeAmountSol",
  "maxComputeUnitLimit",
  "recommendedComputeUnitPrice",
] as const;

/**
 * A line to rewrite: where it is and whose vault it pays (wallet null: a vault-only line, the seller read from chain).
 */
interface PlannedLine {
  index: number;
  line: JsonObject;
  wallet: Address | null;
  vault: Address;
}

export async function enrichPaymentRequired(
  config: Config,
  body: PaymentRequiredBody,
  correlationId?: string,
): Promise<PaymentRequiredBody> {
  if (config.programs.universalSettle === null && config.rails.exactWallet.enabled)
    return await enrichWalletLines(config, body, correlationId);
  const programId = requireUniversalSettle(config);
  const planned: PlannedLine[] = [];

  for (const [index, raw] of body.accepts.entries()) {
    const line = ownExactLine(config, raw, index);
    if (line === null) continue;
    warnIfAssetNotAllowed(config, line, index, correlationId);
    // Refused here, with the number, rather than at the buyer's /verify: a line below the minimum can never be paid.
    const asset = String(line.asset);
    await refuseBelowExactMinimum(
      config,
      `accepts[${index}].amount`,
      BigInt(String(line.amount)),
      asset,
      asset === NATIVE_SOL_ALLOWLIST_ADDRESS,
    );
    const plan = await planLine(programId, line, index);
    planned.push({ index, line, ...plan });
  }
  if (planned.length === 0) return body;

  // One batched read for every vault, beside the (cached) program Config: the fee tier depends on both.
  const [extraBase, vaults] = await Promise.all([
    ownedExtra(config),
    fetchAccounts(
      config,
      planned.map((p) => p.vault),
    ),
  ]);

  const accepts = [...body.accepts];
  for (const { index, line, wallet: givenWallet, vault } of planned) {
    const vaultAccount = vaults.get(vault) ?? null;
    const onChainVault = vaultAccount && vaultAccount.owner === programId ? decodeSplitVault(vaultAccount.data) : null;
    const wallet = givenWallet ?? (await sellerOfVaultLine(programId, vault, onChainVault));
    if (wallet === null) {
      log("info", "enrich_line_skipped", {
        correlationId,
        index,
        reason: "payTo is off-curve, extra.merchantWallet is absent and payTo is not an existing vault",
      });
      continue;
    }
    const isSovereign = onChainVault !== null && onChainVault.seller === wallet && onChainVault.isSovereign;
    const sellerExtra = isPlainObject(line.extra) ? line.extra : {};
    accepts[index] = {
      ...line,
      scheme: "exact",
      payTo: vault,
      extra: {
        ...sellerExtra,
        ...extraBase.extra,
        ...(isSovereign ? { feeBps: extraBase.sovereignFeeBps } : {}),
        merchantWallet: wallet,
      },
    };
  }
  return { ...body, accepts };
}

/**
 * Without a UniversalSettle program but with the wallet form on, a line keeps its `payTo` (the seller's wallet) and
 * gains the fee payer and compute caps a buyer needs; a line that names a vault (`extra.merchantWallet`) cannot be
 * served here (503 rail_not_enabled).
 */
async function enrichWalletLines(
  config: Config,
  body: PaymentRequiredBody,
  correlationId?: string,
): Promise<PaymentRequiredBody> {
  const accepts = [...body.accepts];
  for (const [index, raw] of body.accepts.entries()) {
    const line = ownExactLine(config, raw, index);
    if (line === null) continue;
    warnIfAssetNotAllowed(config, line, index, correlationId);
    const sellerExtra = isPlainObject(line.extra) ? line.extra : {};
    if (sellerExtra.merchantWallet !== undefined && sellerExtra.merchantWallet !== null) {
      const exactVault = config.rails.exactVault;
      throw railNotEnabled(
        "exact (vault payTo)",
        `accepts[${index}] names a vault (extra.merchantWallet), ` +
          `but ${exactVault.enabled ? "no UniversalSettle program is configured" : exactVault.why}`,
      );
    }
    // The same floor as the vault form's lines (and /verify): a line below it can never be paid.
    await refuseBelowExactMinimum(
      config,
      `accepts[${index}].amount`,
      BigInt(String(line.amount)),
      String(line.asset),
      String(line.asset) === NATIVE_SOL_ALLOWLIST_ADDRESS,
    );
    accepts[index] = {
      ...line,
      scheme: "exact",
      extra: { ...sellerExtra, ...walletLineExtra(config) },
    };
  }
  return { ...body, accepts };
}

/**
 * The line as an object when it is an `exact` line for this network (validated), else null (pass through).
 * A line that is not even an object, or has no string scheme, is malformed whatever its network: 400.
 */
function ownExactLine(config: Config, raw: unknown, index: number): JsonObject | null {
  if (!isPlainObject(raw)) throw badRequest(`accepts[${index}]: must be an object`);
  if (typeof raw.scheme !== "string") throw badRequest(`accepts[${index}].scheme: must be a string`);
  if (bareScheme(raw.scheme) !== "exact") return null;
  // A string network that is not ours belongs to another facilitator; a missing one is a broken exact line.
  if (typeof raw.network === "string" && raw.network !== config.network) return null;

  const result = v.safeParse(PaymentRequirementsSchema, raw, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0]!;
    const path = v.getDotPath(issue);
    throw badRequest(`accepts[${index}]${path ? `.${path}` : ""}: ${issue.message}`);
  }
  const merchantWallet = isPlainObject(raw.extra) ? raw.extra.merchantWallet : undefined;
  if (
    merchantWallet !== undefined &&
    merchantWallet !== null &&
    (typeof merchantWallet !== "string" || !isAddress(merchantWallet))
  ) {
    throw badRequest(`accepts[${index}].extra.merchantWallet: must be a base58 Solana address (32 bytes)`);
  }
  return raw;
}

async function planLine(
  programId: Address,
  line: JsonObject,
  index: number,
): Promise<{ wallet: Address | null; vault: Address }> {
  const payTo = line.payTo as Address; // validated by PaymentRequirementsSchema
  const merchantWallet = isPlainObject(line.extra) ? line.extra.merchantWallet : undefined;

  if (typeof merchantWallet === "string") {
    const wallet = merchantWallet as Address; // validated in ownExactLine
    const [vault] = await findVaultPda(programId, wallet);
    if (payTo === vault || payTo === wallet) return { wallet, vault };
    throw badRequest(
      `accepts[${index}].payTo: ${payTo} is neither extra.merchantWallet (${wallet}) nor its vault PDA (${vault}); ` +
        "send the seller wallet as payTo (or drop merchantWallet) and enrich again",
    );
  }
  // Off-curve: perhaps already a vault; the batched account read below tells whose.
  if (isOffCurveAddress(payTo)) return { wallet: null, vault: payTo };
  const [vault] = await findVaultPda(programId, payTo);
  return { wallet: payTo, vault };
}

/** The seller of a vault-only line: the SplitVault's recorded seller, if that seller's vault PDA is exactly `vault`. */
async function sellerOfVaultLine(
  programId: Address,
  vault: Address,
  onChainVault: ReturnType<typeof decodeSplitVault> | null,
): Promise<Address | null> {
  if (onChainVault === null) return null;
  const [derived] = await findVaultPda(programId, onChainVault.seller);
  return derived === vault ? onChainVault.seller : null;
}

/** `/supported`'s exact `extra` restricted to the keys we own, plus the sovereign rate for vaults that earned it. */
async function ownedExtra(config: Config): Promise<{ extra: Record<string, unknown>; sovereignFeeBps: string }> {
  // Facts first: rail.supportedExtra then reuses the same cached read instead of starting its own.
  const facts = await getUniversalSettleFacts(config);
  // Enrich runs only with the vault form on (requireUniversalSettle above), so this is the vault form's extra.
  const supported: Record<string, unknown> = (await exactRail.supportedExtra(config)) ?? {};
  const extra: Record<string, unknown> = {};
  for (const key of OWNED_EXTRA_KEYS) extra[key] = supported[key];
  const sovereignFeeBps = String(facts.onChainConfig?.discountedFeeBps ?? DEFAULT_SOVEREIGN_FEE_BPS);
  return { extra, sovereignFeeBps };
}

/**
 * docs/facilitator-spec.md §4.3: with an allowlist configured, an `exact` line for an unlisted asset is logged, never
 * refused here.
 */
function warnIfAssetNotAllowed(config: Config, line: JsonObject, index: number, correlationId?: string): void {
  const message = assetNotAllowedMessage(config, String(line.asset));
  if (message !== null) log("warn", "enrich_asset_not_allowed", { correlationId, index, asset: line.asset, message });
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
