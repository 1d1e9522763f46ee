import { env } from "cloudflare:test";
import type { KeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import { FREE_PLAN_MANIFEST_ENTRIES } from "../../../../src/platform/config/workers-plan";
import {
  sellerOrigin,
  setSellerBehaviour,
  signedResourceChallenge,
  verifiedMerchant,
} from "../../../support/workerd/directory-fixtures";
import { fundedSeller } from "../../../support/workerd/seller-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

let merchant: KeyPairSigner;

beforeAll(async () => {
  merchant = await verifiedMerchant(sellerOrigin());
});

async function register(resource: Record<string, unknown>, signer = merchant) {
  return call("/resources/register", {
    method: "POST",
    json: { ...(await signedResourceChallenge(signer, "resource:register")), resource },
  });
}

async function probe(id: number) {
  return call("/resources/probe", {
    method: "POST",
    json: { ...(await signedResourceChallenge(merchant, "resource:probe")), id },
  });
}

describe("resource registry and the listing gates", () => {
  it("register answers listingOptIn as a JSON boolean, as every other view of the resource does", async () => {
    for (const listingOptIn of [true, false]) {
      const path = `/opt-${listingOptIn}-${crypto.randomUUID().slice(0, 8)}`;
      const registered = await register({
        resourceUrl: `${sellerOrigin()}${path}`,
        title: "Opt-in as a boolean",
        scheme: "exact",
        listingOptIn,
      });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      expect(registered.text).toContain(`"listingOptIn":${listingOptIn}`);
      expect(registered.body.listingOptIn).toBe(listingOptIn);
      if (listingOptIn) expect((await call(`/resources/${registered.body.id}`)).body.listingOptIn).toBe(true);
    }
  });

  it("register → probed 402 → listed and searchable → answers 200 → unlisted at once (gate 4) → 404", async () => {
    const path = `/weather-${crypto.randomUUID().slice(0, 8)}`;
    const word = `zephyr${Date.now()}`;
    const registered = await register({
      resourceUrl: `${sellerOrigin()}${path}`,
      title: `Forecast ${word}`,
      scheme: "exact",
      category: "weather",
      tags: ["forecast"],
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.probe).toEqual({ ok: true, httpStatus: 402, scheme: "exact", error: null });
    const id = registered.body.id as number;

    const byId = await call(`/resources/${id}`);
    expect(byId.status, JSON.stringify(byId.body)).toBe(200);
    expect(byId.body).toMatchObject({
      id,
      walletPubkey: merchant.address,
      resourceUrl: `${sellerOrigin()}${path}`,
      httpMethod: "GET",
      lastProbeOk: true,
      listingOptIn: true,
      category: "weather",
    });
    const found = await call(`/resources?q=${word}`);
    expect(found.body.entries.map((e: { id: number }) => e.id)).toEqual([id]);

    // Re-registering the same URL updates the row instead of adding one.
    const again = await register({
      resourceUrl: `${sellerOrigin()}${path}`,
      title: `Forecast ${word} v2`,
      scheme: "exact",
      category: "weather",
    });
    expect(again.body.id).toBe(id);
    expect((await call(`/resources/${id}`)).body.title).toBe(`Forecast ${word} v2`);

    // Issue 22 §2: a definite answer other than a valid 402 is no longer payable: unlisted at once (only
    // transport failures are tolerated, see probe-gate.test.ts).
    await setSellerBehaviour({ path, mode: "200" });
    const first = await probe(id);
    expect(first.body).toMatchObject({ ok: false, httpStatus: 200, listed: false });
    expect((await call(`/resources/${id}`)).status).toBe(404);
    expect((await call(`/resources?q=${word}`)).body.entries).toEqual([]);

    // Passing again lists it again.
    await setSellerBehaviour({ path, mode: "402" });
    expect((await probe(id)).body).toMatchObject({ ok: true, listed: true });
    expect((await call(`/resources/${id}`)).status).toBe(200);

    const owner = await call(`/sellers/${merchant.address}/resources`, {
      method: "POST",
      json: await signedResourceChallenge(merchant, "resource:list"),
    });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(owner.body.entries.find((e: { id: number }) => e.id === id)).toMatchObject({
      listed: true,
      consecutiveProbeFailures: 0,
      lastProbeStatus: 402,
    });

    const retired = await call("/resources/retire", {
      method: "POST",
      json: { ...(await signedResourceChallenge(merchant, "resource:retire")), id },
    });
    expect(retired.body).toMatchObject({ id, retired: true });
    expect((await call(`/resources/${id}`)).status).toBe(404);
  });

  it("refuses a replayed challenge, an unverified wallet (403) and a URL off the merchant's origin (400)", async () => {
    const signed = await signedResourceChallenge(merchant, "resource:register");
    const resource = {
      resourceUrl: `${sellerOrigin()}/replay-${crypto.randomUUID().slice(0, 8)}`,
      title: "Replay",
      scheme: "exact",
    };
    expect((await call("/resources/register", { method: "POST", json: { ...signed, resource } })).status).toBe(200);
    const replay = await call("/resources/register", { method: "POST", json: { ...signed, resource } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatch(/already used/);

    const offOrigin = await register({ resourceUrl: "https://elsewhere.example/x", title: "X", scheme: "exact" });
    expect(offOrigin.status).toBe(400);
    expect(offOrigin.body.error).toMatch(/merchant's origin/);

    const stranger = await fundedSeller();
    const unverified = await register({ resourceUrl: `${sellerOrigin()}/x`, title: "X", scheme: "exact" }, stranger);
    expect(unverified.status).toBe(403);

    const wrongAction = await call("/resources/register", {
      method: "POST",
      json: { ...(await signedResourceChallenge(merchant, "resource:probe")), resource },
    });
    expect(wrongAction.status).toBe(401);
  });

  it(
    "keeps a probed 402's bazaar extension and serves it through /discovery/resources; /supported advertises " +
      "bazaar",
    async () => {
      const path = `/bazaar-${crypto.randomUUID().slice(0, 8)}`;
      const bazaar = {
        info: { input: { type: "http", method: "GET" }, output: { type: "json" } },
        schema: { type: "object" },
      };
      await setSellerBehaviour({ path, mode: "402-header", bazaar });
      const registered = await register({
        resourceUrl: `${sellerOrigin()}${path}`,
        title: "Bazaar item",
        scheme: "exact",
      });
      expect(registered.body.probe.ok, JSON.stringify(registered.body)).toBe(true);
      let item: any;
      for (let offset = 0; item === undefined; offset += 100) {
        const page = await call(`/discovery/resources?type=http&limit=100&offset=${offset}`);
        expect(page.status).toBe(200);
        expect(page.body.x402Version).toBe(2);
        item = page.body.items.find((i: { resource: string }) => i.resource === `${sellerOrigin()}${path}`);
        if (page.body.items.length < 100) break;
      }
      expect(item).toMatchObject({ type: "http", x402Version: 2, metadata: { bazaar, id: registered.body.id } });
      expect(item.accepts[0]).toMatchObject({ scheme: "exact", amount: "1000" });
      expect((await call("/supported")).body.extensions).toContain("bazaar");
    },
  );

  it("harvests the Seller Resource Manifest on demand; entries off the origin are rejected", async () => {
    const path = `/srm-${crypto.randomUUID().slice(0, 8)}`;
    await setSellerBehaviour({
      manifest: {
        x402ResourceManifest: 1,
        resources: [
          { resourceUrl: `${sellerOrigin()}${path}`, title: "From the manifest", scheme: "exact", tags: ["srm"] },
          { resourceUrl: "https://other.example/a", title: "Foreign", scheme: "exact" },
          { title: "no url" },
        ],
      },
    });
    const harvested = await call("/resources/harvest", {
      method: "POST",
      json: await signedResourceChallenge(merchant, "resource:register"),
    });
    expect(harvested.status, JSON.stringify(harvested.body)).toBe(200);
    expect(harvested.body.imported).toHaveLength(1);
    expect(harvested.body.imported[0]).toMatchObject({
      resourceUrl: `${sellerOrigin()}${path}`,
      probed: true,
      ok: true,
    });
    expect(harvested.body.rejected.map((r: { index: number }) => r.index)).toEqual([1, 2]);
    expect((await call(`/resources/${harvested.body.imported[0].id}`)).status).toBe(200);
  });

  it(
    "on Workers Free (SVC_WORKERS_PLAN=free) one harvest imports at most FREE_PLAN_MANIFEST_ENTRIES entries, so it " +
      "fits an invocation",
    async () => {
      const tag = crypto.randomUUID().slice(0, 8);
      const entries = Array.from({ length: FREE_PLAN_MANIFEST_ENTRIES + 2 }, (_, i) => ({
        resourceUrl: `${sellerOrigin()}/free-${tag}-${i}`,
        title: `Free ${i}`,
        scheme: "exact",
      }));
      await setSellerBehaviour({ manifest: { x402ResourceManifest: 1, resources: entries } });
      const harvested = await callWithEnv({ SVC_WORKERS_PLAN: "free" }, "/resources/harvest", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(await signedResourceChallenge(merchant, "resource:register")),
      });
      expect(harvested.status, JSON.stringify(harvested.body)).toBe(200);
      expect(harvested.body.imported).toHaveLength(FREE_PLAN_MANIFEST_ENTRIES);
      expect(harvested.body.rejected).toEqual(
        [FREE_PLAN_MANIFEST_ENTRIES, FREE_PLAN_MANIFEST_ENTRIES + 1].map((index) => ({
          index,
          error: expect.stringContaining(`beyond the ${FREE_PLAN_MANIFEST_ENTRIES} entries`),
        })),
      );
    },
  );

  it("serves /dist/resource-index.json with caching headers, never with an unlisted resource", async () => {
    const path = `/index-${crypto.randomUUID().slice(0, 8)}`;
    const registered = await register({ resourceUrl: `${sellerOrigin()}${path}`, title: "Indexed", scheme: "exact" });
    const id = registered.body.id as number;
    const { runProbeJob } = await import("../../../../src/directory/resources/probe-run");
    const { getConfig } = await import("../../../../src/rails/registry");
    const config = await getConfig(env as never);
    await runProbeJob({ ...config, probe: { ...config.probe, cronBatchLimit: 1 } }, env as never);
    const index = await call("http://facilitator.test/dist/resource-index.json");
    expect(index.status).toBe(200);
    expect(index.headers.get("Cache-Control")).toMatch(/max-age=\d+/);
    expect(index.body.entries.some((e: { id: number }) => e.id === id)).toBe(true);

    // Retired after the snapshot: the served index drops it although KV still holds the old snapshot.
    await call("/resources/retire", {
      method: "POST",
      json: { ...(await signedResourceChallenge(merchant, "resource:retire")), id },
    });
    const after = await call("http://facilitator.test/dist/resource-index.json");
    expect(after.body.entries.some((e: { id: number }) => e.id === id)).toBe(false);
  });
});
