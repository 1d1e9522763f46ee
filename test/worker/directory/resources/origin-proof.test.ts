import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runProbeJob } from "../../../../src/directory/resources/probe-run";
import type { Env } from "../../../../src/env";
import { getConfig } from "../../../../src/rails/registry";
import {
  requestsSeenBySeller,
  sellerOrigin,
  setSellerBehaviour,
  signedResourceChallenge,
  verifiedMerchant,
} from "../../../support/workerd/directory-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * Issue 22 §1: the probe only knocks on doors the seller owns. The origin proves it by naming the seller's wallet in
 * its Seller Resource Manifest; the loopback seller (test/support/node/directory-seller.ts) records every request it
 * gets, so these tests see exactly what reached the origin.
 */
const workerEnv = env as unknown as Env;
const register = async (merchant: Awaited<ReturnType<typeof verifiedMerchant>>, resource: Record<string, unknown>) =>
  call("/resources/register", {
    method: "POST",
    json: { ...(await signedResourceChallenge(merchant, "resource:register")), resource },
  });

describe("origin proof before anything is probed or listed", () => {
  it(
    "an unproven origin gets no DELETE, PUT or POST: registration is refused before anything is stored or " + "sent",
    async () => {
      const merchant = await verifiedMerchant(sellerOrigin(), { proveOrigin: false });
      const path = `/api/users-${crypto.randomUUID().slice(0, 8)}/0`;
      for (const httpMethod of ["DELETE", "PUT", "POST", "GET"]) {
        const answer = await register(merchant, {
          resourceUrl: `${sellerOrigin()}${path}`,
          httpMethod,
          title: "Not mine",
          scheme: "exact",
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(403);
        expect(answer.body).toMatchObject({ code: "FORBIDDEN", reason: "origin_not_proven" });
        expect(answer.body.error).toContain("/.well-known/x402-resources.json");
      }
      expect(await requestsSeenBySeller(path)).toEqual([]);
      const owned = await call(`/sellers/${merchant.address}/resources`, {
        method: "POST",
        json: await signedResourceChallenge(merchant, "resource:list"),
      });
      expect(owned.body.entries).toEqual([]);
      // The one request the origin saw for this wallet is the GET of its manifest, with our User-Agent.
      const manifestRequests = await requestsSeenBySeller("/.well-known/x402-resources.json");
      expect(manifestRequests.length).toBeGreaterThan(0);
      expect(
        manifestRequests.every((r) => r.method === "GET" && r.userAgent?.startsWith("x402-solana-facilitator-probe/")),
      ).toBe(true);
    },
  );

  it("a proven origin is probed with the resource's own method, no body and our User-Agent", async () => {
    const merchant = await verifiedMerchant(sellerOrigin());
    const path = `/paid-delete-${crypto.randomUUID().slice(0, 8)}`;
    const answer = await register(merchant, {
      resourceUrl: `${sellerOrigin()}${path}`,
      httpMethod: "DELETE",
      title: "Paid delete",
      scheme: "exact",
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.probe.ok).toBe(true);
    const seen = await requestsSeenBySeller(path);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: "DELETE", bodyBytes: 0 });
    expect(seen[0]!.contentLength ?? "0").toBe("0");
    expect(seen[0]!.userAgent).toMatch(/^x402-solana-facilitator-probe\/1 /);
  });

  it(
    "a proof that disappears is caught by the cron harvest: resources unlisted, nothing on the origin probed " +
      "again",
    async () => {
      const merchant = await verifiedMerchant(sellerOrigin());
      const path = `/revoked-${crypto.randomUUID().slice(0, 8)}`;
      const registered = await register(merchant, {
        resourceUrl: `${sellerOrigin()}${path}`,
        httpMethod: "POST",
        title: "Revoked later",
        scheme: "exact",
      });
      expect(registered.body.probe.ok, JSON.stringify(registered.body)).toBe(true);
      const id = registered.body.id as number;
      expect((await call(`/resources/${id}`)).status).toBe(200);

      await setSellerBehaviour({ unproveWallet: merchant.address });
      // Only this merchant is due for a harvest, and its resource is due for a probe.
      await env.DB.prepare(
        "INSERT OR REPLACE INTO manifest_harvests (wallet_pubkey, last_harvest_at_ms) SELECT wallet_pubkey, " +
          "4102444800000 FROM providers WHERE wallet_pubkey <> ?",
      )
        .bind(merchant.address)
        .run();
      await env.DB.prepare("DELETE FROM manifest_harvests WHERE wallet_pubkey = ?").bind(merchant.address).run();
      const before = (await requestsSeenBySeller(path)).length;
      await runProbeJob(await getConfig(workerEnv), workerEnv, Date.now() + 3_600_000);
      const harvest = await env.DB.prepare("SELECT last_error AS error FROM manifest_harvests WHERE wallet_pubkey = ?")
        .bind(merchant.address)
        .first<{ error: string }>();
      expect(harvest!.error).toContain("has not proven");
      expect((await call(`/resources/${id}`)).status).toBe(404);
      expect((await requestsSeenBySeller(path)).length).toBe(before);

      // The seller's own probe is refused too (the proof is fetched again and still missing): no request to the
      // resource.
      const probe = await call("/resources/probe", {
        method: "POST",
        json: { ...(await signedResourceChallenge(merchant, "resource:probe")), id },
      });
      expect(probe.status).toBe(403);
      expect((await requestsSeenBySeller(path)).length).toBe(before);

      // Proving the origin again restores it.
      await setSellerBehaviour({ proveWallet: merchant.address });
      const again = await call("/resources/probe", {
        method: "POST",
        json: { ...(await signedResourceChallenge(merchant, "resource:probe")), id },
      });
      expect(again.body).toMatchObject({ ok: true, listed: true });
    },
  );

  it("a manifest harvest needs the proof too: a manifest that does not name the wallet imports nothing", async () => {
    const merchant = await verifiedMerchant(sellerOrigin(), { proveOrigin: false });
    const path = `/srm-unproven-${crypto.randomUUID().slice(0, 8)}`;
    await setSellerBehaviour({
      manifest: {
        x402ResourceManifest: 1,
        resources: [
          { resourceUrl: `${sellerOrigin()}${path}`, httpMethod: "DELETE", title: "Unproven", scheme: "exact" },
        ],
      },
    });
    const harvested = await call("/resources/harvest", {
      method: "POST",
      json: await signedResourceChallenge(merchant, "resource:register"),
    });
    expect(harvested.status).toBe(403);
    expect(harvested.body.reason).toBe("origin_not_proven");
    expect(await requestsSeenBySeller(path)).toEqual([]);
  });

  it(
    "caps the live resources of a wallet (SVC_MAX_RESOURCES_PER_WALLET); updates and a retired slot still " + "work",
    async () => {
      const merchant = await verifiedMerchant(sellerOrigin());
      const capped = { SVC_MAX_RESOURCES_PER_WALLET: "2" };
      const tag = crypto.randomUUID().slice(0, 8);
      const registerCapped = async (name: string) => {
        const challenge = await signedResourceChallenge(merchant, "resource:register");
        return callWithEnv(capped, "/resources/register", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            ...challenge,
            resource: { resourceUrl: `${sellerOrigin()}/cap-${tag}-${name}`, title: `Cap ${name}`, scheme: "exact" },
          }),
        });
      };
      const first = await registerCapped("a");
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect((await registerCapped("b")).status).toBe(200);
      const third = await registerCapped("c");
      expect(third.status).toBe(409);
      expect(third.body).toMatchObject({ code: "CONFLICT", reason: "resource_limit_reached", limit: 2 });
      expect(await requestsSeenBySeller(`/cap-${tag}-c`)).toEqual([]);
      expect((await registerCapped("a")).status).toBe(200); // an update of a live resource is not a new one
      const retired = await call("/resources/retire", {
        method: "POST",
        json: { ...(await signedResourceChallenge(merchant, "resource:retire")), id: first.body.id },
      });
      expect(retired.body.retired).toBe(true);
      expect((await registerCapped("c")).status).toBe(200);
    },
  );

  it(
    "a manifest harvest stays within the wallet's cap: entries beyond it are rejected, not stored or " + "probed",
    async () => {
      const merchant = await verifiedMerchant(sellerOrigin());
      const tag = crypto.randomUUID().slice(0, 8);
      const resources = ["a", "b", "c"].map((name) => ({
        resourceUrl: `${sellerOrigin()}/harvest-cap-${tag}-${name}`,
        title: `Harvest ${name}`,
        scheme: "exact",
      }));
      await setSellerBehaviour({ manifest: { x402ResourceManifest: 1, resources } });
      const challenge = await signedResourceChallenge(merchant, "resource:register");
      const harvested = await callWithEnv({ SVC_MAX_RESOURCES_PER_WALLET: "2" }, "/resources/harvest", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(challenge),
      });
      expect(harvested.status, JSON.stringify(harvested.body)).toBe(200);
      expect(harvested.body.imported.map((r: { resourceUrl: string }) => r.resourceUrl)).toEqual(
        resources.slice(0, 2).map((r) => r.resourceUrl),
      );
      expect(harvested.body.rejected).toEqual([{ index: 2, error: expect.stringContaining("live resources") }]);
      expect(await requestsSeenBySeller(`/harvest-cap-${tag}-c`)).toEqual([]);
    },
  );
});
