/**
 * `npm run demo`: one paid request, end to end, against a running `npm start`.
 *
 *   PORT, LOCALNET_PORT  where `npm start` serves, read as it reads them (scripts/lib/local-ports.ts): 8787, 8899
 *   FACILITATOR_URL   default http://127.0.0.1:$PORT (origin, or the full .../api/v1/facilitator base)
 *   SOLANA_RPC_URL    default http://127.0.0.1:$LOCALNET_PORT (the local chain: the buyer funds itself from its faucet)
 *   DEMO_HEADER=json  send PAYMENT-SIGNATURE as raw JSON instead of base64 JSON
 *
 * 1. a fresh seller activates its vault (POST /sellers/provision-tx, signed with its wallet, funded from the faucet)
 *    and starts a small seller server (demo/seller-server.ts) on a free loopback port: its 402 body is enriched;
 * 2. a fresh buyer funds itself (SOL + USDC) from the local faucet;
 * 3. the buyer requests the resource, gets the 402, builds the payment with /build-exact-payment-tx, signs it locally
 *    and sends the filled verifyBodyTemplate in PAYMENT-SIGNATURE;
 * 4. the seller settles through the facilitator and returns the resource with PAYMENT-RESPONSE;
 * 5. the operator sweeps (POST /sweep): the seller's USDC account receives the price minus the fee.
 * With `--escrow` it runs the sla-escrow rail instead (demo/escrow.ts): fund → deliver → approve → released by the keeper.
 * With `--upto` it runs the usage-based rail (demo/upto.ts): the official upto seller and buyer, deposit → claim of what
 * was used → the rest back, then a cancelled payment.
 * Exit code 0 on success, 1 with a message otherwise.
 */
import { generateKeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { localnetUrl, workerOrigin } from "../scripts/lib/local-ports";
import { CLUSTERS } from "../src/platform/config/networks";
import { activateSellerVault } from "./activate-seller";
import { payWithBuildEndpoint } from "./build-endpoint-buyer";
import { chainRpc, fundFromFaucet, RpcCallError, signatureStatus, tokenAccountBalance } from "./chain-rpc";
import { runEscrowDemo } from "./escrow";
import { type RunningSellerServer, startSellerServer } from "./seller-server";
import { createOwnTokenAccount, sweepSeller } from "./sweep-step";
import { runUptoDemo } from "./upto";

const API_PATH = "/api/v1/facilitator";
const PRICE_RAW = "250000"; // 0.25 USDC
const BUYER_USDC_RAW = 1_000_000n; // 1 USDC
const BUYER_LAMPORTS = 100_000_000; // 0.1 SOL (the facilitator pays network fees; this is only pocket money)
const SELLER_LAMPORTS = 100_000_000; // 0.1 SOL: the seller pays its own vault's rent and activation fee

class DemoError extends Error {}

function facilitatorApiBase(raw: string): string {
  const trimmed = raw.replace(/\/+$/, "");
  return trimmed.endsWith(API_PATH) ? trimmed : `${trimmed}${API_PATH}`;
}

async function main(): Promise<void> {
  const { facilitatorApi, rpcUrl } = demoTargets();
  const headerEncoding = process.env.DEMO_HEADER === "json" ? "json" : "base64";

  // The facilitator and the chain must be up: fail early with a hint instead of a stack trace.
  const health = await getJson(`${facilitatorApi}/health`).catch((error: unknown) => {
    throw new DemoError(
      `cannot reach the facilitator at ${facilitatorApi} (${describe(error)}). Is \`npm start\` running ` +
        "(with the same PORT, or FACILITATOR_URL set to where it runs)?",
    );
  });
  const network = String(health.network ?? "");
  const cluster = Object.values(CLUSTERS).find((c) => c.network === network);
  if (!cluster) throw new DemoError(`the facilitator reports network "${network}", which this demo does not know`);
  await chainRpc(rpcUrl, "getHealth", [], 5_000).catch((error: unknown) => {
    throw new DemoError(
      `cannot reach the Solana RPC at ${rpcUrl} (${describe(error)}). Is \`npm start\` running ` +
        "(with the same LOCALNET_PORT, or SOLANA_RPC_URL set to its local chain)?",
    );
  });
  console.log(`facilitator   ${facilitatorApi}  (${network}, fee payer ${String(health.feePayer ?? "?")})`);
  console.log(`solana rpc    ${rpcUrl}`);
  if (process.argv.includes("--escrow")) {
    await runEscrowDemo({
      facilitatorApi,
      rpcUrl,
      network,
      usdcMint: cluster.usdcMint,
      log: (line) => console.log(line),
    });
    console.log("demo: OK");
    return;
  }
  if (process.argv.includes("--upto")) {
    await runUptoDemo({
      facilitatorApi,
      rpcUrl,
      network,
      usdcMint: cluster.usdcMint,
      log: (line) => console.log(line),
    });
    console.log("demo: OK");
    return;
  }

  const sellerWallet = await generateKeyPairSigner();
  await fundFromFaucet(rpcUrl, sellerWallet.address, SELLER_LAMPORTS);
  await activateSellerVault({ facilitatorApi, rpcUrl, seller: sellerWallet, asset: "USDC" });
  console.log(`seller vault  activated by the seller (sovereign fee tier)`);
  const sellerUsdcAccount = await createOwnTokenAccount(rpcUrl, sellerWallet, cluster.usdcMint);
  console.log(`seller USDC   ${sellerUsdcAccount} created by the seller (sweeps pay into it, never create it)`);
  let seller: RunningSellerServer | null = null;
  try {
    seller = await startSellerServer({
      facilitatorUrl: facilitatorApi,
      sellerWallet: sellerWallet.address,
      network,
      asset: cluster.usdcMint,
      amount: PRICE_RAW,
      description: "A demo report, 0.25 USDC",
      content: { report: "x402 demo report", generatedAt: new Date().toISOString(), answer: 42 },
      log: (line) => console.log(`  ${line}`),
    });
    const line = seller.paymentRequired.accepts[0]!;
    console.log(`seller        ${seller.url}  (wallet ${sellerWallet.address}, vault ${line.payTo})`);

    const buyer = await generateKeyPairSigner();
    try {
      await fundFromFaucet(rpcUrl, buyer.address, BUYER_LAMPORTS, BUYER_USDC_RAW);
    } catch (error) {
      if (
        error instanceof RpcCallError &&
        /method not found|not supported|-32601/i.test(`${error.message} ${error.code}`)
      ) {
        throw new DemoError(
          `${rpcUrl} has no local faucet (${error.method}); the demo needs the local chain of \`npm start\``,
        );
      }
      throw error;
    }
    console.log(`buyer         ${buyer.address}  (funded: 0.1 SOL, 1 USDC from the local faucet)`);

    const paid = await payWithBuildEndpoint({
      resourceUrl: seller.url,
      facilitatorApi,
      buyer,
      network,
      headerEncoding,
      log: (text) => console.log(`  buyer: ${text}`),
    });
    if (paid.status !== 200) {
      throw new DemoError(`the paid request answered ${paid.status}: ${paid.body.slice(0, 400)}`);
    }
    const settlement = paid.paymentResponse;
    if (!settlement?.success || !settlement.transaction)
      throw new DemoError("the seller answered 200 without a successful PAYMENT-RESPONSE");
    const status = await signatureStatus(rpcUrl, settlement.transaction);
    if (!status || status.err !== null)
      throw new DemoError(`settlement ${settlement.transaction} is not confirmed on chain (${JSON.stringify(status)})`);

    const [vaultAta] = await findAssociatedTokenPda({
      owner: line.payTo as never,
      mint: cluster.usdcMint as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const vaultBalance = await tokenAccountBalance(rpcUrl, vaultAta);
    console.log(`\nresource      ${paid.body}`);
    console.log(`settlement    ${settlement.transaction}  (${status.confirmationStatus}, slot ${status.slot})`);
    console.log(
      `vault USDC    ${vaultAta} holds ${vaultBalance ?? 0n} raw units (price ${PRICE_RAW}); PAYMENT-SIGNATURE sent as ${headerEncoding}`,
    );

    const swept = await sweepSeller(facilitatorApi, sellerWallet.address);
    const [sellerAta] = await findAssociatedTokenPda({
      owner: sellerWallet.address,
      mint: cluster.usdcMint as never,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    const sellerBalance = (await tokenAccountBalance(rpcUrl, sellerAta)) ?? 0n;
    if (sellerBalance <= 0n) throw new DemoError(`the sweep ${swept.signature} left the seller's USDC account empty`);
    console.log(`sweep         ${swept.signature}  (fee payer spent ${swept.lamportsSpent} lamports)`);
    console.log(
      `seller USDC   ${sellerAta} holds ${sellerBalance} raw units (price ${PRICE_RAW} minus the facilitator fee)`,
    );
    console.log("demo: OK");
  } finally {
    await seller?.close();
  }
}

/** The facilitator and chain to use: FACILITATOR_URL and SOLANA_RPC_URL, else where `npm start` serves them. */
function demoTargets(): { facilitatorApi: string; rpcUrl: string } {
  try {
    return {
      facilitatorApi: facilitatorApiBase(process.env.FACILITATOR_URL || workerOrigin()),
      rpcUrl: (process.env.SOLANA_RPC_URL || localnetUrl()).replace(/\/+$/, ""),
    };
  } catch (error) {
    throw new DemoError(error instanceof Error ? error.message : String(error));
  }
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    return cause?.code ?? error.message;
  }
  return String(error);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(
      `\ndemo failed: ${error instanceof DemoError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  },
);
