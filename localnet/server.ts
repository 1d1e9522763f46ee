/**
 * The local Solana chain behind a JSON-RPC HTTP endpoint on 127.0.0.1 — a dev/test tool, never
 * deployed. `startLocalnet()` builds the chain, seeds it (seed.ts) and serves every method in
 * methods/*. POST / takes JSON-RPC (single or batch); GET /health answers "ok" like a node; a
 * WebSocket upgrade on the same port speaks PubSub (pubsub.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ChainClock } from "./chain-clock";
import { type PersistedChain, persistChain, readChainJournal, resumeSlotOf } from "./chain-journal";
import { LocalChain } from "./local-chain";
import { accountMethods } from "./methods/account-methods";
import { clusterMethods } from "./methods/cluster-methods";
import { faucetMethods } from "./methods/faucet-methods";
import { localnetMethods } from "./methods/localnet-methods";
import { tokenMethods } from "./methods/token-methods";
import { transactionMethods } from "./methods/transaction-methods";
import { PubSubHub } from "./pubsub";
import { oneWayDelay, type RealTiming, realTimingFromEnv } from "./real-timing";
import { RequestTiming } from "./request-timing";
import { dispatchRpcBody, type RpcMethodTable } from "./rpc-dispatch";
import { invalidParams } from "./rpc-errors";
import { type SeededAddresses, seedLocalnet } from "./seed";
import { acceptWebSocket, type WebSocketConnection } from "./websocket-connection";

export const DEFAULT_LOCALNET_PORT = 8899;
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface StartLocalnetOptions {
  /** 0 picks a free port. Default: env LOCALNET_PORT, else 8899. */
  port?: number;
  host?: string;
  /** Suppresses the event log (dropped transactions, internal errors). */
  quiet?: boolean;
  /**
   * TEST-ONLY (benchmark): slot-time confirmation and RPC latency (real-timing.ts). Default: env LOCALNET_SLOT_MS etc.
   */
  realTiming?: RealTiming | null;
  /**
   * Keep the chain in this journal file (chain-journal.ts): what an earlier run left there is replayed, and every
   * change is appended. Absent: the chain lives in memory only and starts fresh.
   */
  statePath?: string;
}

export interface RunningLocalnet {
  url: string;
  /** PubSub endpoint (same port as `url`). */
  wsUrl: string;
  port: number;
  /** Seeded program accounts, mints and local key addresses. */
  seeded: SeededAddresses;
  /** The chain itself, for in-process tools (tests, benchmarks). */
  chain: LocalChain;
  /** The journal the chain is kept in (`statePath`), and what it brought back; null when in memory only. */
  persisted: PersistedChain | null;
  close(): Promise<void>;
}

export async function startLocalnet(options: StartLocalnetOptions = {}): Promise<RunningLocalnet> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? defaultPort();
  const log = options.quiet ? () => {} : (line: string) => console.error(`[localnet] ${line}`);

  const realTiming = options.realTiming === undefined ? realTimingFromEnv(process.env) : options.realTiming;
  const saved = options.statePath ? readChainJournal(options.statePath) : null;
  const clock = saved ? new ChainClock({ startSlot: resumeSlotOf(saved) }) : undefined;
  const chain = new LocalChain({ log, realTiming, ...(clock ? { clock } : {}) });
  const seeded = await seedLocalnet(chain);
  const persisted = options.statePath ? persistChain(chain, options.statePath, saved) : null;
  const timing = new RequestTiming();
  const methods: RpcMethodTable = {
    ...clusterMethods(chain),
    ...accountMethods(chain),
    ...tokenMethods(chain),
    ...transactionMethods(chain),
    ...faucetMethods(chain),
    ...localnetMethods(chain, () => seeded),
    // TEST-ONLY (benchmark): how long the chain itself spent answering, so a client can tell its own time apart.
    localnet_serviceTime: () => timing.serviceTime(),
    localnet_requestLog: (params) => timing.requestsSince(sinceParam(params[0])),
    // TEST-ONLY (benchmark): when each signature reported (or will report) "confirmed", epoch ms; null if it never
    // landed.
    localnet_confirmationTimes: (params) =>
      signatureListParam(params[0]).map((signature) => {
        const entry = chain.ledger.get(signature);
        return entry === undefined ? null : chain.confirmedAtMs(entry);
      }),
  };

  const server = createServer((request, response) => {
    const timed = timing.begin();
    response.once("finish", timed.finish);
    handleHttp(request, response, methods, log, timed.methods, realTiming).catch((error: unknown) => {
      log(`http handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  // Clients keep connections alive; don't let idle sockets hold close() up.
  server.keepAliveTimeout = 5_000;
  const pubsub = new PubSubHub(chain);
  server.on("upgrade", (request, socket, head) => {
    const connection = acceptWebSocket(request, socket, head);
    if (connection === null) return;
    timing.note(["websocket"]);
    pubsub.attach(loggedWithLatency(connection, timing, realTiming));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const boundPort = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${boundPort}`,
    wsUrl: `ws://${urlHost}:${boundPort}`,
    port: boundPort,
    seeded,
    chain,
    persisted,
    close: () =>
      new Promise<void>((resolve, reject) => {
        pubsub.close();
        server.close((error) => {
          persisted?.close();
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** Logs each inbound message's methods and, with real timing, delays both directions by the one-way latency. */
function loggedWithLatency(
  connection: WebSocketConnection,
  timing: RequestTiming,
  realTiming: RealTiming | null,
): WebSocketConnection {
  const later = (work: () => void) => {
    const delay = oneWayDelay(realTiming);
    if (delay === null) work();
    else void delay.then(work);
  };
  return {
    send: (text) => later(() => connection.send(text)),
    close: () => connection.close(),
    onClose: (listener) => connection.onClose(listener),
    onMessage: (listener) =>
      connection.onMessage((text) => {
        timing.note(messageMethods(text));
        later(() => listener(text));
      }),
  };
}

function messageMethods(text: string): string[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).map((message) =>
      String((message as { method?: unknown } | null)?.method ?? "?"),
    );
  } catch {
    return [];
  }
}

function signatureListParam(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw invalidParams("Invalid params: expected an array of signatures");
  return value as string[];
}

/** localnet_requestLog's optional start (epoch ms); absent = everything still logged. */
function sinceParam(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isFinite(value))
    throw invalidParams("Invalid params: sinceMs must be a number (epoch milliseconds)");
  return value;
}

function defaultPort(): number {
  const fromEnv = process.env.LOCALNET_PORT;
  if (fromEnv === undefined || fromEnv === "") return DEFAULT_LOCALNET_PORT;
  const port = Number(fromEnv);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid LOCALNET_PORT: ${fromEnv}`);
  return port;
}

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, GET, OPTIONS",
  "access-control-allow-headers": "content-type, solana-client",
};

async function handleHttp(
  request: IncomingMessage,
  response: ServerResponse,
  methods: RpcMethodTable,
  log: (line: string) => void,
  /** Receives the body's method names, for the request log. */
  methodsServed: string[],
  realTiming: RealTiming | null,
): Promise<void> {
  if (request.method === "OPTIONS") {
    response.writeHead(204, CORS_HEADERS).end();
    return;
  }
  if (request.method === "GET" && request.url === "/health") {
    response.writeHead(200, { ...CORS_HEADERS, "content-type": "text/plain" }).end("ok");
    return;
  }
  if (request.method !== "POST") {
    response.writeHead(405, { ...CORS_HEADERS, allow: "POST, GET, OPTIONS" }).end();
    return;
  }
  const body = await readBody(request);
  if (body === null) {
    response.writeHead(413, CORS_HEADERS).end();
    return;
  }
  await oneWayDelay(realTiming);
  const reply = await dispatchRpcBody(body, methods, {
    onMethod: (method) => methodsServed.push(method),
    onInternalError: (method, error) =>
      log(`internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  });
  await oneWayDelay(realTiming);
  if (reply === null) {
    response.writeHead(204, CORS_HEADERS).end();
    return;
  }
  response.writeHead(200, { ...CORS_HEADERS, "content-type": "application/json" }).end(reply);
}

/** The request body as text, or null when it exceeds MAX_BODY_BYTES. */
async function readBody(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
