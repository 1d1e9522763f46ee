/**
 * The official x402 v2 Bazaar client (`withBazaar(new HTTPFacilitatorClient({url}))` from @x402/extensions) lists
 * this facilitator's directory unchanged, end to end over real HTTP: a seller on loopback onboards on the local
 * chain, registers a resource whose 402 the Worker (wrangler, workerd, local D1) probes, and the client reads it.
 */

import { HTTPFacilitatorClient } from "@x402/core/http";
import { withBazaar } from "@x402/extensions/bazaar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DirectorySeller, startDirectorySeller } from "../../../support/node/directory-seller";
import { registerListedResource } from "../../../support/node/listed-resource";
import { withLocalWorker } from "../../../support/node/local-worker";

const local = withLocalWorker({ feePayerLamports: 10_000_000_000 });
let seller: DirectorySeller;

beforeAll(async () => {
  seller = await startDirectorySeller();
}, 120_000);

afterAll(async () => {
  await seller?.close();
});

describe("x402 Bazaar discovery with the official client", () => {
  it("lists a registered, probed resource with its 402 accepts and bazaar extension", async () => {
    const bazaar = { info: { input: { type: "http", method: "GET" } }, schema: { type: "object" } };
    const { registered } = await registerListedResource({
      api: local.api,
      chainUrl: local.chain.url,
      seller,
      path: "/quote",
      bazaar,
      resource: { title: "Quote", scheme: "exact" },
    });
    expect(registered.probe.ok).toBe(true);

    const client = withBazaar(new HTTPFacilitatorClient({ url: local.api }));
    const listing = await client.extensions.bazaar.listResources({ type: "http", limit: 10 });
    expect(listing.x402Version).toBe(2);
    expect(listing.pagination).toMatchObject({ limit: 10, offset: 0, total: 1 });
    expect(listing.items).toHaveLength(1);
    expect(listing.items[0]).toMatchObject({
      resource: `${seller.origin}/quote`,
      type: "http",
      x402Version: 2,
      metadata: { bazaar },
    });
    expect(listing.items[0]!.accepts[0]).toMatchObject({ scheme: "exact", amount: "1000" });

    const supported = await new HTTPFacilitatorClient({ url: local.api }).getSupported();
    expect(supported.extensions).toContain("bazaar");
  }, 120_000);

  it("search (GET /discovery/search, issue 23 item 5): ranked, filtered and cursor-paged through the official " +
    "client", async () => {
    await registerListedResource({
      api: local.api,
      chainUrl: local.chain.url,
      seller,
      path: "/tide",
      resource: { title: "Tide tables", description: "Tide forecast for harbours", scheme: "exact" },
    });
    await registerListedResource({
      api: local.api,
      chainUrl: local.chain.url,
      seller,
      path: "/tide-history",
      resource: { title: "Tide history archive", scheme: "exact" },
    });
    const client = withBazaar(new HTTPFacilitatorClient({ url: local.api }));

    const first = await client.extensions.bazaar.search({ query: "tide", limit: 1 });
    expect(first.x402Version).toBe(2);
    expect(first.resources).toHaveLength(1);
    // Ranked: the shorter title with the word wins the first page.
    expect(first.resources[0]).toMatchObject({
      resource: `${seller.origin}/tide`,
      type: "http",
      x402Version: 2,
      description: "Tide forecast for harbours",
    });
    expect(first.resources[0]!.accepts[0]).toMatchObject({ scheme: "exact" });
    expect(first.pagination?.cursor).toEqual(expect.any(String));

    const second = await client.extensions.bazaar.search({
      query: "tide",
      limit: 1,
      cursor: first.pagination!.cursor!,
    });
    expect(second.resources.map((r) => r.resource)).toEqual([`${seller.origin}/tide-history`]);
    const third = await client.extensions.bazaar.search({
      query: "tide",
      limit: 1,
      cursor: second.pagination!.cursor ?? undefined,
    });
    expect(second.pagination?.cursor === null || third.resources.length === 0).toBe(true);

    // Exact filters: what the probed 402 says (payTo, network, scheme), the resource type, and extension keys.
    const payTo = (first.resources[0]!.accepts[0] as { payTo: string }).payTo;
    const network = (first.resources[0]!.accepts[0] as { network: string }).network;
    expect(
      (await client.extensions.bazaar.search({ query: "tide", payTo, network, scheme: "exact", type: "http" }))
        .resources,
    ).toHaveLength(2);
    expect(
      (await client.extensions.bazaar.search({ query: "tide", payTo: "So11111111111111111111111111111111111111112" }))
        .resources,
    ).toHaveLength(0);
    expect((await client.extensions.bazaar.search({ query: "tide", network: "eip155:8453" })).resources).toHaveLength(
      0,
    );
    expect((await client.extensions.bazaar.search({ query: "tide", scheme: "sla-escrow" })).resources).toHaveLength(0);
    expect((await client.extensions.bazaar.search({ query: "tide", type: "mcp" })).resources).toHaveLength(0);
    // neither 402 declares it
    expect((await client.extensions.bazaar.search({ query: "tide", extensions: "bazaar" })).resources).toHaveLength(0);
    const quote = await client.extensions.bazaar.search({ query: "quote", extensions: "bazaar" });
    expect(quote.resources.map((r) => r.resource)).toEqual([`${seller.origin}/quote`]);
    expect(quote.resources[0]!.extensions).toHaveProperty("bazaar");
  }, 180_000);
});
