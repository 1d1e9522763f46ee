/**
 * The seller console at /console in a real headless browser (Debian's Chromium through playwright-core) against the
 * served Worker (workerd, the production bundle, as `npm start` serves it) and the local chain: a new seller goes from
 * preview to a listed, paid, swept resource using only the page and its wallet.
 *
 * The wallet: a real wallet extension (Phantom, Solflare, Backpack) cannot run in headless Chromium here, so the test
 * registers its own Wallet Standard wallet in the page (page.addInitScript), the way an extension's content script
 * does: it announces itself with `wallet-standard:register-wallet` and answers the page's `wallet-standard:app-ready`.
 * Its keys never enter the page: it holds a local keypair in Node and signs with it (page.exposeFunction). Like Phantom
 * it has both `solana:signTransaction` and `solana:signAndSendTransaction`; on the local chain the page must use the
 * first and send to the local chain itself (a wallet's own RPC is the real devnet), so its signAndSendTransaction would
 * send to the local chain too, but is expected never to be called.
 *
 * Screenshots of every step go to test-artifacts/console/ (git-ignored) for a person to look at.
 */

import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getBase58Encoder,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  signBytes,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { Network } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signAtIndex } from "../../../demo/build-endpoint-buyer";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "../../../demo/chain-rpc";
import { type RunningSellerServer, startSellerServer } from "../../../demo/seller-server";
import { CLUSTERS } from "../../../src/platform/config/networks";
import { withLocalWorker } from "../../support/node/local-worker";

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = path.resolve(import.meta.dirname, "../../../test-artifacts/console");
const DEVNET = CLUSTERS.devnet.network as Network;
const USDC = CLUSTERS.devnet.usdcMint;
/** 0.5 USDC: under the official client's default spend cap of $1 per payment. */
const PRICE_RAW = "500000";
const OPERATOR_TOKEN = "run-worker-operator-token"; // scripts/lib/run-worker.ts

const local = withLocalWorker({ feePayerLamports: 50_000_000_000 });
let sellerServer: RunningSellerServer;
let seller: KeyPairSigner;
let browser: Browser;
/** What the test wallet was asked to do, in order (the page must go through the wallet for every signature). */
const walletLog: string[] = [];
/** Every message the test wallet signed, in order. */
const signedMessages: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (as root) first`);
  mkdirSync(SHOTS, { recursive: true });
  seller = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
  await fundFromFaucet(local.chain.url, seller.address, 1_000_000_000);
  // The seller's API: a small x402 seller on loopback that settles through this facilitator.
  // Its origin serves the Seller Resource Manifest naming the wallet: the directory's proof that the origin is the
  // seller's.
  sellerServer = await startSellerServer({
    facilitatorUrl: local.api,
    sellerWallet: seller.address,
    network: DEVNET,
    asset: USDC,
    amount: PRICE_RAW,
    resourcePath: "/report",
    content: { report: "paid via the console test" },
    manifest: { x402ResourceManifest: 1, merchantWallet: seller.address, resources: [] },
  });
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
    ],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await sellerServer?.close();
}, 60_000);

/** The page-side half of the test wallet: a Wallet Standard wallet object whose signing calls go out to Node. */
function testWalletScript(address: string, publicKey: number[]): string {
  return (
    `(() => {
    const toB64 = (bytes) => { let s = ""; for (const b of bytes) s += String.fromCharCode(b); return btoa(s); };
    const fromB64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const account = Object.freeze({ ` +
    `address: ${JSON.stringify(address)}, publicKey: new Uint8Array(${JSON.stringify(publicKey)}),
      chains: ["solana:devnet"], features: ["solana:signAndSendTransaction", "solana:signTransaction", ` +
    `"solana:signMessage"] });
    const wallet = {
      version: "1.0.0", name: "Test Wallet", icon: "data:image/svg+xml;base64,PHN2Zy8+", chains: ["solana:devnet"], ` +
    `accounts: [],
      features: {
        "standard:connect": { version: "1.0.0", connect: async () => { wallet.accounts = [account]; return { ` +
    `accounts: [account] }; } },
        "standard:events": { version: "1.0.0", on: () => () => {} },
        "solana:signMessage": { version: "1.0.0", signMessage: (...inputs) => Promise.all(inputs.map(async (input) =>
          ({ signedMessage: input.message, signature: fromB64(await ` +
    `window.__testWalletSignMessage(input.account.address, toB64(input.message))) }))) },
        "solana:signAndSendTransaction": { version: "1.0.0", supportedTransactionVersions: ["legacy", 0], ` +
    `signAndSendTransaction: (...inputs) => Promise.all(inputs.map(async (input) =>
          ({ signature: fromB64(await window.__testWalletSignAndSend(input.account.address, ` +
    `toB64(input.transaction), input.chain)) }))) },
        "solana:signTransaction": { version: "1.0.0", supportedTransactionVersions: ["legacy", 0], signTransaction: ` +
    `(...inputs) => Promise.all(inputs.map(async (input) =>
          ({ signedTransaction: fromB64(await window.__testWalletSign(input.account.address, ` +
    `toB64(input.transaction), input.chain)) }))) },
      },
    };
    const callback = ({ register }) => register(wallet);
    // Before the page's script runs nobody listens to this; the page's app-ready announcement below registers it.
    window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback }));
    window.addEventListener("wallet-standard:app-ready", (event) => callback(event.detail));
  })();`
  );
}

/** A page with the test wallet installed, failing the test on any script error, failed request or CSP violation. */
async function consolePage(
  options: { width: number; height: number },
  owner: KeyPairSigner = seller,
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: options.width, height: options.height } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`requestfailed: ${request.url()}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.exposeFunction("__testWalletSignMessage", async (who: string, messageBase64: string) => {
    expect(who).toBe(owner.address);
    const message = Buffer.from(messageBase64, "base64");
    walletLog.push(`signMessage ${/action: (\S+)/.exec(message.toString("utf8"))?.[1] ?? "?"}`);
    signedMessages.push(message.toString("utf8"));
    const signature = await signBytes(owner.keyPair.privateKey, new Uint8Array(message));
    return Buffer.from(signature).toString("base64");
  });
  await page.exposeFunction(
    "__testWalletSignAndSend",
    async (who: string, transactionBase64: string, walletChain: string) => {
      expect(who).toBe(owner.address);
      expect(walletChain).toBe("solana:devnet");
      const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(transactionBase64));
      const index = Object.keys(transaction.signatures).indexOf(owner.address);
      const signed = await signAtIndex(transactionBase64, index, owner);
      const signature = await chainRpc<string>(local.chain.url, "sendTransaction", [signed, { encoding: "base64" }]);
      walletLog.push("signAndSendTransaction");
      return Buffer.from(getBase58Encoder().encode(signature)).toString("base64");
    },
  );
  await page.exposeFunction("__testWalletSign", async (who: string, transactionBase64: string, walletChain: string) => {
    expect(who).toBe(owner.address);
    expect(walletChain).toBe("solana:devnet");
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(transactionBase64));
    const index = Object.keys(transaction.signatures).indexOf(owner.address);
    walletLog.push("signTransaction");
    return signAtIndex(transactionBase64, index, owner);
  });
  await page.addInitScript(testWalletScript(owner.address, Array.from(getBase58Encoder().encode(owner.address))));
  return { page, problems };
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
const text = (page: Page, selector: string) => page.locator(selector).innerText();
const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The pages' one time format. */
const TIME = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`;

/** Which steps' buttons can be pressed: activate, register (with its label) and retire. */
async function stepButtons(page: Page): Promise<{ activate: boolean; register: string; retire: boolean }> {
  return {
    activate: await page.locator("#activate").isEnabled(),
    register:
      ((await page.locator("#register").isEnabled()) ? "enabled: " : "disabled: ") +
      (await page.locator("#register").innerText()),
    retire: await page.locator("#retire").isEnabled(),
  };
}

async function connect(page: Page): Promise<void> {
  await page.goto(`${local.worker.url}/console`);
  await page.getByRole("button", { name: "Connect Test Wallet" }).click();
  await expect.poll(() => text(page, "#wallet-status"), { timeout: 15_000 }).toBe("Connected to Test Wallet.");
  await expect.poll(() => text(page, "#preview"), { timeout: 15_000 }).toContain("exact vault (payTo)");
}

describe("the seller console in a browser, with a Wallet Standard wallet", () => {
  it("walks a new seller from preview to a listed, paid and swept resource", async () => {
    const { page, problems } = await consolePage({ width: 1280, height: 900 });
    const response = await page.goto(`${local.worker.url}/console`);
    expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
    expect(response?.headers()["content-security-policy"]).toMatch(
      /^default-src 'self'; connect-src 'self' http:\/\/127\.0\.0\.1:\d+;/,
    );

    // A second wallet registers after the page is up (the other direction of the handshake); it cannot sign
    // transactions.
    await page.evaluate(() => {
      const wallet = {
        version: "1.0.0",
        name: "Message-only Wallet",
        icon: "data:image/svg+xml;base64,PHN2Zy8+",
        chains: ["solana:devnet"],
        accounts: [],
        features: {
          "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [] }) },
          "solana:signMessage": { version: "1.0.0", signMessage: async () => [] },
        },
      };
      window.dispatchEvent(
        new CustomEvent("wallet-standard:register-wallet", {
          detail: ({ register }: { register: (w: unknown) => void }) => register(wallet),
        }),
      );
    });
    await expect
      .poll(() => page.locator("#wallets li").allInnerTexts(), { timeout: 10_000 })
      .toEqual([
        "Connect Test Wallet",
        "Message-only Wallet (cannot be used here: lacks solana:signAndSendTransaction or solana:signTransaction)",
      ]);
    expect(await page.getByRole("button", { name: /Message-only Wallet/ }).isDisabled()).toBe(true);
    await shot(page, "01-wallets-found");

    // 1-2. Connect, then the preview in words: not activated, next step activate.
    await page.getByRole("button", { name: "Connect Test Wallet" }).click();
    await expect.poll(() => text(page, "#next-step"), { timeout: 15_000 }).toMatch(/^Next: activate\./);
    const preview = (await (await fetch(`${local.api}/sellers/${seller.address}/preview`)).json()) as any;
    const previewText = await text(page, "#preview");
    expect(previewText).toContain(preview.schemes.exact.vaultPda);
    expect(previewText).toMatch(
      new RegExp(
        String.raw`Fee tier\s+Not activated\. Activate it yourself for 0\.9% of each sweep; a vault the facilitator ` +
          String.raw`creates at your first payment pays 1% of each sweep\.`,
      ),
    );
    // Step states: activation is the one step open; registering needs it (the API answers 409), nothing to retire.
    await expect
      .poll(() => stepButtons(page))
      .toEqual({ activate: true, register: "disabled: Sign and register", retire: false });
    expect(await page.locator("#preview-calls summary").first().innerText()).toBe(
      `GET /api/v1/facilitator/sellers/${seller.address}/preview → 200`,
    );
    await shot(page, "02-preview");

    // 3. Activate: provision-tx, the wallet signs and sends on the local chain, the page follows the confirmation.
    await page.getByRole("button", { name: "Activate with my wallet" }).click();
    await expect.poll(() => text(page, "#activate-status"), { timeout: 60_000 }).toMatch(/^Activated for USDC: vault /);
    expect(walletLog).toEqual(["signTransaction"]); // on the local chain the page sends, never the wallet
    const snapshot = (await (
      await fetch(`${local.api}/vault-snapshot?wallet=${seller.address}&spl_mint=${USDC}`)
    ).json()) as any;
    expect(snapshot).toMatchObject({ vaultExists: true, isSovereign: true });
    // a string today, an integer beside *Decimal in pr402's shape
    expect(String(snapshot.splAmountRawDecimal ?? snapshot.splAmountRaw)).toBe("0");
    const activateCalls = await page.locator("#activate-calls pre.curl").allTextContents();
    expect(activateCalls.find((call) => call.includes("provision-tx"))).toBe(
      `curl -X POST ` +
        `'${local.api}/sellers/provision-tx' -H 'Content-Type: application/json' --data ` +
        `'{"wallet":"${seller.address}","asset":"USDC"}'`,
    );
    // The page says "Activated" first, then fetches the preview again: wait for that fetch, not for a fixed time.
    await expect
      .poll(() => text(page, "#preview"), { timeout: 15_000 })
      .toMatch(/Fee tier\s+Sovereign: 0\.9% of each sweep \(you activated your own vault\)/);
    // Activation is done: its button stays disabled (it used to stay enabled), registering opens.
    await expect
      .poll(() => stepButtons(page))
      .toEqual({ activate: false, register: "enabled: Sign and register", retire: false });
    expect(await text(page, "#activate-status")).toMatch(/^Activated for USDC: vault /);
    await shot(page, "03-activated");

    // Sweeps pay into the seller's own USDC account and never create it (issue 20): the preview asks for it, the
    // console builds its creation (one CreateIdempotent, blockhash from the deployment's wallet RPC), the wallet signs
    // and sends. A build from before that change neither asks nor needs it before the sweep: the test then creates the
    // account the way any wallet does, by receiving USDC (the local faucet sends 1 base unit), so both builds are held
    // to the sweep.
    const [sellerAta] = await findAssociatedTokenPda({
      owner: seller.address,
      mint: USDC as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    expect(await tokenAccountBalance(local.chain.url, sellerAta)).toBeNull();
    await expect
      .poll(() => text(page, "#next-step"), { timeout: 15_000 })
      .toMatch(/^Next: (create your own USDC token account|verify\.)/);
    const asksForTokenAccount = (await text(page, "#next-step")).startsWith("Next: create your own USDC token account");
    if (asksForTokenAccount) {
      await page.getByRole("button", { name: "Create my USDC token account" }).click();
      await expect.poll(() => text(page, "#next-step"), { timeout: 60_000 }).toMatch(/^Next: verify\./);
      expect(walletLog).toEqual(["signTransaction", "signTransaction"]);
      expect(await page.getByRole("button", { name: "Create my USDC token account" }).isHidden()).toBe(true);
    } else {
      await fundFromFaucet(local.chain.url, seller.address, 0, 1);
    }
    const sellerAtaStart = (await tokenAccountBalance(local.chain.url, sellerAta))!;
    expect(sellerAtaStart).toBe(asksForTokenAccount ? 0n : 1n);
    await shot(page, "03b-token-account-created");

    // 4. Verify (register) with a seller:register challenge issued for the registration's terms, listed with the
    // seller's origin. Both exact payTo forms run here, so the seller chooses; the vault is preselected (the API's
    // default).
    const origin = new URL(sellerServer.url).origin;
    const formChoice = page.getByLabel("How buyers pay you (exact)");
    expect(await formChoice.isVisible()).toBe(true);
    expect(await formChoice.inputValue()).toBe("vault");
    expect(await formChoice.locator("option").allInnerTexts()).toEqual([
      expect.stringMatching(/^Into my vault/),
      expect.stringMatching(/^Straight into my wallet's own token account/),
    ]);
    await page.getByLabel("Your API's origin (service URL)").fill(origin);
    await page.getByLabel("Display name (optional)").fill("Console test seller");
    await page.getByRole("button", { name: "Sign and register", exact: true }).click();
    await expect
      .poll(() => text(page, "#register-status"), { timeout: 20_000 })
      .toMatch(/Verified|verified|Registered/);
    expect(walletLog.at(-1)).toBe("signMessage seller:register");
    // The wallet signed the terms (the message names them), and the register sent those same terms.
    expect(signedMessages.at(-1)!.split("\n").slice(4, 8)).toEqual([
      `asset: USDC (mint ${USDC})`,
      "payToForm: vault",
      `serviceUrl: ${origin}/`,
      "listingOptIn: true",
    ]);
    const registerCalls = await page.locator("#register-calls pre.curl").allTextContents();
    expect(registerCalls.find((call) => call.includes("/register/challenge"))).toContain(`"payToForm":"vault"`);
    expect(registerCalls.find((call) => call.includes(`/sellers/${seller.address}/register'`))).toContain(
      `"payToForm":"vault"`,
    );
    await expect.poll(() => text(page, "#next-step")).toMatch(/^All set: activated and verified\./);
    // Verified: registering again is an update, retiring opens, activation stays done.
    await expect
      .poll(() => stepButtons(page))
      .toEqual({ activate: false, register: "enabled: Sign and update registration", retire: true });
    // The manifest the console tells the seller to serve is the one this seller's origin serves.
    expect(await text(page, "#manifest-url")).toBe(`${origin}/.well-known/x402-resources.json`);
    const served = await (await fetch(`${origin}/.well-known/x402-resources.json`)).json();
    expect(JSON.parse(await page.locator("#manifest-snippet").innerText())).toEqual(served);
    await shot(page, "04-registered");

    // 5. A resource on the seller's origin: registered with a signed challenge and probed at once.
    await page.getByLabel("Resource URL").fill(sellerServer.url);
    await page.getByLabel("Title").fill("Console test report");
    await page.getByLabel("Description (optional)").fill("Quarterly numbers, paid per call");
    await page.getByRole("button", { name: "Sign and register resource" }).click();
    await expect.poll(() => text(page, "#resources-status"), { timeout: 20_000 }).toMatch(/listed/);
    expect(walletLog.at(-1)).toBe("signMessage resource:register");
    const card = page.locator("#resources li[data-resource-id]").first();
    expect(await card.locator(".gates li").allInnerTexts()).toEqual([
      "✓ Seller verified",
      "✓ Resource opted in and not retired",
      expect.stringMatching(new RegExp(`^✓ Answers a valid 402 \\(last probe ${TIME}, HTTP 402\\)$`)),
    ]);
    await shot(page, "05-resource-registered");

    // Probe now, then the wallet's own list (signed resource:list): listed, every gate holding.
    await card.getByRole("button", { name: "Probe now" }).click();
    await expect
      .poll(() => text(page, "#resources-status"), { timeout: 20_000 })
      .toMatch(/: HTTP 402, valid; listed\.$/);
    expect(walletLog.at(-1)).toBe("signMessage resource:probe");
    await page.getByRole("button", { name: "Sign and list my resources" }).click();
    await expect.poll(() => text(page, "#resources-status"), { timeout: 20_000 }).toBe("1 resource(s); 1 listed.");
    expect(walletLog.at(-1)).toBe("signMessage resource:list");
    expect(await page.locator("#resources li[data-resource-id] > p.ok").first().innerText()).toBe(
      "Listed in the public directory.",
    );
    // The probe time the API keeps (RFC 3339 with microseconds) reads like the one the page stamped: one format.
    expect(await page.locator("#resources li[data-resource-id] .gates li").last().innerText()).toMatch(
      new RegExp(`^✓ Answers a valid 402 \\(last probe ${TIME}, HTTP 402\\)$`),
    );
    await shot(page, "06-resource-listed");

    // The home page lists it with its live price in USDC, the directory stats and fees in the asset's units.
    const home = await browser.newPage();
    const homeProblems: string[] = [];
    home.on("pageerror", (error) => homeProblems.push(error.message));
    home.on("requestfailed", (request) => homeProblems.push(request.url()));
    await home.goto(`${local.worker.url}/`);
    await expect
      .poll(() => home.locator("#listing li").allInnerTexts(), { timeout: 15_000 })
      .toEqual([expect.stringContaining("Console test report · 0.5 USDC (exact)")]);
    expect(await home.getAttribute("#listing li a", "href")).toBe(sellerServer.url);
    await expect
      .poll(() => home.textContent("#stats"), { timeout: 15_000 })
      .toBe("1 listed provider · 1 listed resource (1 exact)");
    await expect
      .poll(() => home.textContent("#schemes"), { timeout: 15_000 })
      .toContain("fee 1% of each sweep to the seller, at least 0.01 USDC per sweep (0.0001 SOL for SOL)");
    expect(await home.getAttribute("a.cta", "href")).toBe("/console");
    await home.screenshot({ path: path.join(SHOTS, "07-home-listed.png"), fullPage: true });
    expect(homeProblems).toEqual([]);
    await home.close();

    // A buyer pays the resource with the official client (@x402/fetch + @x402/svm).
    const buyer = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
    await fundFromFaucet(local.chain.url, buyer.address, 1_000_000_000, 1_000_000);
    const paid = await wrapFetchWithPayment(
      fetch,
      new x402Client().register(DEVNET, new ExactSvmScheme(buyer, { rpcUrl: local.chain.url })),
    )(sellerServer.url);
    expect(paid.status, await paid.clone().text()).toBe(200);
    const settlement = sellerServer.settlements.at(-1)!.result!;

    // The console shows the money: vault balance, what the next sweep pays, and the payment (signed seller:payments).
    const quote = (await (
      await fetch(`${local.api}/fee-quote?wallet=${seller.address}&asset=USDC&amount=${PRICE_RAW}&scheme=exact`)
    ).json()) as any;
    const nets = (Number(quote.sellerNets) / 1e6).toString();
    // The minimum fee outweighs the 0.9% rate on 0.5 USDC: the line says the fee's effective rate (2%), not only 0.9%.
    expect([quote.feeBps, quote.protocolFee]).toEqual([90, "10000"]);
    const effective = `${(Number(quote.protocolFee) * 100) / Number(PRICE_RAW)}%`;
    await page.getByRole("button", { name: "Vault balance and next sweep" }).click();
    await expect.poll(() => text(page, "#balance"), { timeout: 15_000 }).toMatch(/Vault balance\s+0\.5 USDC/);
    expect(await text(page, "#balance")).toMatch(
      new RegExp(
        `Next sweep pays ` +
          `you\\s+${escapeRegExp(
            `${nets} USDC (fee 0.01 ` +
              `USDC, ${effective} of 0.5 USDC: the minimum fee, above the 0.9% rate, sovereign)`,
          )}`,
      ),
    );
    await page.getByRole("button", { name: "Sign and show recent payments" }).click();
    await expect
      .poll(() => page.locator("#payments tbody tr").first().innerText(), { timeout: 15_000 })
      .toMatch(new RegExp(`^${TIME}\\s+exact\\s+settled\\s+0\\.5 USDC`));
    expect(walletLog.at(-1)).toBe("signMessage seller:payments");
    // On the local chain (the wallet RPC is on loopback) no public explorer sees the transaction: our own view.
    const txLink = page.locator("#payments tbody tr a").first();
    expect(await txLink.getAttribute("href")).toBe(`/console/tx?signature=${settlement.transaction}`);
    const [txPage] = await Promise.all([page.context().waitForEvent("page"), txLink.click()]);
    const txProblems: string[] = [];
    txPage.on("pageerror", (error) => txProblems.push(error.message));
    await expect
      .poll(() => txPage.locator("#status").innerText(), { timeout: 15_000 })
      .toMatch(new RegExp(`^Read from http://127\\.0\\.0\\.1:\\d+ at ${TIME}\\.$`));
    expect(await txPage.locator("#signature").innerText()).toBe(settlement.transaction);
    expect(await txPage.locator("#summary").innerText()).toMatch(
      new RegExp(
        `Status\\s+succeeded[\\s\\S]*Block ` +
          `time\\s+${TIME}[\\s\\S]*Fee ` +
          `payer\\s+${local.feePayer.address}[\\s\\S]*Programs\\s+Compute Budget, SPL Token, Memo$`,
      ),
    ); // the official client's transfer, by name
    // The buyer's 0.5 USDC left its token account and landed in the seller's vault (the vault's token account).
    const changes = await txPage.locator("#changes tbody tr").allInnerTexts();
    expect(changes.filter((row) => /\tUSDC\t/.test(row)).map((row) => row.split("\t")[0])).toEqual(
      expect.arrayContaining(["-0.5", "+0.5"]),
    );
    expect(changes.find((row) => row.startsWith("+0.5\tUSDC\t"))).toContain(`(owner ${snapshot.splitVaultPda})`);
    expect(changes.find((row) => row.startsWith("-0.5\tUSDC\t"))).toContain(`(owner ${buyer.address})`);
    expect(await txPage.locator("#record").innerText()).toMatch(
      new RegExp(
        `State\\s+confirmed\\s+Scheme\\s+exact\\s+Amount\\s+0\\.5 ` +
          `USDC\\s+Payer\\s+${buyer.address}[\\s\\S]*Settled at\\s+${TIME}`,
      ),
    );
    await txPage.screenshot({ path: path.join(SHOTS, "08c-transaction-view.png"), fullPage: true });
    expect(txProblems).toEqual([]);
    await txPage.close();
    expect(await text(page, "#escrow")).toBe("None: no escrow payment is waiting for your delivery.");
    await shot(page, "08-paid");
    await page
      .locator("section", { has: page.locator("#money-heading") })
      .screenshot({ path: path.join(SHOTS, "08b-paid-money-section.png") });

    // An operator sweep (POST /sweep with the token) pays the vault out into the seller's USDC account.
    const sweep = await fetch(`${local.api}/sweep`, {
      method: "POST",
      headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, "Content-Type": "application/json" },
      body: "{}",
    });
    const swept = (await sweep.json()) as any;
    expect(sweep.status, JSON.stringify(swept)).toBe(200);
    await expect
      .poll(() => tokenAccountBalance(local.chain.url, sellerAta), { timeout: 15_000 })
      .toBe(sellerAtaStart + BigInt(quote.sellerNets));
    await page.getByRole("button", { name: "Vault balance and next sweep" }).click();
    await expect.poll(() => text(page, "#balance"), { timeout: 15_000 }).toMatch(/Vault balance\s+0 USDC/);
    expect(await text(page, "#balance")).toMatch(/Next sweep\s+nothing to pay yet/);
    expect(await text(page, "#balance")).toMatch(new RegExp(`Last sweep run\\s+${TIME} · ok`));
    await shot(page, "09-swept");
    await page
      .locator("section", { has: page.locator("#money-heading") })
      .screenshot({ path: path.join(SHOTS, "09b-swept-money-section.png") });

    expect(walletLog.filter((entry) => entry === "signTransaction")).toHaveLength(asksForTokenAccount ? 2 : 1);
    expect(walletLog).not.toContain("signAndSendTransaction");
    expect(problems).toEqual([]);
  }, 240_000);

  it("lets a seller choose the wallet payTo form: no vault, its own token account, registered with the form it " +
    "signed", async () => {
    const walletSeller = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
    await fundFromFaucet(local.chain.url, walletSeller.address, 1_000_000_000);
    const { page, problems } = await consolePage({ width: 1280, height: 900 }, walletSeller);
    await connect(page);
    await expect.poll(() => text(page, "#next-step"), { timeout: 15_000 }).toMatch(/^Next: activate\./);
    await expect
      .poll(() => stepButtons(page))
      .toEqual({ activate: true, register: "disabled: Sign and register", retire: false });

    // Choosing the wallet form: nothing to activate, the wallet's own USDC account is the next step, registering opens.
    await page.getByLabel("How buyers pay you (exact)").selectOption("wallet");
    expect(await text(page, "#next-step")).toMatch(
      /^Next: create your own USDC token account \(button below\)\. With the wallet form buyers pay straight into it/,
    );
    expect((await stepButtons(page)).register).toBe("enabled: Sign and register");
    const [walletAta] = await findAssociatedTokenPda({
      owner: walletSeller.address,
      mint: USDC as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    await page.getByRole("button", { name: "Create my USDC token account" }).click();
    await expect.poll(() => text(page, "#next-step"), { timeout: 60_000 }).toMatch(/^Next: verify\./);
    expect(await tokenAccountBalance(local.chain.url, walletAta)).toBe(0n);
    await shot(page, "12-wallet-form-token-account");

    await page.getByLabel("Your API's origin (service URL)").fill("https://wallet-form.example");
    await page.getByRole("button", { name: "Sign and register", exact: true }).click();
    await expect
      .poll(() => text(page, "#register-status"), { timeout: 20_000 })
      .toMatch(/Verified|verified|Registered/);
    expect(signedMessages.at(-1)!.split("\n").slice(3, 7)).toEqual([
      "action: seller:register",
      `asset: USDC (mint ${USDC})`,
      "payToForm: wallet",
      "serviceUrl: https://wallet-form.example/",
    ]);
    const entry = ((await (await fetch(`${local.api}/providers/${walletSeller.address}`)).json()) as any).entry;
    expect(entry).toMatchObject({
      walletPubkey: walletSeller.address,
      payToForm: "wallet",
      splMint: USDC,
      serviceUrl: "https://wallet-form.example",
    });
    expect(entry.splitVaultPda).toBeUndefined();
    await shot(page, "13-wallet-form-registered");
    expect(problems).toEqual([]);
  }, 120_000);

  it("on the local chain, a wallet that can only sign and send (through its own RPC, the real devnet) is told so, " +
    "and nothing is sent", async () => {
    const { page, problems } = await consolePage({ width: 1280, height: 900 });
    await page.goto(`${local.worker.url}/console`);
    const stranger = await createKeyPairSignerFromPrivateKeyBytes(crypto.getRandomValues(new Uint8Array(32)));
    await page.evaluate(
      ({ address, publicKey }) => {
        const account = { address, publicKey: new Uint8Array(publicKey), chains: ["solana:devnet"], features: [] };
        (window as unknown as { __sendOnlyCalls: number }).__sendOnlyCalls = 0;
        const wallet = {
          version: "1.0.0",
          name: "Send-only Wallet",
          icon: "data:image/svg+xml;base64,PHN2Zy8+",
          chains: ["solana:devnet"],
          accounts: [account],
          features: {
            "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [account] }) },
            "solana:signMessage": { version: "1.0.0", signMessage: async () => [] },
            "solana:signAndSendTransaction": {
              version: "1.0.0",
              signAndSendTransaction: async () => {
                (window as unknown as { __sendOnlyCalls: number }).__sendOnlyCalls++;
                return [];
              },
            },
          },
        };
        window.dispatchEvent(
          new CustomEvent("wallet-standard:register-wallet", {
            detail: ({ register }: { register: (w: unknown) => void }) => register(wallet),
          }),
        );
      },
      { address: stranger.address, publicKey: Array.from(getBase58Encoder().encode(stranger.address)) },
    );
    await page.getByRole("button", { name: "Connect Send-only Wallet" }).click();
    await expect.poll(() => text(page, "#next-step"), { timeout: 15_000 }).toMatch(/^Next: activate\./);
    await page.getByRole("button", { name: "Activate with my wallet" }).click();
    await expect
      .poll(() => text(page, "#activate-status"), { timeout: 15_000 })
      .toMatch(
        new RegExp(
          "^Failed: Send-only Wallet can only sign and send through its own RPC, which is the real devnet, " +
            String.raw`not this local chain \(http:\/\/127\.0\.0\.1:\d+\/?\): nothing was sent\.`,
        ),
      );
    expect(await page.evaluate(() => (window as unknown as { __sendOnlyCalls: number }).__sendOnlyCalls)).toBe(0);
    expect(problems).toEqual([]);
  }, 90_000);

  it("works at phone width, by keyboard, with labelled controls and readable contrast", async () => {
    const { page, problems } = await consolePage({ width: 390, height: 844 });
    await page.goto(`${local.worker.url}/console`);
    await expect.poll(() => page.locator("#wallets button").count(), { timeout: 10_000 }).toBe(1);
    // Keyboard only: Tab to the wallet's button and press Enter.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate(() => document.activeElement?.textContent ?? "")) === "Connect Test Wallet") break;
    }
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Connect Test Wallet");
    await page.keyboard.press("Enter");
    await expect.poll(() => text(page, "#wallet-status"), { timeout: 15_000 }).toBe("Connected to Test Wallet.");
    await expect.poll(() => text(page, "#next-step"), { timeout: 15_000 }).not.toBe("");
    expect(await page.locator("#wallets").isHidden()).toBe(true);

    const audit = await page.evaluate(() => {
      const unlabelled = [...document.querySelectorAll("input, select, textarea")]
        .filter((field) => (field as HTMLInputElement).labels?.length === 0)
        .map((field) => field.id);
      const nameless = [...document.querySelectorAll("button")].filter(
        (button) => !button.hidden && (button.textContent ?? "").trim() === "",
      ).length;
      const luminance = (color: string) => {
        const [r, g, b] = (color.match(/[\d.]+/g) ?? [])
          .slice(0, 3)
          .map(Number)
          .map((v) => v / 255)
          .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const background = luminance(
        getComputedStyle(document.body).backgroundColor.includes("0)")
          ? "rgb(255,255,255)"
          : getComputedStyle(document.body).backgroundColor,
      );
      const ratio = (selector: string) => {
        const node = document.querySelector(selector);
        if (!node) return null;
        const l = luminance(getComputedStyle(node).color);
        return (Math.max(l, background) + 0.05) / (Math.min(l, background) + 0.05);
      };
      return {
        unlabelled,
        nameless,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        wide: [
          document.documentElement.scrollWidth,
          document.body.scrollWidth,
          window.innerWidth,
          ...[...document.querySelectorAll("body *")]
            .filter(
              (node) =>
                !node.parentElement?.closest(".scroll") &&
                (node.getBoundingClientRect().right > window.innerWidth + 1 || node.scrollWidth > window.innerWidth),
            )
            .map((node) => node.tagName + "#" + node.id + "." + node.className + ":" + node.scrollWidth)
            .slice(0, 12),
        ],
        contrast: { body: ratio("main p"), next: ratio("#next-step"), muted: ratio(".crumbs") },
      };
    });
    expect(audit.unlabelled).toEqual([]);
    expect(audit.nameless).toBe(0);
    expect(audit.overflow, audit.wide.join(" ")).toBeLessThanOrEqual(0); // no sideways scrolling at 390 px
    for (const [what, ratio] of Object.entries(audit.contrast)) expect(ratio, what).toBeGreaterThanOrEqual(4.5);
    // The settlements table stacks each row at this width: every column, named, on screen (none hidden off to the
    // right).
    await page.getByRole("button", { name: "Sign and show recent payments" }).click();
    await expect
      .poll(() => page.locator("#payments tbody td[data-label]").count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    const cells = await page
      .locator("#payments tbody tr")
      .first()
      .evaluate((row) =>
        [...row.querySelectorAll("td")].map((td) => ({
          label: td.dataset.label,
          shown: getComputedStyle(td, "::before").content !== "none",
          right: Math.round(td.getBoundingClientRect().right),
        })),
      );
    expect(cells.map((cell) => [cell.label, cell.shown])).toEqual(
      ["When", "Scheme", "Outcome", "Amount", "Payer", "Transaction"].map((label) => [label, true]),
    );
    for (const cell of cells) expect(cell.right, `${cell.label} ends at ${cell.right} px`).toBeLessThanOrEqual(390);
    await shot(page, "10-phone-390px");

    const home = await page.context().newPage();
    await home.goto(`${local.worker.url}/`);
    await expect.poll(() => home.locator("#listing li").count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const homeOverflow = await home.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      wide: [...document.querySelectorAll("body *")]
        .filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1)
        .map((node) => node.tagName + "#" + node.id),
    }));
    expect(homeOverflow.overflow, homeOverflow.wide.join(" ")).toBeLessThanOrEqual(0);
    await home.screenshot({ path: path.join(SHOTS, "11-home-phone-390px.png"), fullPage: true });
    expect(problems).toEqual([]);
  }, 90_000);
});
