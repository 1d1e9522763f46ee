import { describe, expect, it } from "vitest";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

describe("GET /health", () => {
  it("reports a live, advancing slot from the local chain and a connected database", async () => {
    const first = await call("/health");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: "ok",
      schemaVersion: "1.2.0",
      database: "connected",
      solanaRpc: "connected",
      environment: "local",
      solanaNetwork: "devnet",
    });
    expect(typeof first.body.solanaSlot).toBe("number");
    await new Promise((r) => setTimeout(r, 1_000));
    const second = await call("/health");
    expect(second.body.solanaSlot).toBeGreaterThan(first.body.solanaSlot);
  });

  it("says whether each configured program and its program-wide accounts were found and decoded", async () => {
    const { body } = await call("/health");
    expect(body.programs).toMatchObject({
      ok: true,
      universalSettle: {
        programId: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
        found: true,
        accounts: { config: { found: true, decoded: true } },
      },
      slaEscrow: {
        programId: "s5zkKiy8FD9nFdAhQZoHHV3G8s4QCPzE4cR9U4Hr4ZH",
        found: true,
        accounts: { bank: { found: true, decoded: true }, config: { found: true, decoded: true } },
      },
    });
  });

  it("a configured program id with no program behind it turns /health to a warning that names it", async () => {
    // the mainnet id: nothing there on this (devnet-like) chain
    const wrong = "SEscZ6n23pVak34xipBKoGCikHUj3w6XPNyty4rHprJ";
    const { status, body } = await callWithEnv({ SLA_ESCROW_PROGRAM_ID: wrong }, "/health");
    expect(status).toBe(200);
    expect(body.status).toBe("warning");
    expect(body.programs.ok).toBe(false);
    expect(body.programs.slaEscrow).toMatchObject({
      programId: wrong,
      found: false,
      accounts: { bank: { found: false, decoded: false } },
    });
    expect(body.programs.universalSettle).toMatchObject({ found: true });
  });

  it("shows the wallet RPC URL without credentials", async () => {
    const { body } = await call("/health");
    expect(body.solanaWalletRpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/);
  });
});

describe("GET /supported", () => {
  it("has the x402 shape with the fee payer as signer of the network", async () => {
    const { status, body } = await call("/supported");
    expect(status).toBe(200);
    expect(Array.isArray(body.kinds)).toBe(true);
    expect(body.extensions).toEqual(["bazaar", "payment-identifier"]);
    expect(body.signers).toEqual({ [DEVNET]: [TEST_FEE_PAYER.address] });
    for (const kind of body.kinds) {
      expect(kind).toMatchObject({ x402Version: 2, network: DEVNET });
      expect(["exact", "sla-escrow", "upto"]).toContain(kind.scheme);
    }
  });
});

describe("GET /capabilities", () => {
  it("carries every key of wire-notes, consistent with /supported and the mounted routes", async () => {
    const [{ body }, supported] = await Promise.all([call("/capabilities"), call("/supported")]);
    for (const key of [
      "schemaVersion",
      "x402Version",
      "name",
      "chainId",
      "feePayer",
      "supported",
      "features",
      "httpEndpoints",
      "agentManifest",
      "sellerEndpointGuide",
    ]) {
      expect(body, key).toHaveProperty(key);
    }
    expect(body.x402Version).toBe(2);
    expect(body.chainId).toBe(DEVNET);
    expect(body.feePayer).toBe(TEST_FEE_PAYER.address);
    expect(body.supported).toEqual(supported.body);
    for (const flag of [
      "universalSettleExact",
      "unsignedExactPaymentTxBuild",
      "slaEscrow",
      "unsignedSlaEscrowPaymentTxBuild",
      "publicResourceDirectory",
    ]) {
      expect(typeof body.features[flag], flag).toBe("boolean");
    }
    // A flag is on only when its scheme is in /supported.
    const schemes = new Set(supported.body.kinds.map((k: { scheme: string }) => k.scheme));
    expect(body.features.universalSettleExact).toBe(schemes.has("exact"));
    expect(body.features.slaEscrow).toBe(schemes.has("sla-escrow"));
    expect(body.httpEndpoints.health).toEqual({ method: "GET", path: "/api/v1/facilitator/health" });
    expect(body.agentManifest.openApi).toBe("http://facilitator.test/openapi.json");
  });

  it("advertises only endpoints that answer (no 404 behind any listed GET without parameters)", async () => {
    const { body } = await call("/capabilities");
    for (const [key, endpoint] of Object.entries<{ method: string; path: string }>(body.httpEndpoints)) {
      if (endpoint.method !== "GET" || endpoint.path.includes("{")) continue;
      const response = await call("http://facilitator.test" + endpoint.path);
      expect(response.status, key).not.toBe(404);
    }
    for (const [key, url] of Object.entries<string>(body.agentManifest)) {
      const response = await call(url.split("#")[0]!);
      expect(response.status, key).toBe(200);
    }
  });

  it("is also served at the origin root and API root with the service-desc Link", async () => {
    for (const path of ["http://facilitator.test/", "http://facilitator.test/api/v1/facilitator"]) {
      const response = await call(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("Link")).toBe('</openapi.json>; rel="service-desc"');
      expect(response.body.x402Version).toBe(2);
    }
  });
});

describe("served artifacts", () => {
  it("serves an OpenAPI 3.1 document listing every endpoint", async () => {
    const [{ body: openapi }, { body: caps }] = await Promise.all([
      call("http://facilitator.test/openapi.json"),
      call("/capabilities"),
    ]);
    expect(openapi.openapi).toBe("3.1.0");
    expect(openapi.info.version).toBe("1.1.0");
    for (const endpoint of Object.values<{ method: string; path: string }>(caps.httpEndpoints)) {
      expect(openapi.paths[endpoint.path]?.[endpoint.method.toLowerCase()], endpoint.path).toBeDefined();
    }
  });

  it("documents request bodies and query parameters from the validating schemas", async () => {
    const { body: openapi } = await call("http://facilitator.test/openapi.json");
    const build = openapi.paths["/api/v1/facilitator/build-exact-payment-tx"].post;
    const buildSchema = build.requestBody.content["application/json"].schema;
    expect(buildSchema.type).toBe("object");
    expect(buildSchema.required).toContain("payer");
    expect(buildSchema.properties.accepted.properties.amount.pattern).toBe("^\\d{1,20}$");
    const challenge = openapi.paths["/api/v1/facilitator/sellers/{wallet}/challenge"].get;
    expect(challenge.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(["path:wallet", "query:action"]),
    );
  });

  it("serves the agent docs as markdown and the payTo semantics as JSON", async () => {
    const guide = await call("http://facilitator.test/agent-integration.md");
    expect(guide.status).toBe(200);
    expect(guide.headers.get("Content-Type")).toContain("text/markdown");
    expect(guide.text).toContain("PAYMENT-SIGNATURE");
    const semantics = await call("http://facilitator.test/agent-payTo-semantics.json");
    expect(semantics.body.nativeSolAllowlistAddress).toBe("11111111111111111111111111111111");
    expect(semantics.body.programs.universalSettle).toBe("u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf");
  });
});

describe("exact in discovery", () => {
  it("lists the exact kind with every extra key of wire-notes, read from the on-chain Config", async () => {
    const { body } = await call("/supported");
    const exact = body.kinds.find((k: { scheme: string }) => k.scheme === "exact");
    expect(body.kinds[0].scheme).toBe("exact");
    expect(exact.extra).toEqual({
      feePayer: TEST_FEE_PAYER.address,
      programId: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
      configAddress: expect.any(String),
      feeBps: "100",
      minFeeAmount: expect.stringMatching(/^\d+$/),
      minFeeAmountSol: expect.stringMatching(/^\d+$/),
      maxComputeUnitLimit: "200000",
      recommendedComputeUnitPrice: "1",
      merchantWallet: null,
      beneficiary: null,
      payToForms: ["vault", "wallet"],
      // The fee a seller that activated its own vault pays: the Config's discounted fee.
      sovereignFeeBps: "90",
      // Smart-wallet buyers are verified by outcome unless the operator turns it off (SVC_EXACT_SMART_WALLETS).
      features: { smartWalletSupported: true },
      // The sponsorship policy a client can read before paying (docs/money-rules.md), at the defaults.
      sponsorship: {
        failedPaymentsPerBuyerPerDay: "3",
        maxComputeUnitPrice: "50000",
        maxPriorityFeeLamports: "10000",
        perBuyerPerDayLamports: "30000000",
        perPayToPerDayLamports: "50000000",
        perProvenSellerPerDayLamports: "500000000",
      },
    });
    const caps = await call("/capabilities");
    expect(caps.body.features.universalSettleExact).toBe(true);
    expect(caps.body.features.unsignedExactPaymentTxBuild).toBe(true);
    expect(caps.body.httpEndpoints.settle).toEqual({ method: "POST", path: "/api/v1/facilitator/settle" });
  });
});
