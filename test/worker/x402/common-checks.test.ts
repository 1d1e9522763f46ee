import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import type { Config } from "../../../src/platform/config/load-config";
import { CLUSTERS } from "../../../src/platform/config/networks";
import { checkCommonRequirements, loadConfig } from "../../../src/rails/registry";
import type { VerifySettleBody } from "../../../src/x402/schemas";
import { messageOf, reasonOf } from "../../support/rule-results";

/**
 * The scheme-independent checks of /verify and /settle (src/x402/common-checks.ts), one case per rule, with this
 * Worker's real configuration (wrangler.toml and the test bindings, loaded as a request loads them).
 */
const USDC = CLUSTERS.devnet.usdcMint;
let config: Config;
let line: Record<string, unknown>;

beforeAll(async () => {
  config = await loadConfig(env as unknown as Env);
  line = {
    scheme: "exact",
    network: config.network,
    asset: USDC,
    amount: "1000000",
    payTo: (await generateKeyPairSigner()).address,
    maxTimeoutSeconds: 60,
    extra: { feePayer: config.feePayer.address },
  };
});

const body = (required: Record<string, unknown>, accepted: Record<string, unknown> = required) =>
  ({
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted, payload: { transaction: "" } },
    paymentRequirements: required,
  }) as unknown as VerifySettleBody;

describe("common checks of verify and settle", () => {
  it(
    "identical requirements on a served network and an allowed asset pass, with the scheme in wire form and the " +
      "amount as bigint",
    () => {
      expect(checkCommonRequirements(config, body(line))).toMatchObject({
        scheme: "exact",
        amount: 1_000_000n,
        requirements: { scheme: "exact", asset: USDC },
      });
      expect(checkCommonRequirements(config, body({ ...line, scheme: "v2:solana:exact" }))).toMatchObject({
        scheme: "exact",
        requirements: { scheme: "exact" },
      });
    },
  );

  it("an unknown scheme", () => {
    const result = checkCommonRequirements(config, body({ ...line, scheme: "stream" }));
    expect(reasonOf(result)).toBe("unsupported_scheme");
    expect(messageOf(result)).toMatch(/"stream" is not supported/);
  });

  it("requirements that differ from accepted (a payment term, or the scheme)", () => {
    expect(reasonOf(checkCommonRequirements(config, body(line, { ...line, amount: "1" })))).toBe(
      "invalid_payload_requirements_mismatch",
    );
    expect(reasonOf(checkCommonRequirements(config, body(line, { ...line, scheme: "sla-escrow" })))).toBe(
      "invalid_payload_requirements_mismatch",
    );
  });

  it("a network this facilitator does not settle on", () => {
    const mainnet = { ...line, network: CLUSTERS.mainnet.network };
    expect(reasonOf(checkCommonRequirements(config, body(mainnet)))).toBe("invalid_network");
  });

  it("an asset outside the operator's allowlist", async () => {
    const allowlisted = await loadConfig({ ...(env as unknown as Env), SVC_ALLOWED_PAYMENT_MINTS: USDC });
    const other = { ...line, asset: (await generateKeyPairSigner()).address };
    const result = checkCommonRequirements(allowlisted, body(other));
    expect(reasonOf(result)).toBe("asset_not_allowed");
    expect(messageOf(result)).toContain(`Approved assets: ${USDC}`);
    expect(reasonOf(checkCommonRequirements(allowlisted, body(line)))).toBe("accepted");
  });
});
