/**
 * The official x402 reference facilitator for the benchmark: @x402/core x402Facilitator + @x402/svm ExactSvmScheme and
 * UptoSvmScheme (facilitator side) in one Node process, behind a minimal node:http server with the same /verify and
 * /settle body as ours ({x402Version, paymentPayload, paymentRequirements}) and GET /supported (what the official
 * seller middleware reads at start, so the upto e2e can run against it too). Both sides are then measured the same way:
 * over HTTP on loopback, each in its own process.
 *
 * Environment: REF_RPC_URL (the chain), REF_FEE_PAYER_SECRET_KEY (64-byte keypair, base58). Prints one JSON line
 * {"url": ...} once listening; stops on SIGTERM/SIGINT or when its parent closes stdin.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { base58 } from "@scure/base";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { x402Facilitator } from "@x402/core/facilitator";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { UptoSvmScheme } from "@x402/svm/upto/facilitator";
import { CLUSTERS } from "../src/platform/config/networks";

const rpcUrl = process.env.REF_RPC_URL;
const secret = process.env.REF_FEE_PAYER_SECRET_KEY;
if (!rpcUrl || !secret) throw new Error("REF_RPC_URL and REF_FEE_PAYER_SECRET_KEY are required");

const signer = toFacilitatorSvmSigner(await createKeyPairSignerFromBytes(base58.decode(secret)), {
  defaultRpcUrl: rpcUrl,
});
const facilitator = new x402Facilitator()
  .register(CLUSTERS.devnet.network as Network, new ExactSvmScheme(signer))
  .register(CLUSTERS.devnet.network as Network, new UptoSvmScheme(signer));

async function readJson(
  request: IncomingMessage,
): Promise<{ paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/supported") {
    response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(facilitator.getSupported()));
    return;
  }
  const kind = request.url === "/verify" ? "verify" : request.url === "/settle" ? "settle" : null;
  if (request.method !== "POST" || kind === null) {
    response.writeHead(404).end();
    return;
  }
  readJson(request)
    .then(
      (body): Promise<unknown> =>
        kind === "verify"
          ? facilitator.verify(body.paymentPayload, body.paymentRequirements)
          : facilitator.settle(body.paymentPayload, body.paymentRequirements),
    )
    .then(
      (result) => response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(result)),
      (error: unknown) =>
        response.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: String(error) })),
    );
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});

const shutdown = () => {
  server.close();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
process.stdin.on("end", shutdown);
process.stdin.on("error", shutdown);
process.stdin.resume();
