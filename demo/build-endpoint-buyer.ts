/**
 * The buyer's path of docs/facilitator-spec.md §1 without any x402 client library: read the 402, ask the facilitator's
 * /build-exact-payment-tx for an unsigned transaction, sign it locally at `payerSignatureIndex`, put it into
 * `verifyBodyTemplate` and send the template to the seller in PAYMENT-SIGNATURE.
 */
import {
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  type SignatureBytes,
  signBytes,
  type Transaction,
} from "@solana/kit";

export interface PaidResource {
  /** HTTP status of the paid request (200 on success). */
  status: number;
  /** The response body as text. */
  body: string;
  /** Decoded PAYMENT-RESPONSE, when the seller sent one. */
  paymentResponse: {
    success: boolean;
    transaction: string;
    payer?: string;
    network?: string;
    errorReason?: string;
  } | null;
  /** The accepts[] line the buyer chose. */
  accepted: Record<string, unknown>;
  /** The build response's notes (human guidance from the facilitator). */
  notes: string[];
}

export interface BuildEndpointBuyerOptions {
  resourceUrl: string;
  /** Facilitator API base, e.g. http://127.0.0.1:8787/api/v1/facilitator. */
  facilitatorApi: string;
  buyer: KeyPairSigner;
  /** CAIP-2 network the buyer pays on (chooses the accepts[] line). */
  network: string;
  /** How PAYMENT-SIGNATURE is encoded: base64 JSON (default, x402 v2) or raw JSON (accepted by the reference seller). */
  headerEncoding?: "base64" | "json";
  log?: (line: string) => void;
  timeoutMs?: number;
}

export class BuyerFlowError extends Error {
  override name = "BuyerFlowError";
}

export async function payWithBuildEndpoint(options: BuildEndpointBuyerOptions): Promise<PaidResource> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 30_000;

  // 1. The unpaid request: a 402 with the PaymentRequired body (header PAYMENT-REQUIRED, or the JSON body).
  const unpaid = await fetch(options.resourceUrl, { signal: AbortSignal.timeout(timeoutMs) });
  const unpaidText = await unpaid.text();
  if (unpaid.status !== 402)
    throw new BuyerFlowError(
      `expected 402 from ${options.resourceUrl}, got ${unpaid.status}: ${unpaidText.slice(0, 200)}`,
    );
  const paymentRequired = readPaymentRequired(unpaid.headers.get("PAYMENT-REQUIRED"), unpaidText);
  const accepted = paymentRequired.accepts.find(
    (line) => (line.scheme === "exact" || line.scheme === "v2:solana:exact") && line.network === options.network,
  );
  if (!accepted) throw new BuyerFlowError(`the 402 offers no exact line on ${options.network}`);
  log(`402 received: pay ${String(accepted.amount)} of ${String(accepted.asset)} to vault ${String(accepted.payTo)}`);

  // 2. The facilitator builds the unsigned transaction and the verify/settle body around it.
  const buildResponse = await fetch(`${options.facilitatorApi}/build-exact-payment-tx`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ payer: options.buyer.address, accepted, resource: paymentRequired.resource }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const buildText = await buildResponse.text();
  if (!buildResponse.ok)
    throw new BuyerFlowError(`/build-exact-payment-tx answered ${buildResponse.status}: ${buildText.slice(0, 400)}`);
  const built = JSON.parse(buildText) as {
    transaction: string;
    payerSignatureIndex: number;
    verifyBodyTemplate: { paymentPayload: { payload: { transaction: string } } };
    notes?: string[];
  };
  log(
    `built: unsigned transaction (${built.transaction.length} base64 chars), payer signs at index ${built.payerSignatureIndex}`,
  );

  // 3. Sign locally at payerSignatureIndex; the fee payer's slot stays empty until settle.
  const signed = await signAtIndex(built.transaction, built.payerSignatureIndex, options.buyer);
  const template = built.verifyBodyTemplate;
  template.paymentPayload.payload.transaction = signed;

  // 4. The filled template goes to the seller, who settles it.
  const json = JSON.stringify(template);
  const header = options.headerEncoding === "json" ? json : Buffer.from(json, "utf8").toString("base64");
  const paid = await fetch(options.resourceUrl, {
    headers: { "PAYMENT-SIGNATURE": header },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await paid.text();
  const responseHeader = paid.headers.get("PAYMENT-RESPONSE");
  const paymentResponse = responseHeader
    ? (JSON.parse(Buffer.from(responseHeader, "base64").toString("utf8")) as PaidResource["paymentResponse"])
    : null;
  return { status: paid.status, body, paymentResponse, accepted, notes: built.notes ?? [] };
}

/** Signs the message with the buyer's key and places the signature at `index`, checking that slot is the buyer's. */
export async function signAtIndex(base64Transaction: string, index: number, buyer: KeyPairSigner): Promise<string> {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64Transaction));
  const signers = Object.keys(transaction.signatures);
  if (signers[index] !== buyer.address) {
    throw new BuyerFlowError(
      `signature slot ${index} belongs to ${signers[index] ?? "nobody"}, not to the buyer ${buyer.address}`,
    );
  }
  const signature = (await signBytes(buyer.keyPair.privateKey, transaction.messageBytes)) as SignatureBytes;
  const signedTransaction: Transaction = {
    ...transaction,
    signatures: { ...transaction.signatures, [buyer.address]: signature },
  };
  return getBase64EncodedWireTransaction(signedTransaction);
}

interface PaymentRequiredBody {
  x402Version: number;
  resource: { url: string; description?: string; mimeType?: string };
  accepts: Record<string, unknown>[];
  error?: string;
}

function readPaymentRequired(header: string | null, body: string): PaymentRequiredBody {
  const text = header ? Buffer.from(header, "base64").toString("utf8") : body;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BuyerFlowError(
      `the 402 carries no JSON PaymentRequired (${header ? "PAYMENT-REQUIRED header" : "body"} is not JSON)`,
    );
  }
  const candidate = parsed as Partial<PaymentRequiredBody>;
  if (candidate.x402Version !== 2 || !Array.isArray(candidate.accepts) || typeof candidate.resource !== "object") {
    throw new BuyerFlowError("the 402 body is not an x402 v2 PaymentRequired");
  }
  return candidate as PaymentRequiredBody;
}
