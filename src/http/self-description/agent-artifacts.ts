import type { Address } from "@solana/kit";
import { fetchAccounts } from "../../chain/accounts";
import { parseMint } from "../../chain/mint";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { type RailModule, railSwitchesOf } from "../../rails/rail";
import type { EndpointInfo } from "../route-def";
import { agentToolsOf } from "./agent-tools";

const SOL_DECIMALS = 9;
const STABLECOIN_DECIMALS = 6;

interface MintEntry {
  mint: string;
  symbol: string | null;
  decimals: number | null;
  kind: "native-sol" | "token";
}

/**
 * `/agent-payTo-semantics.json`: how `payTo` is resolved per scheme, and the live mint allowlist with symbols and
 * decimals.
 */
export async function buildPayToSemantics(config: Config, rails: readonly RailModule[]) {
  const enforced = config.allowedPaymentMints.length > 0;
  return {
    schemaVersion: "1.0.0",
    network: config.network,
    schemes: Object.fromEntries(
      rails.flatMap((rail) => (rail.describe?.payTo ? [[rail.scheme, rail.describe.payTo(config)]] : [])),
    ),
    rules: [
      rails.some((rail) =>
        railSwitchesOf(rail, config).some((form) => form.payToForm === "wallet" && form.setting.enabled),
      )
        ? "payTo is the scheme's on-chain PDA (see schemes above), or the seller's own wallet where the kind's " +
          '/supported extra.payToForms lists "wallet".'
        : "payTo is always an on-chain PDA for the scheme, never the seller's bare wallet.",
      'Amounts are raw base units as decimal strings (1 USDC = "1000000").',
    ],
    programs: Object.assign({}, ...rails.map((rail) => rail.describe?.programIds?.(config) ?? {})),
    nativeSolAllowlistAddress: NATIVE_SOL_ALLOWLIST_ADDRESS,
    mintAllowlist: {
      enforced,
      mints: await describeMints(config, enforced ? config.allowedPaymentMints : knownMints(config)),
      note: enforced
        ? "build, verify and settle reject assets outside this list"
        : "no allowlist configured: every mint is permitted; the known mints are listed",
    },
  };
}

function knownMints(config: Config): Address[] {
  return [
    config.mints.usdc,
    ...(config.mints.usdt ? [config.mints.usdt] : []),
    NATIVE_SOL_ALLOWLIST_ADDRESS as Address,
  ];
}

/** Symbol and decimals of each mint: known ones from the configuration, others read from chain in one batched call. */
async function describeMints(config: Config, mints: readonly Address[]): Promise<MintEntry[]> {
  const known = (mint: Address): MintEntry | null => {
    if (mint === NATIVE_SOL_ALLOWLIST_ADDRESS)
      return { mint, symbol: "SOL", decimals: SOL_DECIMALS, kind: "native-sol" };
    if (mint === config.mints.usdc) return { mint, symbol: "USDC", decimals: STABLECOIN_DECIMALS, kind: "token" };
    if (mint === config.mints.usdt) return { mint, symbol: "USDT", decimals: STABLECOIN_DECIMALS, kind: "token" };
    return null;
  };
  const unknown = mints.filter((mint) => known(mint) === null);
  const accounts = unknown.length > 0 ? await fetchAccounts(config, unknown).catch(() => new Map()) : new Map();
  return mints.map((mint) => {
    const entry = known(mint);
    if (entry) return entry;
    const account = accounts.get(mint);
    const info = account ? parseMint(account) : null;
    return { mint, symbol: null, decimals: info?.decimals ?? null, kind: "token" };
  });
}

/** `/agent-tools.json`: the tools an LLM agent can call, each with its JSON Schema input and its HTTP call. */
export function buildAgentTools(endpoints: readonly EndpointInfo[], origin: string) {
  return {
    schemaVersion: "1.0.0",
    baseUrl: origin,
    mcp: origin + "/mcp",
    notes: [
      "Arguments: path and query parameters by name; the JSON request body of POST tools under `body`.",
      "Builders return UNSIGNED transactions: sign locally with your own key; the facilitator never holds buyer keys.",
    ],
    tools: agentToolsOf(endpoints),
  };
}
