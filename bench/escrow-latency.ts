/**
 * `npm run bench:escrow`: build and verify latency of the sla-escrow rail next to the exact rail's, over real HTTP to
 * the Worker under wrangler with the local chain. Sequential calls (c=1), one fresh funded buyer per payment; for each
 * rail: POST /build-…-payment-tx, the buyer signs locally, POST /verify. Rate limits are off for the run.
 * A benchmark, not a test: numbers on a shared machine are noisy (report `uptime` with them).
 */
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { activateSellerVault } from "../demo/activate-seller";
import { fundFromFaucet } from "../demo/chain-rpc";
import { startLocalnet } from "../localnet/server";
import { labelledKeypair, randomKeypair } from "../scripts/lib/keypair";
import { startWorker } from "../scripts/lib/run-worker";
import { CLUSTERS } from "../src/platform/config/networks";
import { fmt, formatTable, median, percentile } from "./measure";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const USDC = CLUSTERS.devnet.usdcMint;
const NETWORK = CLUSTERS.devnet.network;

async function main(): Promise<void> {
  const chain = await startLocalnet({ port: 0, quiet: true });
  const feePayer = randomKeypair();
  await fundFromFaucet(chain.url, feePayer.address, 100_000_000_000);
  const worker = await startWorker({
    rpcUrl: chain.url,
    feePayerSecretKeyBase58: feePayer.secretKeyBase58,
    vars: { SVC_RATE_LIMITS_ENABLED: "false" },
  });
  const api = `${worker.url}/api/v1/facilitator`;
  try {
    const seller = await generateKeyPairSigner();
    await fundFromFaucet(chain.url, seller.address, 1_000_000_000);
    await activateSellerVault({ facilitatorApi: api, rpcUrl: chain.url, seller, asset: "USDC" });
    const naive = (scheme: string, maxTimeoutSeconds: number) => ({
      scheme,
      network: NETWORK,
      asset: USDC,
      amount: "1000000",
      payTo: seller.address,
      maxTimeoutSeconds,
    });
    const enriched = await post<Enriched>(api, "/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/x" },
      accepts: [naive("exact", 60), naive("sla-escrow", 3_600)],
    });
    const [exactLine, escrowLine] = enriched.accepts;
    const oracle = labelledKeypair("x402-facilitator/local/oracle").address;

    const rails = {
      exact: (payer: string) => post<Built>(api, "/build-exact-payment-tx", { payer, accepted: exactLine }),
      "sla-escrow": (payer: string) =>
        post<Built>(api, "/build-sla-escrow-payment-tx", {
          payer,
          accepted: escrowLine,
          slaHash: "ab".repeat(32),
          oracleAuthority: oracle,
        }),
    };
    const rows: string[][] = [];
    for (const [rail, build] of Object.entries(rails)) {
      const buildMs: number[] = [];
      const verifyMs: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const buyer = await generateKeyPairSigner();
        await fundFromFaucet(chain.url, buyer.address, 100_000_000, 2_000_000);
        let started = performance.now();
        const built = await build(buyer.address);
        buildMs.push(performance.now() - started);
        const body = built.verifyBodyTemplate;
        body.paymentPayload.payload.transaction = await sign(built.transaction, buyer);
        started = performance.now();
        const verdict = await post<{ isValid?: boolean }>(api, "/verify", body);
        verifyMs.push(performance.now() - started);
        if (verdict.isValid !== true)
          throw new Error(`${rail} verify refused a built payment: ${JSON.stringify(verdict)}`);
      }
      rows.push([
        rail,
        fmt(median(buildMs)),
        fmt(percentile(buildMs, 95)),
        fmt(median(verifyMs)),
        fmt(percentile(verifyMs, 95)),
      ]);
    }
    console.log(`\n${SAMPLES} payments per rail, sequential (c=1), milliseconds over HTTP:\n`);
    console.log(formatTable(["rail", "build p50", "build p95", "verify p50", "verify p95"], rows));
  } finally {
    await worker.stop();
    await chain.close();
  }
}

/** The parts of the facilitator's answers this bench reads. */
interface Enriched {
  accepts: unknown[];
}
interface Built {
  transaction: string;
  verifyBodyTemplate: { paymentPayload: { payload: { transaction: string } } };
}

async function post<Answer>(api: string, path: string, json: unknown): Promise<Answer> {
  const response = await fetch(api + path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(json),
  });
  const body = await response.json();
  if (!response.ok && path !== "/verify")
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body as Answer;
}

async function sign(base64: string, signer: KeyPairSigner): Promise<string> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([signer.keyPair], tx));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
