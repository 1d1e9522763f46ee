/**
 * The official x402 v2 Bazaar client (`withBazaar(new HTTPFacilitatorClient({url}))` from @x402/extensions) lists
 * this facilitator's directory unchanged, end to end over real HTTP: a seller on loopback onboards on the local
 * chain, registers a resource whose 402 the Worker (wrangler, workerd, local D1) probes, and the client reads it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
  signBytes,
  type KeyPairSigner,
} from "@solana/kit";
import { HTTPFacilitatorClient } from "@x402/core/http";
import { withBazaar } from "@x402/extensions/bazaar";
import { startLocalnet, type RunningLocalnet } from "../../localnet/server";
import { startWorker, type RunningWorker } from "../../scripts/lib/run-worker";
import { randomKeypair } from "../../scripts/lib/keypair";
import { chainRpc, fundFromFaucet } from "../../demo/chain-rpc";
import { startDirectorySeller, type DirectorySeller } from "../fixtures/directory-seller";

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

async function post(path: string, json: unknown): Promise<any> {
  const response = await fetch(api + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(json) });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function signed(wallet: KeyPairSigner, challengePath: string) {
  const challenge = (await (await fetch(api + challengePath)).json()) as { message: string };
  const signature = await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(challenge.message));
  return { message: challenge.message, signature: getBase58Decoder().decode(signature) };
}

describe("x402 Bazaar discovery with the official client", () => {
  it("lists a registered, probed resource with its 402 accepts and bazaar extension", async () => {
    const wallet = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
    await fundFromFaucet(chain.url, wallet.address, 1_000_000_000);
    const built = await post("/sellers/provision-tx", { wallet: wallet.address, asset: "SOL" });
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(built.transaction));
    const signedTx = await partiallySignTransaction([wallet.keyPair], tx);
    await chainRpc(chain.url, "sendTransaction", [getBase64EncodedWireTransaction(signedTx), { encoding: "base64" }]);
    await post(`/sellers/${wallet.address}/register`, {
      ...(await signed(wallet, `/sellers/${wallet.address}/challenge?action=seller:register`)),
      asset: "SOL",
      discovery: { serviceUrl: seller.origin, listingOptIn: true },
    });
    const bazaar = { info: { input: { type: "http", method: "GET" } }, schema: { type: "object" } };
    await fetch(`${seller.origin}/__control`, { method: "POST", body: JSON.stringify({ path: "/quote", mode: "402", bazaar }) });
    const registered = await post("/resources/register", {
      wallet: wallet.address,
      ...(await signed(wallet, `/resources/register/challenge?wallet=${wallet.address}&action=resource:register`)),
      resource: { resourceUrl: `${seller.origin}/quote`, title: "Quote", scheme: "exact" },
    });
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
