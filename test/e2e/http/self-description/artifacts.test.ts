/**
 * The served artifacts checked from outside, over real HTTP against the Worker in wrangler/workerd (the OpenAPI
 * validator needs Node: it compiles JSON Schemas with code generation, which workerd forbids).
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner } from "@solana/kit";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { activateSellerVault } from "../../../../demo/activate-seller";
import { signAtIndex } from "../../../../demo/build-endpoint-buyer";
import { fundFromFaucet, signatureStatus } from "../../../../demo/chain-rpc";
import { ManifestSchema } from "../../../../src/directory/resources/manifest";
import { CapabilitiesResponseSchema, SupportedResponseSchema } from "../../../../src/http/routes/discovery-responses";
import { SettleResponseSchema } from "../../../../src/http/routes/payments-responses";
import { ResourceSearchResponseSchema } from "../../../../src/http/routes/resources-responses";
import { SellerPreviewResponseSchema } from "../../../../src/http/routes/sellers-responses";
import { SettlementStatusResponseSchema } from "../../../../src/http/routes/settlements-responses";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { ExactBuildResponseSchema } from "../../../../src/rails/exact/routes/responses";
import { withLocalWorker } from "../../../support/node/local-worker";
import { curlToRequest, guideExamples } from "../../docs/guide-examples";

const local = withLocalWorker({ feePayerLamports: 100_000_000_000 });
const DEVNET = CLUSTERS.devnet.network;
const USDC = CLUSTERS.devnet.usdcMint;

describe("/openapi.json", () => {
  it("passes an OpenAPI 3.1 schema validator", async () => {
    const doc = (await (await fetch(`${local.worker.url}/openapi.json`)).json()) as any;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.servers).toEqual([{ url: local.worker.url }]);
  });

  it("a validator that is not vacuous: a broken description is rejected", async () => {
    const doc = (await (await fetch(`${local.worker.url}/openapi.json`)).json()) as any;
    const broken = structuredClone(doc);
    broken.paths["/api/v1/facilitator/verify"].post.responses = "none";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

/** An MCP client from the official SDK, connected to the Worker's /mcp over Streamable HTTP. */
async function mcpClient(): Promise<Client> {
  const client = new Client({ name: "artifacts-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${local.worker.url}/mcp`)));
  return client;
}

/** Calls an MCP tool and returns the mapped route's status and JSON body. */
async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const structured = result.structuredContent as { status: number; body: any };
  expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(structured);
  expect(result.isError).toBe(structured.status >= 400);
  return structured;
}

describe("/mcp with the official MCP SDK client", () => {
  it("lists exactly the tools of /agent-tools.json, with the same input schemas", async () => {
    const client = await mcpClient();
    try {
      const { tools } = await client.listTools();
      const catalog = (await (await fetch(`${local.worker.url}/agent-tools.json`)).json()) as any;
      expect(tools.map((t) => t.name).sort()).toEqual(catalog.tools.map((t: { name: string }) => t.name).sort());
      for (const tool of tools) {
        const entry = catalog.tools.find((t: { name: string }) => t.name === tool.name);
        expect(tool.inputSchema, tool.name).toEqual(entry.inputSchema);
        expect(tool.description).toBe(entry.description);
      }
    } finally {
      await client.close();
    }
  });

  it("discovery and search tools answer what the HTTP routes answer, in the documented shapes", async () => {
    const client = await mcpClient();
    try {
      const supported = await callTool(client, "get_supported", {});
      expect(supported.status).toBe(200);
      v.parse(SupportedResponseSchema, supported.body);
      expect(supported.body).toEqual(await (await fetch(`${local.api}/supported`)).json());
      const capabilities = await callTool(client, "get_capabilities", {});
      v.parse(CapabilitiesResponseSchema, capabilities.body);
      expect(capabilities.body.mcp).toMatchObject({ url: `${local.worker.url}/mcp`, transport: "streamable-http" });
      const search = await callTool(client, "search_resources", { q: "weather" });
      expect(search.status).toBe(200);
      v.parse(ResourceSearchResponseSchema, search.body);
      const missing = await callTool(client, "get_resource", { id: "999999" });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: "NOT_FOUND" });
      const bad = await callTool(client, "preview_seller", { wallet: "not-a-wallet" });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: "BAD_REQUEST" });
      const climbing = await client.callTool({ name: "preview_seller", arguments: { wallet: ".." } });
      expect(climbing.isError).toBe(true);
      expect(climbing.structuredContent).toMatchObject({
        status: 400,
        body: { code: "BAD_REQUEST", reason: "invalid_request" },
      });
      // An unknown tool is a JSON-RPC error (-32602), the catalogue's body in error.data (docs/wire-notes.md "MCP
      // errors").
      await expect(client.callTool({ name: "drain_fee_payer", arguments: {} })).rejects.toMatchObject({
        code: -32602,
        data: { code: "NOT_FOUND", reason: "not_found" },
      });
    } finally {
      await client.close();
    }
  });

  it(
    "builds an exact payment, the test signs it, and settles it through the MCP settle tool on the local " + "chain",
    async () => {
      const seller = await generateKeyPairSigner();
      await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000);
      await activateSellerVault({ facilitatorApi: local.api, rpcUrl: local.chain.url, seller, asset: "USDC" });
      const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
      await fundFromFaucet(local.chain.url, buyer.address, 1_000_000_000, 1_000_000);
      // The seller's 402 line, enriched as a seller would.
      const enriched = (await (
        await fetch(`${local.api}/payment-required/enrich`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            x402Version: 2,
            resource: { url: "https://seller.example/report", description: "report", mimeType: "application/json" },
            accepts: [
              {
                scheme: "exact",
                network: DEVNET,
                asset: USDC,
                amount: "250000",
                payTo: seller.address,
                maxTimeoutSeconds: 60,
                extra: {},
              },
            ],
          }),
        })
      ).json()) as any;
      const accepted = enriched.accepts[0];

      const client = await mcpClient();
      try {
        const preview = await callTool(client, "preview_seller", { wallet: seller.address });
        v.parse(SellerPreviewResponseSchema, preview.body);
        expect(preview.body.lifecycle.activated).toBe(true);

        const built = await callTool(client, "build_exact_payment", {
          body: { payer: buyer.address, accepted, resource: enriched.resource },
        });
        expect(built.status).toBe(200);
        v.parse(ExactBuildResponseSchema, built.body);
        const template = built.body.verifyBodyTemplate;
        template.paymentPayload.payload.transaction = await signAtIndex(
          built.body.transaction,
          built.body.payerSignatureIndex,
          buyer,
        );

        const unsignedSettle = await callTool(client, "settle_payment", {
          body: {
            ...built.body.verifyBodyTemplate,
            paymentPayload: { ...template.paymentPayload, payload: { transaction: built.body.transaction } },
          },
        });
        expect(unsignedSettle.status).toBe(400);
        expect(unsignedSettle.body.success).toBe(false);

        const verified = await callTool(client, "verify_payment", { body: template });
        expect(verified.body).toMatchObject({ isValid: true, payer: buyer.address });

        const settled = await callTool(client, "settle_payment", { body: template });
        expect(settled.status).toBe(200);
        v.parse(SettleResponseSchema, settled.body);
        expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
        expect((await signatureStatus(local.chain.url, settled.body.transaction))?.err ?? null).toBeNull();

        const again = await callTool(client, "settle_payment", { body: template });
        // A replay without the seller's retry key (X-Correlation-ID) is refused, never settled twice.
        expect(again.status).toBeGreaterThanOrEqual(400);
        expect(again.body).toMatchObject({ success: false });
        expect(typeof again.body.errorReason).toBe("string");

        const status = await callTool(client, "get_settlement_status", { signature: settled.body.transaction });
        expect(status.status).toBe(200);
        v.parse(SettlementStatusResponseSchema, status.body);
        expect(status.body).toMatchObject({ state: "confirmed", payer: buyer.address, amount: "250000" });
      } finally {
        await client.close();
      }
    },
  );

  it("refuses GET and DELETE (stateless endpoint) with a catalogue error", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${local.worker.url}/mcp`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
      expect(await response.json()).toMatchObject({ code: "METHOD_NOT_ALLOWED" });
    }
  });
});

describe("the guides' examples, executed against this deployment", () => {
  const GUIDES = ["/agent-integration.md", "/seller-quick-start.md", "/onboarding_guide.md"];

  it.each(GUIDES)("%s: every tagged example answers its documented status and shape", async (guide) => {
    const response = await fetch(`${local.worker.url}${guide}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain("{{");
    expect(text).toContain(`${local.worker.url}/api/v1/facilitator`);
    const seller = await generateKeyPairSigner();
    await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000);
    const placeholders: Record<string, string> = {
      "<YOUR_WALLET>": seller.address,
      // 64 bytes no transaction of this chain has: the documented 404.
      "<SIGNATURE>": "5".repeat(88),
    };
    const examples = guideExamples(text);
    expect(examples.length, "tagged examples").toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      if (example.kind === "json") {
        expect(example.name).toBe("manifest");
        const parsed = v.safeParse(ManifestSchema, JSON.parse(example.text));
        expect(parsed.issues ?? [], "Seller Resource Manifest example").toEqual([]);
        continue;
      }
      const command = Object.entries(placeholders).reduce((cmd, [k, val]) => cmd.replaceAll(k, val), example.command);
      const { url, init } = curlToRequest(command);
      expect(`${url} ${String(init.body ?? "")}`, "an unfilled placeholder").not.toMatch(/<[A-Z_]+>/);
      expect(url.startsWith(local.worker.url), url).toBe(true);
      const answer = await fetch(url, init);
      const body = (await answer.json()) as Record<string, unknown>;
      expect(answer.status, `${command}\n${JSON.stringify(body).slice(0, 300)}`).toBe(example.status);
      for (const key of example.keys) expect(body, `${command}: ${key}`).toHaveProperty(key);
    }
  });

  it("the example runner is not vacuous: a drifted example fails", async () => {
    const drifted = guideExamples(
      "```sh example status=200 keys=kinds\ncurl -s " + local.worker.url + "/api/v1/facilitator/no-such-route\n```\n",
    );
    expect(drifted).toHaveLength(1);
    const example = drifted[0]!;
    if (example.kind !== "curl") throw new Error("expected a curl example");
    const { url, init } = curlToRequest(example.command);
    expect((await fetch(url, init)).status).not.toBe(example.status);
  });
});
