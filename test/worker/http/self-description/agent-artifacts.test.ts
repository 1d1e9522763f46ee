import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../../../src/app";
import type { Env } from "../../../../src/env";
import { discoveryRoutes } from "../../../../src/http/routes/discovery";
import { sellerRoutes } from "../../../../src/http/routes/sellers";
import { agentToolsOf, ToolArgumentError, toolRequest } from "../../../../src/http/self-description/agent-tools";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { RAILS } from "../../../../src/rails/registry";
import { call } from "../../../support/workerd/worker-http";

const ORIGIN = "http://facilitator.test";
const USDC = CLUSTERS.devnet.usdcMint;
const NOT_A_MINT = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

async function artifact(path: string, overrides: Record<string, unknown> = {}) {
  const response = await buildApp().request(ORIGIN + path, {}, { ...(env as unknown as Env), ...overrides });
  return { status: response.status, body: (await response.json()) as any };
}

describe("GET /agent-tools.json", () => {
  it("lists the agent tools, each mapped to a documented operation with the same input schemas", async () => {
    const [{ status, body }, openapi] = await Promise.all([
      call(ORIGIN + "/agent-tools.json"),
      call(ORIGIN + "/openapi.json"),
    ]);
    expect(status).toBe(200);
    const names = body.tools.map((t: { name: string }) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        "get_supported",
        "get_capabilities",
        "search_resources",
        "get_resource",
        "build_exact_payment",
        "build_upto_deposit",
        "verify_payment",
        "settle_payment",
        "get_settlement_status",
        "preview_seller",
        "build_seller_provisioning",
      ]),
    );
    for (const tool of body.tools) {
      const operation = openapi.body.paths[tool.http.path]?.[tool.http.method.toLowerCase()];
      expect(operation, tool.name).toBeDefined();
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description.length).toBeGreaterThan(20);
      if (tool.http.body)
        expect(tool.inputSchema.properties.body).toEqual(operation.requestBody.content["application/json"].schema);
      for (const param of operation.parameters ?? [])
        expect(tool.inputSchema.properties[param.name], `${tool.name}.${param.name}`).toEqual(
          param.schema.type === "string" && param.in === "path"
            ? { type: "string", description: `Path parameter ${param.name}` }
            : param.schema,
        );
    }
    const build = body.tools.find((t: { name: string }) => t.name === "build_exact_payment");
    expect(build.http).toMatchObject({
      method: "POST",
      path: "/api/v1/facilitator/build-exact-payment-tx",
      body: true,
    });
    expect(build.inputSchema.required).toEqual(["body"]);
    const upto = body.tools.find((t: { name: string }) => t.name === "build_upto_deposit");
    expect(upto.http).toMatchObject({ method: "POST", path: "/api/v1/facilitator/build-upto-deposit-tx", body: true });
    const preview = body.tools.find((t: { name: string }) => t.name === "preview_seller");
    expect(preview.http.pathParams).toEqual(["wallet"]);
    expect(preview.inputSchema.required).toEqual(["wallet"]);
  });

  it("exposes the escrow payment builder and the fee quote as tools as soon as those routes are served", async () => {
    const [{ body }, capabilities] = await Promise.all([call(ORIGIN + "/agent-tools.json"), call("/capabilities")]);
    const toolPaths = new Set(body.tools.map((t: { http: { path: string } }) => t.http.path));
    for (const key of ["buildSlaEscrowPaymentTx", "buildUptoDepositTx", "feeQuote"]) {
      const endpoint = capabilities.body.httpEndpoints[key];
      if (endpoint) expect(toolPaths.has(endpoint.path), `${key} must carry agentTool in its route entry`).toBe(true);
    }
  });

  it("exposes no operator route and no wallet-signed write to agents", async () => {
    const { body } = await call(ORIGIN + "/agent-tools.json");
    for (const tool of body.tools) expect(tool.auth, tool.name).toBeUndefined();
  });
});

describe("GET /agent-payTo-semantics.json", () => {
  it("describes payTo per scheme and, without an allowlist, the known mints with symbols and decimals", async () => {
    const { status, body } = await call(ORIGIN + "/agent-payTo-semantics.json");
    expect(status).toBe(200);
    expect(Object.keys(body.schemes)).toEqual(["exact", "sla-escrow"]);
    expect(body.mintAllowlist.enforced).toBe(false);
    expect(body.mintAllowlist.mints).toEqual(
      expect.arrayContaining([
        { mint: USDC, symbol: "USDC", decimals: 6, kind: "token" },
        { mint: "11111111111111111111111111111111", symbol: "SOL", decimals: 9, kind: "native-sol" },
      ]),
    );
  });

  it("follows the live allowlist configuration: listed mints only, unknown ones looked up on chain", async () => {
    const { status, body } = await artifact("/agent-payTo-semantics.json", {
      SVC_ALLOWED_PAYMENT_MINTS: `${USDC},${NOT_A_MINT}`,
    });
    expect(status).toBe(200);
    expect(body.mintAllowlist.enforced).toBe(true);
    expect(body.mintAllowlist.mints).toEqual([
      { mint: USDC, symbol: "USDC", decimals: 6, kind: "token" },
      { mint: NOT_A_MINT, symbol: null, decimals: null, kind: "token" },
    ]);
  });
});

describe("toolRequest (the HTTP call of an MCP tool)", () => {
  it("keeps path arguments inside the tool's own route (no climbing to another route with ..)", () => {
    const preview = agentToolsOf([...sellerRoutes(RAILS), ...discoveryRoutes(() => [], RAILS)]).find(
      (t) => t.name === "preview_seller",
    )!;
    for (const wallet of [".", ".."]) expect(() => toolRequest(preview, ORIGIN, { wallet })).toThrow(ToolArgumentError);
    for (const wallet of ["../../sweep", "%2e%2e", "a/b?c#d"]) {
      const request = toolRequest(preview, ORIGIN, { wallet });
      const path = new URL(request.url).pathname;
      expect(path.startsWith("/api/v1/facilitator/sellers/"), path).toBe(true);
      expect(path.endsWith("/preview"), path).toBe(true);
      expect(new URL(request.url).search).toBe("");
    }
  });
});
