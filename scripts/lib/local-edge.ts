import type { Env } from "../../src/env";

/**
 * What only Cloudflare's edge may tell a deployed Worker about a request: `request.cf` (its `colo` names the settle
 * ledger objects a payment is claimed in) and the client's address in `CF-Connecting-IP` (every per-client rate limit
 * keys on it). In production Cloudflare sets both and overwrites what a client sends. Served locally (workerd through
 * Miniflare) both are the caller's words:
 * - the socket Miniflare opens for the Worker itself (`unsafeDirectSockets`: the e2e and bench servers) is configured
 *   with workerd's `cfBlobHeader: "MF-CF-Blob"`, so that header's JSON becomes `request.cf`;
 * - Miniflare's entry worker (npm start, which serves the Cron trigger URL through it; wrangler dev) parses the same
 *   header into `request.cf` itself and keeps a client's own `CF-Connecting-IP`, setting the real address only when
 *   the header is absent.
 * So local serving hands the Worker every request without them: `cf` empty (the ledger's place is then `local`) and no
 * Cloudflare or Miniflare request headers (every caller is then the one client `local`, which is the truth: the local
 * servers listen on loopback only). The Worker's own code trusts both, as it may behind Cloudflare.
 */
const EDGE_HEADER = /^(cf-|mf-|true-client-ip$)/i;

/** `worker` with every request stripped of what only Cloudflare's edge may set; its other handlers as they are. */
export function localEdge<Worker extends { fetch: ExportedHandlerFetchHandler<Env> }>(worker: Worker): Worker {
  return { ...worker, fetch: (request, env, ctx) => worker.fetch(withoutEdgeFacts(request), env, ctx) };
}

type IncomingRequest = Parameters<ExportedHandlerFetchHandler<Env>>[0];

function withoutEdgeFacts(request: IncomingRequest): IncomingRequest {
  const kept: [string, string][] = [];
  let edgeHeaders = false;
  for (const header of request.headers) {
    if (EDGE_HEADER.test(header[0])) edgeHeaders = true;
    else kept.push(header);
  }
  // Nothing to strip (the direct socket's usual request: no edge header, and workerd sets no `cf` without the blob
  // header): the request as it came, for a copy of every request is a cost on every /verify the bench measures.
  if (!edgeHeaders && request.cf === undefined) return request;
  // An empty `cf`: the Worker finds no location in it, as a request from no Cloudflare location has none.
  return new Request(request, { headers: kept, cf: {} }) as IncomingRequest;
}
