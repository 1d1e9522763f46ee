/**
 * The guides' code runs as written: the `ts example=…` blocks of the served seller and buyer guides (docs/guides/,
 * fetched from the Worker so the deployment's origin, network and mint are filled in) are written to files and run
 * with tsx as a newcomer would run them. Two sellers (the official @x402/hono middleware, and the spec's reference flow
 * that posts the header to /settle) are each paid by both buyers (no x402 SDK: build → sign → pay; and @x402/fetch).
 * Real: the local chain, the Worker under wrangler, the official packages, separate processes talking over HTTP.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activateSellerVault } from "../../demo/activate-seller";
import { fundFromFaucet } from "../../demo/chain-rpc";
import { freeLoopbackPort } from "../../scripts/lib/free-port";
import { randomKeypair } from "../../scripts/lib/keypair";
import { withLocalWorker } from "../support/node/local-worker";

const ROOT = path.join(import.meta.dirname, "../..");
/** Inside the repository (git-ignored), so the scripts resolve the project's node_modules like a newcomer's project. */
const WORK = path.join(ROOT, "test-artifacts/guides");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

const local = withLocalWorker({ feePayerLamports: 100_000_000_000 });
const sellers: Record<string, string> = {};
const children: ChildProcess[] = [];
let buyerGuide = "";
const buyer = randomKeypair();

/** The fenced `ts example=<name>` block of a guide. */
function example(markdown: string, name: string): string {
  const match = markdown.match(new RegExp("^```ts example=" + name + "\\n([\\s\\S]*?)^```$", "m"));
  if (!match) throw new Error(`the guide has no ts example=${name} block`);
  return match[1]!;
}

/** Writes a guide's code to a file, replacing only what the guide tells the reader to replace. */
function scriptFile(name: string, code: string, replacements: Record<string, string>): string {
  mkdirSync(WORK, { recursive: true });
  let text = code;
  for (const [from, to] of Object.entries(replacements)) text = text.replaceAll(from, to);
  const file = path.join(WORK, `${name}.ts`);
  writeFileSync(file, text);
  return file;
}

/** Starts a seller script and waits for its "listening" line. */
async function startSeller(file: string, port: number): Promise<string> {
  const child = spawn(TSX, [file], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${file} exited with ${code}: ${output}`)));
  });
  return `http://127.0.0.1:${port}/weather`;
}

/** Runs a buyer script to its end; its output is what it printed. */
function runBuyer(file: string, urlToPay: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      URL_TO_PAY: urlToPay,
      BUYER_SECRET_KEY: buyer.secretKeyBase58,
      SOLANA_RPC_URL: local.chain.url,
    };
    const child = spawn(TSX, [file], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  const origin = local.worker.url;
  const sellerGuide = await (await fetch(`${origin}/seller-quick-start.md`)).text();
  buyerGuide = await (await fetch(`${origin}/quickstart-buyer.md`)).text();
  expect(sellerGuide).not.toContain("{{");
  expect(buyerGuide).not.toContain("{{");

  // The seller follows step 1: activate the vault, read payTo.
  const seller = randomKeypair();
  await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000);
  const signer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(seller.secretKeyBase58));
  await activateSellerVault({ facilitatorApi: local.api, rpcUrl: local.chain.url, seller: signer, asset: "USDC" });
  const { payTo } = (await (await fetch(`${local.api}/sellers/${seller.address}/rails/exact`)).json()) as {
    payTo: string;
  };
  const mine = { "<YOUR_WALLET>": seller.address, "<YOUR_VAULT>": payTo };

  sellers.middleware = await startSeller(
    scriptFile("seller-hono", example(sellerGuide, "seller-hono"), mine),
    await freeLoopbackPort(),
  );
  sellers.reference = await startSeller(
    scriptFile("seller-reference", example(sellerGuide, "seller-reference"), mine),
    await freeLoopbackPort(),
  );
  await fundFromFaucet(local.chain.url, buyer.address, 1_000_000_000, 10_000_000);
}, 240_000);

afterAll(() => {
  for (const child of children) child.kill();
});

describe("the guides' code, run as written against the local stack", () => {
  for (const buyerExample of ["buyer-no-sdk", "buyer-x402-fetch"]) {
    for (const sellerKind of ["middleware", "reference"]) {
      it(`${buyerExample} pays the ${sellerKind} seller`, async () => {
        const file = scriptFile(buyerExample, example(buyerGuide, buyerExample), {});
        const { code, output } = await runBuyer(file, sellers[sellerKind]!);
        expect(code, output).toBe(0);
        expect(output, output).toMatch(/^200 \{"weather":"sunny"\}/m);
      }, 120_000);
    }
  }

  it("the seller guide's manifest route proves the origin and lists the resource", async () => {
    const origin = new URL(sellers.middleware!).origin;
    const manifest = (await (await fetch(`${origin}/.well-known/x402-resources.json`)).json()) as {
      merchantWallet: string;
      resources: { resourceUrl: string }[];
    };
    expect(manifest.merchantWallet).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(manifest.resources[0]!.resourceUrl).toBe(`${origin}/weather`);
  });
});
