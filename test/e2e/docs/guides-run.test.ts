/**
 * A newcomer's first paid request, timed, and every line of code the guides give, run as written.
 *
 * The newcomer reads only README.md and the seller guide: a fresh clone (test/support/node/newcomer.ts says what that
 * is here and why node_modules is linked, not installed again), the README's `npm start`, the seller guide's
 * `activate.ts` (a new wallet, activated from the guide's own block) and `seller.ts` (the official middleware) in a
 * project of their own, then the buyer guide's official-client buyer, funded with the README's `npm run faucet`: one
 * paid request. Its wall time is printed and saved in test-artifacts/newcomer-run.json (docs/running-locally.md
 * states it). Then, against the same `npm start`: the reference seller, the buyer without an x402 library, the `upto`
 * seller and buyer, refusals that say why (a seller that did not activate, a buyer that cannot pay), and a restart of
 * `npm start` after which the same seller is paid again (the chain and its database kept together).
 * Real: the local chain and the Worker as `npm start` runs them, the official packages, separate processes over HTTP.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freeLoopbackPort } from "../../../scripts/lib/free-port";
import { randomKeypair } from "../../../scripts/lib/keypair";
import {
  freshClone,
  type LongRunning,
  newcomerMachine,
  ownProject,
  REPOSITORY,
  runToEnd,
  startUntil,
} from "../../support/node/newcomer";

const machine = newcomerMachine();
const running: LongRunning[] = [];
const READY = /Ctrl-C stops the Worker/;
const START_TIMEOUT_MS = 300_000;

let clone = "";
let origin = "";
let localnetPort = 0;
let facilitatorPort = 0;
let npmStart: LongRunning;
let sellerGuide = "";
let buyerGuide = "";
let sellerProject = "";
let buyerProject = "";
let sellerWallet = "";
let middlewareSeller: { url: string; process: LongRunning };
let referenceSeller: { url: string; process: LongRunning };
/** The buyer's key as a solana-keygen file holds it (a JSON array), as the buyer guide allows. */
let buyerKeyJson = "";
let buyerAddress = "";

afterAll(async () => {
  for (const process of running.reverse()) await process.stop();
  machine.remove();
}, 60_000);

/** The fenced `ts example=<name>` block of a guide. */
function example(markdown: string, name: string): string {
  const match = markdown.match(new RegExp("^```ts example=" + name + "\\n([\\s\\S]*?)^```$", "m"));
  if (!match) throw new Error(`the guide has no ts example=${name} block`);
  return match[1]!;
}

/** Saves a guide's block in a project, replacing only what the guide tells the reader to replace. */
function saveAs(project: string, file: string, code: string, replacements: Record<string, string> = {}): string {
  let text = code;
  for (const [from, to] of Object.entries(replacements)) text = text.replaceAll(from, to);
  writeFileSync(path.join(project, file), text);
  return file;
}

/**
 * `npx tsx <file>` in a project, to its end (the limit ends a hang; a loaded machine took 400 s for the whole file).
 */
const tsx = (project: string, file: string, env: Record<string, string> = {}) =>
  runToEnd({ command: "npx", args: ["tsx", file], cwd: project, env }, 600_000);

/** A seller script started with `npx tsx`, on its own port, once it says it listens. */
async function startSeller(file: string, route: string): Promise<{ url: string; process: LongRunning }> {
  const port = await freeLoopbackPort();
  const process = await startUntil(
    { command: "npx", args: ["tsx", file], cwd: sellerProject, env: { PORT: String(port) } },
    /listening/,
    300_000,
  );
  running.push(process);
  return { url: `http://127.0.0.1:${port}${route}`, process };
}

/** `npm start` in the clone, as the README says, on ports of its own. */
async function startFacilitator(): Promise<LongRunning> {
  const started = await startUntil(
    {
      command: "npm",
      args: ["start"],
      cwd: clone,
      env: { PORT: String(facilitatorPort), LOCALNET_PORT: String(localnetPort) },
    },
    READY,
    START_TIMEOUT_MS,
  );
  running.push(started);
  return started;
}

/** The README's faucet, run in the clone against the chain `npm start` runs. */
async function faucet(wallet: string, amount: string): Promise<void> {
  const { code, output } = await runToEnd({
    command: "npm",
    args: ["run", "faucet", "--", wallet, amount],
    cwd: clone,
    env: { LOCALNET_PORT: String(localnetPort) },
  });
  expect(code, output).toBe(0);
}

/** The buyer guide's block `name`, paying `url` with the buyer's key. */
async function pay(name: string, url: string, key = buyerKeyJson): Promise<{ code: number | null; output: string }> {
  return tsx(buyerProject, saveAs(buyerProject, `${name}.ts`, example(buyerGuide, name)), {
    BUYER_SECRET_KEY: key,
    URL_TO_PAY: url,
  });
}

describe("a newcomer, from a fresh clone to a paid request of their own API", () => {
  it("clone → npm start → activate.ts → seller.ts → the official buyer: paid, and timed", async () => {
    const startedAtMs = Date.now();
    const loadBefore = loadavg()[0]!;
    clone = freshClone(machine.root);
    [facilitatorPort, localnetPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    npmStart = await startFacilitator();
    expect(npmStart.output()).toContain("a new chain, kept with its database");
    const npmStartReadyMs = Date.now() - startedAtMs;
    origin = `http://127.0.0.1:${facilitatorPort}`;
    const health = (await (await fetch(`${origin}/api/v1/facilitator/health`)).json()) as { solanaRpc: string };
    expect(health.solanaRpc).toBe("connected");

    // The seller guide, served by this instance with its own origin, network and RPC filled in.
    sellerGuide = await (await fetch(`${origin}/seller-quick-start.md`)).text();
    buyerGuide = await (await fetch(`${origin}/quickstart-buyer.md`)).text();
    expect(sellerGuide).not.toContain("{{");
    expect(buyerGuide).not.toContain("{{");
    sellerProject = ownProject(machine.root, "my-api");
    const activation = await tsx(
      sellerProject,
      saveAs(sellerProject, "activate.ts", example(sellerGuide, "seller-activate")),
    );
    expect(activation.code, activation.output).toBe(0);
    const printed = activation.output.match(/^wallet {2}(\S+)\npayTo {3}(\S+) {2}\(your vault: Sovereign\)$/m);
    expect(printed, activation.output).not.toBeNull();
    sellerWallet = printed![1]!;
    const again = await tsx(sellerProject, "activate.ts");
    expect(again.output, "activating again is harmless").toContain(`payTo   ${printed![2]}`);

    middlewareSeller = await startSeller(
      saveAs(sellerProject, "seller.ts", example(sellerGuide, "seller-hono"), { "<YOUR_WALLET>": sellerWallet }),
      "/weather",
    );
    expect(middlewareSeller.process.output()).toContain(`payTo ${printed![2]}`);

    buyerProject = ownProject(machine.root, "my-buyer");
    const buyer = randomKeypair();
    buyerKeyJson = JSON.stringify([...buyer.secretKey]);
    buyerAddress = buyer.address;
    await faucet(buyer.address, "10");
    const paid = await pay("buyer-x402-fetch", middlewareSeller.url);
    expect(paid.code, paid.output).toBe(0);
    expect(paid.output, paid.output).toMatch(/^200 \{"weather":"sunny"\}/m);

    const seconds = (Date.now() - startedAtMs) / 1000;
    const report = {
      firstPaidRequestSeconds: Math.round(seconds),
      npmStartReadySeconds: Math.round(npmStartReadyMs / 1000),
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg()[0],
      measuredAt: new Date().toISOString(),
      note:
        "fresh clone (tracked files) → npm start → activate.ts → seller.ts → buyer: machine time, npm install " +
        "not included",
    };
    mkdirSync(path.join(REPOSITORY, "test-artifacts"), { recursive: true });
    writeFileSync(path.join(REPOSITORY, "test-artifacts/newcomer-run.json"), `${JSON.stringify(report, null, 2)}\n`);
    console.log(
      `newcomer run: clone → first paid request in ${report.firstPaidRequestSeconds} s ` +
        `(npm start ready ` +
        `after ${report.npmStartReadySeconds} s; ` +
        `load ${loadBefore.toFixed(2)} → ${report.loadAverageAfter!.toFixed(2)})`,
    );
  }, 900_000);
});

describe("the guides' code, run as written against that npm start", () => {
  it("the reference seller and the buyer without an x402 library: every seller paid by every buyer", async () => {
    referenceSeller = await startSeller(
      saveAs(sellerProject, "seller-reference.ts", example(sellerGuide, "seller-reference"), {
        "<YOUR_WALLET>": sellerWallet,
      }),
      "/weather",
    );
    // One buyer with a base58 key (what wallet apps export), as the guide allows too.
    const base58Buyer = randomKeypair();
    await faucet(base58Buyer.address, "10");
    for (const [buyerExample, seller] of [
      ["buyer-no-sdk", middlewareSeller.url],
      ["buyer-no-sdk", referenceSeller.url],
      ["buyer-x402-fetch", referenceSeller.url],
    ] as const) {
      const paid = await pay(buyerExample, seller, base58Buyer.secretKeyBase58);
      expect(paid.code, `${buyerExample} → ${seller}: ${paid.output}`).toBe(0);
      expect(paid.output, paid.output).toMatch(/^200 \{"weather":"sunny"\}/m);
    }
  }, 600_000);

  it("usage-based: the upto seller is paid what it used by the upto buyer, the rest back", async () => {
    await faucet(sellerWallet, "0.000001"); // the guide: the seller's own USDC account must exist before a sale
    const upto = await startSeller(
      saveAs(sellerProject, "seller-upto.ts", example(sellerGuide, "seller-upto"), { "<YOUR_WALLET>": sellerWallet }),
      "/generate",
    );
    const paid = await pay("buyer-upto", upto.url);
    expect(paid.code, paid.output).toBe(0);
    expect(paid.output, paid.output).toMatch(/^200 \{"text":"Once upon a time…"\} \(charged 512345 raw units; /m);
  }, 600_000);

  it("refusals say why: a seller that has not activated does not start, a buyer who cannot pay hears the " +
    "reason", async () => {
    const notActivated = randomKeypair().address;
    const refused = await tsx(
      sellerProject,
      saveAs(sellerProject, "seller-not-activated.ts", example(sellerGuide, "seller-hono"), {
        "<YOUR_WALLET>": notActivated,
      }),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`no payTo for ${notActivated}: No payTo yet: the vault`);
    expect(refused.output).toContain("Activate it: POST /api/v1/facilitator/sellers/provision-tx");

    // A buyer without the money: refused at /verify (middleware) or /settle (reference), and both sides are told why.
    const penniless = JSON.stringify([...randomKeypair().secretKey]);
    for (const seller of [middlewareSeller, referenceSeller]) {
      const unpaid = await pay("buyer-x402-fetch", seller.url, penniless);
      expect(unpaid.output, unpaid.output).toMatch(/^402 .*\(refused: [a-z_]+: .+\)$/m);
      expect(seller.process.output()).toMatch(/payment refused: [a-z_]+: .+/);
    }
  }, 600_000);

  it("the seller guide's manifest route proves the origin and lists the resource", async () => {
    const sellerOrigin = new URL(middlewareSeller.url).origin;
    const manifest = (await (await fetch(`${sellerOrigin}/.well-known/x402-resources.json`)).json()) as {
      merchantWallet: string;
      resources: { resourceUrl: string }[];
    };
    expect(manifest.merchantWallet).toBe(sellerWallet);
    expect(manifest.resources[0]?.resourceUrl).toBe(`${sellerOrigin}/weather`);
  });

  it("npm start again (Ctrl-C, then the same command): the chain and the database are as they were, the seller is " +
    "paid again", async () => {
    await npmStart.stop();
    npmStart = await startFacilitator();
    expect(npmStart.output()).toMatch(/the chain of the last run, begun \S+, with its database: \d+ accounts/);
    const preview = (await (await fetch(`${origin}/api/v1/facilitator/sellers/${sellerWallet}/preview`)).json()) as {
      lifecycle: { activated: boolean };
      schemes: { exact: { status: string } };
    };
    expect(preview.lifecycle.activated).toBe(true);
    expect(preview.schemes.exact.status).toBe("Sovereign");
    const paid = await pay("buyer-x402-fetch", middlewareSeller.url);
    expect(paid.code, paid.output).toBe(0);
    expect(paid.output, paid.output).toMatch(/^200 \{"weather":"sunny"\}/m);
    const history = await fetch(`http://127.0.0.1:${localnetPort}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSignaturesForAddress", params: [buyerAddress] }),
    });
    // The buyer's first payment, before the restart, is still on the chain beside the new one.
    expect(((await history.json()) as { result: unknown[] }).result.length).toBeGreaterThanOrEqual(3);
  }, 600_000);
});
