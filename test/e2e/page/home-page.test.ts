/**
 * The page for people at GET /, in a real headless browser: Debian's Chromium driven by playwright-core, against the
 * Worker under wrangler with the local chain and a directory seeded through the real registration and probe flow.
 * (scripts/ensure-chromium.sh installs Chromium; the test setup runs it.)
 */

import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DirectorySeller, startDirectorySeller } from "../../support/node/directory-seller";
import { registerListedResource } from "../../support/node/listed-resource";
import { withLocalWorker } from "../../support/node/local-worker";

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
    const { registered } = await registerListedResource({
      api,
      chainUrl: local.chain.url,
      seller,
      path: pathname!,
      resource: { title, description, scheme: "exact" },
    });
    expect(registered.probe.ok).toBe(true);
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ], // playwright gives every launch a fresh, empty profile
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
    await expect
      .poll(() => page.textContent("#status"), { timeout: 15_000 })
      .toMatch(/^Operational · devnet · slot \d+ · RPC connected$/);
    // Each scheme's fee line says what that scheme charges: the numbers are held against /fee-quote, which reads them
    // from the programs' accounts on the chain (UniversalSettle Config, the USDC Escrow, the payment-channels split).
    const supportedKinds = (
      (await (await fetch(`${local.api}/supported`)).json()) as {
        kinds: { network: string; extra: { sovereignFeeBps?: string } }[];
      }
    ).kinds;
    const network = supportedKinds[0]!.network;
    // The rate of a vault the seller activated: the program's discounted rate, as /supported publishes it.
    const sovereignFeeBps = Number(supportedKinds[0]!.extra.sovereignFeeBps);
    const AMOUNT = 1_000_000;
    const quote = async (scheme: string, asset = "USDC") =>
      (await (
        await fetch(
          `${local.api}/fee-quote?wallet=${local.feePayer.address}&asset=${asset}&amount=${AMOUNT}&scheme=${scheme}`,
        )
      ).json()) as { feeBps: number; minFeeAmount: string; oracleFee: string; protocolFee: string };
    const [exact, exactSol, escrow, upto] = [
      await quote("exact"),
      await quote("exact", "SOL"),
      await quote("sla-escrow"),
      await quote("upto"),
    ];
    const oracleTipBps = (Number(escrow.oracleFee) * 10_000) / AMOUNT;
    const usdc = (raw: bigint) => `${Number(raw) / 1e6} USDC`;
    const percent = (bps: number) => `${bps / 100}%`;
    const breakEven = (quoted: { feeBps: number; minFeeAmount: string }) =>
      usdc((BigInt(quoted.minFeeAmount) * 10_000n) / BigInt(quoted.feeBps));
    expect([
      exact.feeBps,
      exact.minFeeAmount,
      exactSol.minFeeAmount,
      escrow.feeBps,
      escrow.minFeeAmount,
      oracleTipBps,
      upto.feeBps,
      upto.protocolFee,
      sovereignFeeBps,
    ]).toEqual([100, "10000", "100000", 100, "100000", 100, 0, "0", 90]);
    await expect.poll(() => page.locator("#schemes li").count(), { timeout: 15_000 }).toBe(3);
    const lines = await page
      .locator("#schemes li")
      .evaluateAll((items) => items.map((li) => [(li as HTMLElement).dataset.scheme, li.textContent]));
    expect(lines).toEqual([
      [
        "exact",
        `exact ` +
          `on ${network}: paid instantly into the seller's vault; ` +
          `fee ${percent(exact.feeBps)} of each sweep to the seller, at ` +
          `least ${usdc(BigInt(exact.minFeeAmount))} per sweep ` +
          `(${Number(exactSol.minFeeAmount) / 1e9} SOL for SOL): a sweep ` +
          `below ${breakEven(exact)} pays more ` +
          `than ${percent(exact.feeBps)}; ${percent(sovereignFeeBps)} for sellers who activate their own vault; the ` +
          `facilitator pays the network fee; the smallest payment ` +
          `is ${usdc(BigInt(exact.minFeeAmount))}, smaller prices are refused`,
      ],
      [
        "sla-escrow",
        `sla-escrow ` +
          `on ${network}: held in escrow until delivery; ` +
          `fee ${percent(escrow.feeBps)} of the price on release, at ` +
          `least ${usdc(BigInt(escrow.minFeeAmount))}: a price ` +
          `below ${breakEven(escrow)} pays more ` +
          `than ${percent(escrow.feeBps)}; oracle ` +
          `tip ${percent(oracleTipBps)} when an oracle gives a verdict; the buyer pays the network fee`,
      ],
      [
        "upto",
        `upto ` +
          `on ${network}: pay per use through a payment channel: the buyer deposits a ceiling, the seller claims ` +
          `what the request used and the rest returns to the buyer; no fee: the whole claimed amount goes to the ` +
          `seller's wallet; the facilitator pays the network fees and fronts the channel's rent until it closes`,
      ],
    ]);
    expect(await page.textContent("#schemes")).not.toMatch(/raw units|bps|NaN|undefined/);
    await expect
      .poll(() => page.textContent("#stats"), { timeout: 15_000 })
      .toBe("2 listed providers · 2 listed resources (2 exact)");
    // The seeded 402s ask for 1000 base units of devnet USDC (test/support/node/directory-seller.ts).
    await expect
      .poll(() => page.locator("#listing li .price").allTextContents(), { timeout: 15_000 })
      .toEqual(["0.001 USDC (exact)", "0.001 USDC (exact)"]);
    // Probe times in the pages' one time format.
    expect(await page.locator("#listing li .meta").allTextContents()).toEqual([
      expect.stringMatching(/ · probed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
      expect.stringMatching(/ · probed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/),
    ]);
    expect(await page.getAttribute("a.cta", "href")).toBe("/console");

    await page.fill("#q", "forecast");
    await page.click("#search button");
    await expect
      .poll(() => page.locator("#results li").allTextContents(), { timeout: 15_000 })
      .toEqual([expect.stringContaining("Lisbon weather forecast")]);
    expect(await page.getAttribute("#results li a", "href")).toBe(`${seller.origin}/forecast`);
    // A search result says what it costs, as the listing does.
    expect(await page.locator("#results li .price").allTextContents()).toEqual(["0.001 USDC (exact)"]);

    await page.fill("#q", "nothing-matches-this");
    await page.click("#search button");
    await expect.poll(() => page.textContent("#results"), { timeout: 15_000 }).toMatch(/No listed resource matches/);
    // A message in a numbered list is not numbered (nor is "Nothing listed yet" in an empty directory: the same note).
    expect(
      await page.locator("#results li").evaluate((li) => [li.className, getComputedStyle(li).listStyleType]),
    ).toEqual(["note", "none"]);
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  }, 60_000);
});
