/**
 * The page for people at GET /, in a real headless browser: Debian's Chromium driven by playwright-core, against the
 * Worker under wrangler with the local chain and a directory seeded through the real registration and probe flow.
 * (scripts/ensure-chromium.sh installs Chromium; the test setup runs it.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { withLocalWorker } from "../support/node/local-worker";
import { startDirectorySeller, type DirectorySeller } from "../support/node/directory-seller";
import { registerListedResource } from "../support/node/listed-resource";

const CHROMIUM = "/usr/bin/chromium";
const local = withLocalWorker({ feePayerLamports: 10_000_000_000 });
let seller: DirectorySeller;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (as root) first`);
  seller = await startDirectorySeller();
  const api = local.api;
  for (const [pathname, title, description] of [
    ["/forecast", "Lisbon weather forecast", "Hourly forecast for Lisbon, paid per call"],
    ["/translate", "Legal translation", "Contract translation into Portuguese"],
  ]) {
    const { registered } = await registerListedResource({ api, chainUrl: local.chain.url, seller, path: pathname!, resource: { title, description, scheme: "exact" } });
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
});

describe("GET / in a browser", () => {
  it("loads, shows live status and the schemes, and a search returns results from the directory", async () => {
    const page = await browser.newPage();
    const failedRequests: string[] = [];
    const pageErrors: string[] = [];
    page.on("requestfailed", (request) => failedRequests.push(request.url()));
    page.on("pageerror", (error) => pageErrors.push(error.message));

    const response = await page.goto(`${local.worker.url}/`);
    expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
    await expect.poll(() => page.textContent("#status"), { timeout: 15_000 }).toMatch(/^Operational · devnet · slot \d+ · RPC connected$/);
    // Fees in the asset's units, from /supported (100 bps, min_fee_amount 10000 raw USDC, 100000 lamports).
    await expect.poll(() => page.textContent("#schemes"), { timeout: 15_000 }).toMatch(/exact on solana:\S+: paid instantly into the seller's vault; fee 1% of the price, at least 0\.01 USDC \(0\.0001 SOL for SOL\)/);
    expect(await page.textContent("#schemes")).toMatch(/sla-escrow on solana:\S+: held in escrow until delivery; fee 1% of the price on release, oracle tip 1% when an oracle gives a verdict/);
    expect(await page.textContent("#schemes")).not.toMatch(/raw units|bps/);
    await expect.poll(() => page.textContent("#stats"), { timeout: 15_000 }).toBe("2 listed providers · 2 listed resources (2 exact)");
    // The seeded 402s ask for 1000 base units of devnet USDC (test/support/node/directory-seller.ts).
    await expect.poll(() => page.locator("#listing li .price").allTextContents(), { timeout: 15_000 }).toEqual(["0.001 USDC (exact)", "0.001 USDC (exact)"]);
    expect(await page.getAttribute("a.cta", "href")).toBe("/console");

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
