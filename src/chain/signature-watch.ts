import type { Config } from "../platform/config/load-config";
import { log } from "../platform/observability/log";

export type WatchedStatus = { kind: "confirmed" } | { kind: "failed"; err: unknown };

/**
 * Hears of one transaction's confirmation from the cluster's PubSub: a `signatureSubscribe` at `confirmed`, opened
 * before the transaction is sent, so the settle learns of the confirmation one network hop after it happens instead
 * of at the next status poll (and without the polls' RPC calls).
 *
 * A node notifies only confirmations it sees after the subscription is registered (Agave checks each newly
 * confirmed bank's own signatures), so a subscription registered after an unusually fast confirmation never
 * fires: the caller keeps a watchdog and reads the status itself when the push is late. Every failure (no upgrade,
 * an error answer, the socket closing) ends the watch with "failed"; the caller then polls, so the engine never
 * depends on the socket.
 *
 * A WebSocket opened by a Worker belongs to the request that opened it, so each settle opens its own.
 */
export interface SignatureWatch {
  /** The pushed status; "failed" once the watch cannot tell anymore; "timeout" when `budgetMs` passed first. */
  landed(budgetMs: number): Promise<WatchedStatus | "failed" | "timeout">;
  close(): void;
}

const SUBSCRIBE_REQUEST_ID = 1;

export function watchSignature(config: Pick<Config, "pubsubUrl" | "rpcTimeoutMs">, signature: string): SignatureWatch {
  let socket: WebSocket | null = null;
  let closed = false;
  let settleLanded!: (status: WatchedStatus | "failed") => void;
  const landed = new Promise<WatchedStatus | "failed">((resolve) => (settleLanded = resolve));
  const end = (reason: string | null) => {
    if (reason !== null && !closed) log("warn", "signature_watch_failed", { signature, reason });
    settleLanded("failed");
    close();
  };
  const close = () => {
    closed = true;
    try {
      socket?.close(1000);
    } catch {
      // already closing
    }
  };

  const onMessage = (event: MessageEvent) => {
    let message: {
      id?: unknown;
      result?: unknown;
      error?: unknown;
      method?: unknown;
      params?: { result?: { value?: unknown } };
    };
    try {
      message = JSON.parse(
        typeof event.data === "string" ? event.data : new TextDecoder().decode(event.data as ArrayBuffer),
      ) as typeof message;
    } catch {
      return end("malformed message");
    }
    if (message.id === SUBSCRIBE_REQUEST_ID) {
      if (typeof message.result !== "number") end("subscription refused");
      return;
    }
    if (message.method !== "signatureNotification") return;
    const value = message.params?.result?.value;
    if (value === null || typeof value !== "object" || !("err" in value)) return; // e.g. "receivedSignature"
    const err = (value as { err: unknown }).err;
    settleLanded(err === null ? { kind: "confirmed" } : { kind: "failed", err });
    close();
  };

  fetch(config.pubsubUrl, { headers: { Upgrade: "websocket" }, signal: AbortSignal.timeout(config.rpcTimeoutMs) })
    .then((response) => {
      const opened = response.webSocket;
      if (!opened) return end(`no upgrade (HTTP ${response.status})`);
      socket = opened;
      opened.accept();
      if (closed) return close();
      opened.addEventListener("message", onMessage);
      opened.addEventListener("close", () => end(closed ? null : "closed by the node"));
      opened.addEventListener("error", () => end("socket error"));
      opened.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: SUBSCRIBE_REQUEST_ID,
          method: "signatureSubscribe",
          params: [signature, { commitment: "confirmed" }],
        }),
      );
    })
    .catch((error: unknown) => end(error instanceof Error ? error.name : "unreachable"));

  return {
    landed: (budgetMs) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">(
        (resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(0, budgetMs))),
      );
      return Promise.race([landed, timeout]).finally(() => clearTimeout(timer));
    },
    close: () => end(null),
  };
}
