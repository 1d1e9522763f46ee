import type { KeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../../../../src/chain/token-programs";
import { fundedBuyer } from "../../../support/workerd/chain";
import { TOKEN_PROGRAM } from "../../../support/workerd/craft-payment";
import {
  sellerOrigin,
  setSellerBehaviour,
  signedResourceChallenge,
  verifiedMerchant,
} from "../../../support/workerd/directory-fixtures";
import { USDC } from "../../../support/workerd/payment-fixtures";
import { pr402ResponseProblems } from "../../../support/workerd/pr402-shape";
import { call } from "../../../support/workerd/worker-http";

/**
 * Issue 21 §2, live in workerd (real D1/KV, the local chain, the loopback seller of test/global-setup.ts): pr402's
 * routes we did not serve before, its origin files, its manifest dialect, vault-snapshot scopes and the escrow operator
 * routes mapped onto our keeper.
 */
const BEARER = { Authorization: "Bearer test-operator-token" };

/**
 * What pr402 accepts as a Seller Resource Manifest: the constraints of its public/x402-resources.schema.json and the
 * per-entry checks of its harvester (discovery-indexer/index.mjs: resourceUrl, title, scheme and id present, host =
 * the provider's). Written from those two files; returns the reasons it would refuse or skip something.
 */
function pr402Refusals(manifest: Record<string, any>, origin: string): string[] {
  const problems: string[] = [];
  for (const key of ["schemaVersion", "origin", "merchantWallet", "resources"])
    if (!(key in manifest)) problems.push(`missing ${key}`);
  if (manifest.schemaVersion !== "0.1.0") problems.push("schemaVersion must be 0.1.0");
  if (
    typeof manifest.merchantWallet !== "string" ||
    manifest.merchantWallet.length < 32 ||
    manifest.merchantWallet.length > 64
  )
    problems.push("merchantWallet length");
  if (!Array.isArray(manifest.resources) || manifest.resources.length < 1)
    return [...problems, "resources must be a non-empty array"];
  manifest.resources.forEach((entry: Record<string, any>, i: number) => {
    for (const key of ["id", "title", "method", "resourceUrl", "scheme"])
      if (!(key in entry)) problems.push(`resources[${i}] missing ${key}`);
    if (!["GET", "POST", "PUT", "PATCH", "DELETE"].includes(entry.method)) problems.push(`resources[${i}].method`);
    if (!["exact", "sla-escrow"].includes(entry.scheme)) problems.push(`resources[${i}].scheme`);
    if (String(entry.id ?? "").length > 64 || String(entry.title ?? "").length > 64)
      problems.push(`resources[${i}] id/title length`);
    if (new URL(entry.resourceUrl).host.toLowerCase() !== new URL(origin).host.toLowerCase())
      problems.push(`resources[${i}] host`);
  });
  return problems;
}

describe("pr402's routes and origin files", () => {
  it("GET /payment-required/enrich describes the POST transform", async () => {
    const described = await call("/payment-required/enrich");
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({
      endpoint: "/api/v1/facilitator/payment-required/enrich",
      method: "POST",
      requestExample: { x402Version: 2 },
    });
    expect(pr402ResponseProblems("facilitatorPaymentRequiredEnrichInfo", described.body)).toEqual([]);
  });

  it(
    "serves /seller-endpoint-guide.json, /x402-resources.schema.json, /quickstart-buyer.md and " +
      "/quickstart-seller.md",
    async () => {
      const guide = await call("http://facilitator.test/seller-endpoint-guide.json");
      expect(guide.status).toBe(200);
      expect(guide.body.map((step: { path: string }) => step.path)).toEqual(
        expect.arrayContaining([
          "/api/v1/facilitator/sellers/provision-tx",
          "/api/v1/facilitator/sellers/{wallet}/register",
        ]),
      );
      for (const step of guide.body)
        expect(Object.keys(step)).toEqual(
          expect.arrayContaining(["goal", "method", "path", "sideEffect", "returns", "when"]),
        );
      expect(guide.body).toEqual((await call("/capabilities")).body.sellerEndpointGuide);

      const schema = await call("http://facilitator.test/x402-resources.schema.json");
      expect(schema.status).toBe(200);
      expect(schema.body).toMatchObject({
        $id: "http://facilitator.test/x402-resources.schema.json",
        anyOf: [{ required: ["x402ResourceManifest"] }, { required: ["schemaVersion"] }],
      });
      expect(Object.keys(schema.body.$defs.resource.properties)).toEqual(
        expect.arrayContaining(["id", "method", "sellerResourceId", "httpMethod"]),
      );
      expect((await call("/capabilities")).body.agentManifest.srmSpec).toBe(
        "http://facilitator.test/x402-resources.schema.json",
      );

      for (const path of ["/quickstart-buyer.md", "/quickstart-seller.md"]) {
        const doc = await call(`http://facilitator.test${path}`);
        expect(doc.status, path).toBe(200);
        expect(doc.headers.get("Content-Type")).toContain("text/markdown");
        expect(doc.text).toContain("http://facilitator.test/api/v1/facilitator");
        expect(doc.text).not.toContain("{{");
      }
    },
  );
});

describe("Seller Resource Manifests in both dialects", () => {
  let merchant: KeyPairSigner;
  beforeAll(async () => {
    merchant = await verifiedMerchant(sellerOrigin());
  });
  const harvest = async () =>
    call("/resources/harvest", { method: "POST", json: await signedResourceChallenge(merchant, "resource:register") });

  it(
    "the documented manifest is read by both: pr402's rules accept it, and we import it with its id and " + "method",
    async () => {
      const path = `/both-${crypto.randomUUID().slice(0, 8)}`;
      const guide = (await call("http://facilitator.test/agent-integration.md")).text;
      const documented = JSON.parse(/```json example=manifest\n([\s\S]*?)```/.exec(guide)![1]!);
      const manifest = {
        ...documented,
        origin: sellerOrigin(),
        merchantWallet: merchant.address,
        resources: [
          {
            ...documented.resources[0],
            id: `both-${path.slice(6)}`,
            resourceUrl: `${sellerOrigin()}${path}`,
            network: undefined,
          },
        ],
      };
      expect(pr402Refusals(manifest, sellerOrigin())).toEqual([]);
      await setSellerBehaviour({ manifest });
      const harvested = await harvest();
      expect(harvested.status, JSON.stringify(harvested.body)).toBe(200);
      expect(harvested.body.rejected).toEqual([]);
      const id = harvested.body.imported[0].id;
      expect((await call(`/resources/${id}`)).body.entry).toMatchObject({
        sellerResourceId: manifest.resources[0].id,
        httpMethod: "GET",
        resourceUrl: `${sellerOrigin()}${path}`,
      });
    },
  );

  it(
    "pr402's own dialect (schemaVersion only, id and method) is imported; a conflicting spelling is rejected per " +
      "entry",
    async () => {
      const path = `/pr402-${crypto.randomUUID().slice(0, 8)}`;
      const manifest = {
        schemaVersion: "0.1.0",
        origin: sellerOrigin(),
        merchantWallet: merchant.address,
        resources: [
          { id: "p-1", title: "pr402 style", method: "POST", resourceUrl: `${sellerOrigin()}${path}`, scheme: "exact" },
          {
            id: "p-2",
            title: "conflict",
            method: "GET",
            httpMethod: "POST",
            resourceUrl: `${sellerOrigin()}${path}-2`,
            scheme: "exact",
          },
        ],
      };
      expect(pr402Refusals(manifest, sellerOrigin())).toEqual([]);
      await setSellerBehaviour({ manifest });
      const harvested = await harvest();
      expect(harvested.status, JSON.stringify(harvested.body)).toBe(200);
      expect(harvested.body.imported).toHaveLength(1);
      expect(harvested.body.rejected).toEqual([
        { index: 1, error: expect.stringMatching(/method and httpMethod differ/) },
      ]);
      const owned = await call(`/sellers/${merchant.address}/resources`, {
        method: "POST",
        json: await signedResourceChallenge(merchant, "resource:list"),
      });
      expect(owned.body.entries.find((e: { id: number }) => e.id === harvested.body.imported[0].id)).toMatchObject({
        httpMethod: "POST",
        sellerResourceId: "p-1",
      });
    },
  );

  it(
    "a manifest for another origin, or carrying no version marker, is refused whole (which wallets it names is the " +
      "origin proof's)",
    async () => {
      const entry = { id: "x", title: "x", method: "GET", resourceUrl: `${sellerOrigin()}/x`, scheme: "exact" };
      await setSellerBehaviour({
        manifest: {
          schemaVersion: "0.1.0",
          origin: "https://elsewhere.example",
          merchantWallet: merchant.address,
          resources: [entry],
        },
      });
      const foreign = await harvest();
      expect(foreign.status).toBe(400);
      expect(foreign.body.error).toMatch(/origin https:\/\/elsewhere\.example/);
      await setSellerBehaviour({ manifest: { merchantWallet: merchant.address, resources: [entry] } });
      const unmarked = await harvest();
      expect(unmarked.status).toBe(400);
      expect(unmarked.body.error).toMatch(/x402ResourceManifest|schemaVersion/);
    },
  );
});

describe("/vault-snapshot scope parameters", () => {
  it(
    "spl_balance_scope=owner_wallet reads the seller wallet's balance; amounts are integers; a wrong " +
      "spl_token_program is 400",
    async () => {
      const seller = await fundedBuyer(4_321_000);
      const vault = await call(`/vault-snapshot?wallet=${seller.address}&spl_mint=${USDC}`);
      expect(vault.status, JSON.stringify(vault.body)).toBe(200);
      expect(vault.body).toMatchObject({
        seller: seller.address,
        splBalanceScope: "vault_ata",
        splAmountRaw: 0,
        splAmountRawDecimal: "0",
        spendableLamports: 0,
      });
      expect(pr402ResponseProblems("facilitatorVaultSnapshot", vault.body)).toEqual([]);
      const owner = await call(
        `/vault-snapshot?wallet=${seller.address}&spl_mint=${USDC}&spl_balance_scope=owner_wallet` +
          `&spl_token_program=${TOKEN_PROGRAM}`,
      );
      expect(owner.status, JSON.stringify(owner.body)).toBe(200);
      expect(owner.body).toMatchObject({
        splBalanceScope: "owner_wallet",
        splAmountRaw: 4_321_000,
        splAmountRawDecimal: "4321000",
      });
      // pr402's alias of the same scope.
      expect(
        (
          await call(
            `/vault-snapshot?wallet=${seller.address}&spl_mint=${USDC}&spl_balance_scope=get_token_accounts_by_owner`,
          )
        ).body.splBalanceScope,
      ).toBe("owner_wallet");
      const wrongProgram = await call(
        `/vault-snapshot?wallet=${seller.address}&spl_mint=${USDC}&spl_token_program=${TOKEN_2022_PROGRAM_ADDRESS}`,
      );
      expect(wrongProgram.status).toBe(400);
      expect(wrongProgram.body.error).toMatch(/^spl_token_program/);
      expect((await call(`/vault-snapshot?wallet=${seller.address}&spl_balance_scope=everything`)).status).toBe(400);
    },
  );
});

describe("pr402's escrow operator routes, mapped onto the keeper", () => {
  it("refuse anonymous callers and run one keeper pass with pr402's counters for the operator", async () => {
    for (const [method, path] of [
      ["POST", "/sla-escrow-settle"],
      ["GET", "/sla-escrow-settle-cron"],
      ["POST", "/sla-escrow-close"],
      ["GET", "/sla-escrow-close-cron"],
    ] as const) {
      expect(
        (await call(path, { method, ...(method === "POST" ? { json: { dryRun: true } } : {}) })).status,
        path,
      ).toBe(401);
    }
    const settle = await call("/sla-escrow-settle", {
      method: "POST",
      json: { dryRun: true, limit: 5, lookbackSeconds: 600, candidateSource: "chain_scan" },
      headers: BEARER,
    });
    expect(settle.status, JSON.stringify(settle.body)).toBe(200);
    expect(pr402ResponseProblems("facilitatorSlaEscrowSettle", settle.body)).toEqual([]);
    expect(settle.body).toMatchObject({ dryRun: true, ignored: ["lookbackSeconds", "candidateSource"] });
    expect(settle.body.considered).toBe(settle.body.items.length);
    expect(settle.body.succeeded + settle.body.skipped + settle.body.failed).toBe(settle.body.considered);
    const close = await call("/sla-escrow-close", { method: "POST", json: { dryRun: true }, headers: BEARER });
    expect(close.status).toBe(200);
    expect(pr402ResponseProblems("facilitatorSlaEscrowClose", close.body)).toEqual([]);
    expect((await call("/sla-escrow-settle", { method: "POST", json: { limit: 0 }, headers: BEARER })).status).toBe(
      400,
    );
    expect(
      (await call("/sla-escrow-settle", { method: "POST", json: { candidateSource: "somewhere" }, headers: BEARER }))
        .status,
    ).toBe(400);
  });
});
