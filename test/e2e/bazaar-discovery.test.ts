/**
 * The official x402 v2 Bazaar client (`withBazaar(new HTTPFacilitatorClient({url}))` from @x402/extensions) lists
 * this facilitator's directory unchanged, end to end over real HTTP: a seller on loopback onboards on the local
 * chain, registers a resource whose 402 the Worker (wrangler, workerd, local D1) probes, and the client reads it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTPFacilitatorClient } from "@x402/core/http";
import { withBazaar } from "@x402/extensions/bazaar";
import { startLocalnet, type RunningLocalnet } from "../../localnet/server";
import { startWorker, type RunningWorker } from "../../scripts/lib/run-worker";
import { randomKeypair } from "../../scripts/lib/keypair";
import { fundFromFaucet } from "../../demo/chain-rpc";
import { startDirectorySeller, type DirectorySeller } from "../fixtures/directory-seller";
import { registerListedResource } from "../fixtures/listed-resource";

let chain: RunningLocalnet;
let worker: RunningWorker;
let seller: DirectorySeller;
let api: string;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, quiet: true });
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 10_000_000_000);
  worker = await startWorker({ rpcUrl: chain.url, feePayerSecretKeyBase58: feePayer.secretKeyBase58 });
  api = `${worker.url}/api/v1/facilitator`;
  seller = await startDirectorySeller();
}, 120_000);

afterAll(async () => {
  await seller?.close();
  await worker?.stop();
  await chain?.close();
});

describe("x402 Bazaar discovery with the official client", () => {
  it("lists a registered, probed resource with its 402 accepts and bazaar extension", async () => {
    const bazaar = { info: { input: { type: "http", method: "GET" } }, schema: { type: "object" } };
    const { registered } = await registerListedResource({ api, chainUrl: chain.url, seller, path: "/quote", bazaar, resource: { title: "Quote", scheme: "exact" } });
    expect(registered.probe.ok).toBe(true);

    const client = withBazaar(new HTTPFacilitatorClient({ url: api }));
    const listing = await client.extensions.bazaar.listResources({ type: "http", limit: 10 });
    expect(listing.x402Version).toBe(2);
    expect(listing.pagination).toMatchObject({ limit: 10, offset: 0, total: 1 });
    expect(listing.items).toHaveLength(1);
    expect(listing.items[0]).toMatchObject({ resource: `${seller.origin}/quote`, type: "http", x402Version: 2, metadata: { bazaar } });
    expect(listing.items[0]!.accepts[0]).toMatchObject({ scheme: "exact", amount: "1000" });

    const supported = await new HTTPFacilitatorClient({ url: api }).getSupported();
    expect(supported.extensions).toContain("bazaar");
  }, 120_000);
});
