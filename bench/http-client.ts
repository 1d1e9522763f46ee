/**
 * The benchmark's HTTP client: node:http over one keep-alive agent, bodies serialised before the clock starts.
 * On a 2-core machine the load generator shares the CPU with both facilitators and the chain; fetch (undici) cost
 * it about 1.5 ms of CPU per call here, node:http about a third of that, which leaves more of the machine to
 * whatever is measured. Both facilitators are called through this same client.
 */
import { Agent, request } from "node:http";

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export interface PlainResponse {
  status: number;
  text: string;
}

/**
 * POST a JSON text; resolves with the status and the whole body, rejects after `timeoutMs`. A kept-alive socket the
 * server closed while idle fails at once with ECONNRESET before the request was read; that one case is sent again
 * on a fresh socket (Node's documented remedy; both facilitators settle idempotently anyway).
 */
export async function postJsonText(url: string, body: string, timeoutMs = 30_000): Promise<PlainResponse> {
  try {
    return await postOnce(url, body, timeoutMs);
  } catch (error) {
    if (!(error instanceof StaleSocketError)) throw error;
    return postOnce(url, body, timeoutMs);
  }
}

class StaleSocketError extends Error {}

function postOnce(url: string, body: string, timeoutMs: number): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      reject(outgoing.reusedSocket && error.code === "ECONNRESET" ? new StaleSocketError(error.message) : error);
    });
    outgoing.end(body);
  });
}
