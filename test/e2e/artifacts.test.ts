/**
 * The served artifacts checked from outside, over real HTTP against the Worker in wrangler/workerd (the OpenAPI
 * validator needs Node: it compiles JSON Schemas with code generation, which workerd forbids).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startLocalnet, type RunningLocalnet } from "../../localnet/server";
import { startWorker, type RunningWorker } from "../../scripts/lib/run-worker";
import { randomKeypair } from "../../scripts/lib/keypair";
import { fundFromFaucet } from "../../demo/chain-rpc";

let chain: RunningLocalnet;
let worker: RunningWorker;

beforeAll(async () => {
  chain = await startLocalnet({ port: 0, quiet: true });
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 100_000_000_000);
  worker = await startWorker({ rpcUrl: chain.url, feePayerSecretKeyBase58: feePayer.secretKeyBase58 });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await chain?.close();
}, 60_000);

describe("/openapi.json", () => {
  it("passes an OpenAPI 3.1 schema validator", async () => {
    const doc = (await (await fetch(`${worker.url}/openapi.json`)).json()) as any;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.servers).toEqual([{ url: worker.url }]);
  });

  it("a validator that is not vacuous: a broken description is rejected", async () => {
    const doc = (await (await fetch(`${worker.url}/openapi.json`)).json()) as any;
    const broken = structuredClone(doc);
    broken.paths["/api/v1/facilitator/verify"].post.responses = "none";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});
