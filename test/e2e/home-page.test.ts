/**
 * The page for people at GET /, in a real headless browser: Debian's Chromium driven by playwright-core, against the
 * Worker under wrangler with the local chain and a directory seeded through the real registration and probe flow.
 * (scripts/ensure-chromium.sh installs Chromium; the test setup runs it.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { startLocalnet, type RunningLocalnet } from "../../localnet/server";
import { startWorker, type RunningWorker } from "../../scripts/lib/run-worker";
import { randomKeypair } from "../../scripts/lib/keypair";
import { fundFromFaucet } from "../../demo/chain-rpc";
import { startDirectorySeller, type DirectorySeller } from "../fixtures/directory-seller";
import { registerListedResource } from "../fixtures/listed-resource";

const CHROMIUM = "/usr/bin/chromium";
let chain: RunningLocalnet;
let worker: RunningWorker;
let seller: DirectorySeller;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (as root) first`);
  chain = await startLocalnet({ port: 0, quiet: true });
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 10_000_000_000);
  worker = await startWorker({ rpcUrl: chain.url, feePayerSecretKeyBase58: feePayer.secretKeyBase58 });
  seller = await startDirectorySeller();
  const api = `${worker.url}/api/v1/facilitator`;
  for (const [pathname, title, description] of [
    ["/forecast", "Lisbon weather forecast", "Hourly forecast for Lisbon, paid per call"],
    ["/translate", "Legal translation", "Contract translation into Portuguese"],
  ]) {
    const { registered } = await registerListedResource({ api, chainUrl: chain.url, seller, path: pathname!, resource: { title, description, scheme: "exact" } });
    expect(registered.probe.ok).toBe(true);
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"], // playwright gives every launch a fresh, empty profile
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await seller?.close();
  await worker?.stop();
  await chain?.close();
});

describe("GET / in a browser", () => {
  it("loads, shows live status and the schemes, and a search returns results from the directory", async () => {
    const page = await browser.newPage();
    const failedRequests: string[] = [];
    const pageErrors: string[] = [];
    page.on("requestfailed", (request) => failedRequests.push(request.url()));
    page.on("pageerror", (error) => pageErrors.push(error.message));

    const response = await page.goto(`${worker.url}/`);
    expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
    await expect.poll(() => page.textContent("#status"), { timeout: 15_000 }).toMatch(/^Operational · devnet · slot \d+ · RPC connected$/);
    await expect.poll(() => page.textContent("#schemes"), { timeout: 15_000 }).toMatch(/exact on solana:\S+: protocol fee 100 bps/);
    expect(await page.textContent("#schemes")).toMatch(/sla-escrow on solana:\S+: escrow fee 100 bps on release, oracle tip 100 bps/);

    await page.fill("#q", "forecast");
    await page.click("#search button");
    await expect.poll(() => page.locator("#results li").allTextContents(), { timeout: 15_000 }).toEqual([
      expect.stringContaining("Lisbon weather forecast"),
    ]);
    expect(await page.getAttribute("#results li a", "href")).toBe(`${seller.origin}/forecast`);

    await page.fill("#q", "nothing-matches-this");
    await page.click("#search button");
    await expect.poll(() => page.textContent("#results"), { timeout: 15_000 }).toMatch(/No listed resource matches/);
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  }, 60_000);
});
