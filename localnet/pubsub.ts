/**
 * Solana PubSub (the WebSocket API) for the subscriptions @solana/kit's confirmation helpers use:
 * signatureSubscribe, slotSubscribe, rootSubscribe and accountSubscribe, with their unsubscribe
 * methods. Served on the same port as HTTP (ws://127.0.0.1:<port>). Everything is final at once,
 * so a signature notification is sent as soon as the transaction lands, whatever the commitment.
 */
import {
  type AccountEncoding,
  type DataSlice,
  encodeAccount,
  parseAccountEncoding,
  parseDataSlice,
} from "./account-encoding";
import { SLOT_DURATION_MS } from "./chain-clock";
import { type JsonValue, parseJsonWithBigInts, stringifyJsonWithBigInts } from "./json-bigint";
import type { ChainEvent, LocalChain } from "./local-chain";
import { invalidParams, methodNotFound, RPC_ERROR_CODE, RpcError } from "./rpc-errors";
import { configParam, pubkeyParam, type RpcParams, requiredParam, signatureParam } from "./rpc-params";
import type { LedgerEntry } from "./transaction-ledger";
import type { WebSocketConnection } from "./websocket-connection";

type Subscription =
  | { id: number; connection: WebSocketConnection; kind: "signature"; signature: string; processedIsEnough: boolean }
  | { id: number; connection: WebSocketConnection; kind: "slot" }
  | { id: number; connection: WebSocketConnection; kind: "root" }
  | {
      id: number;
      connection: WebSocketConnection;
      kind: "account";
      pubkey: string;
      encoding: AccountEncoding;
      dataSlice: DataSlice | undefined;
      lastSent: string;
    };

const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";

export class PubSubHub {
  private readonly subscriptions = new Map<number, Subscription>();
  private readonly connections = new Set<WebSocketConnection>();
  private nextId = 1;
  private slotTimer: NodeJS.Timeout | undefined;
  private readonly stopListening: () => void;

  constructor(private readonly chain: LocalChain) {
    this.stopListening = chain.onEvent((event) => this.onChainEvent(event));
  }

  attach(connection: WebSocketConnection): void {
    this.connections.add(connection);
    connection.onMessage((text) => this.onMessage(connection, text));
    connection.onClose(() => {
      this.connections.delete(connection);
      for (const [id, subscription] of this.subscriptions) {
        if (subscription.connection === connection) this.subscriptions.delete(id);
      }
      this.updateSlotTimer();
    });
  }

  close(): void {
    this.stopListening();
    clearInterval(this.slotTimer);
    for (const connection of this.connections) connection.close();
  }

  private onMessage(connection: WebSocketConnection, text: string): void {
    let request: JsonValue;
    try {
      request = parseJsonWithBigInts(text);
    } catch {
      this.reply(connection, null, undefined, new RpcError(RPC_ERROR_CODE.PARSE_ERROR, "Parse error"));
      return;
    }
    for (const single of Array.isArray(request) ? request : [request]) this.handleRequest(connection, single);
  }

  private handleRequest(connection: WebSocketConnection, request: JsonValue): void {
    if (request === null || typeof request !== "object" || Array.isArray(request)) return;
    // No id: a notification (kit's keep-alive "ping"); nothing to answer.
    if (!("id" in request)) return;
    const id = request.id ?? null;
    const params = Array.isArray(request.params) ? request.params : [];
    try {
      const result = this.call(connection, String(request.method), params);
      this.reply(connection, id, result);
      if (typeof result === "number") this.afterSubscribe(result);
    } catch (error) {
      const rpcError =
        error instanceof RpcError
          ? error
          : new RpcError(
              RPC_ERROR_CODE.INTERNAL_ERROR,
              `Internal error: ${error instanceof Error ? error.message : String(error)}`,
            );
      this.reply(connection, id, undefined, rpcError);
    }
  }

  private call(connection: WebSocketConnection, method: string, params: RpcParams): unknown {
    const id = this.nextId;
    switch (method) {
      case "signatureSubscribe": {
        const signature = signatureParam(requiredParam(params, 0, "signature"));
        const processedIsEnough = configParam(params, 1).commitment === "processed";
        this.subscriptions.set(id, { id, connection, kind: "signature", signature, processedIsEnough });
        break;
      }
      case "slotSubscribe":
        this.subscriptions.set(id, { id, connection, kind: "slot" });
        break;
      case "rootSubscribe":
        this.subscriptions.set(id, { id, connection, kind: "root" });
        break;
      case "accountSubscribe": {
        const pubkey = pubkeyParam(requiredParam(params, 0, "pubkey"));
        const config = configParam(params, 1);
        this.subscriptions.set(id, {
          id,
          connection,
          kind: "account",
          pubkey,
          encoding: parseAccountEncoding(config.encoding, "binary"),
          dataSlice: parseDataSlice(config.dataSlice),
          lastSent: this.encodedAccountJson(
            pubkey,
            parseAccountEncoding(config.encoding, "binary"),
            parseDataSlice(config.dataSlice),
          ),
        });
        break;
      }
      case "signatureUnsubscribe":
      case "slotUnsubscribe":
      case "rootUnsubscribe":
      case "accountUnsubscribe": {
        const target = Number(requiredParam(params, 0, "subscription id"));
        const subscription = this.subscriptions.get(target);
        if (subscription === undefined || subscription.connection !== connection) {
          throw invalidParams("Invalid subscription id.");
        }
        this.subscriptions.delete(target);
        this.updateSlotTimer();
        return true;
      }
      default:
        throw methodNotFound();
    }
    this.nextId++;
    return id;
  }

  /** A signature that already landed is notified right away (the client may subscribe late). */
  private afterSubscribe(id: number): void {
    const subscription = this.subscriptions.get(id);
    if (subscription?.kind === "signature") {
      const entry = this.chain.ledger.get(subscription.signature);
      if (entry !== undefined) this.notifySignatureAtCommitment(subscription, entry);
    }
    this.updateSlotTimer();
  }

  private onChainEvent(event: ChainEvent): void {
    for (const subscription of this.subscriptions.values()) {
      if (event.type === "slot" && subscription.kind === "slot") {
        this.notify(subscription, "slotNotification", { parent: event.slot - 1n, root: event.slot, slot: event.slot });
      } else if (event.type === "slot" && subscription.kind === "root") {
        this.notify(subscription, "rootNotification", event.slot);
      } else if (event.type === "transaction" && subscription.kind === "signature") {
        if (subscription.signature === event.entry.signature)
          this.notifySignatureAtCommitment(subscription, event.entry);
      } else if (event.type === "accounts" && subscription.kind === "account") {
        const encoded = this.encodedAccountJson(subscription.pubkey, subscription.encoding, subscription.dataSlice);
        if (encoded !== subscription.lastSent) {
          subscription.lastSent = encoded;
          this.notify(subscription, "accountNotification", {
            context: { slot: this.chain.sync().slot },
            value: parseJsonWithBigInts(encoded),
          });
        }
      }
    }
  }

  /**
   * Notifies when the landed transaction reaches the subscription's commitment (at once, unless real timing or a lag
   * holds it).
   */
  private notifySignatureAtCommitment(subscription: Subscription & { kind: "signature" }, entry: LedgerEntry): void {
    const waitMs = subscription.processedIsEnough ? 0 : this.chain.confirmedAtMs(entry) - Date.now();
    if (waitMs <= 0) {
      this.notifySignature(subscription, entry.slot, entry.err);
      return;
    }
    const timer = setTimeout(() => {
      if (this.subscriptions.get(subscription.id) === subscription)
        this.notifySignature(subscription, entry.slot, entry.err);
    }, waitMs);
    timer.unref();
  }

  private notifySignature(subscription: Subscription, slot: bigint, err: unknown): void {
    this.subscriptions.delete(subscription.id); // signature subscriptions fire once
    this.notify(subscription, "signatureNotification", { context: { slot }, value: { err } });
  }

  /** A deleted account is reported as an empty System account, as the node does. */
  private encodedAccountJson(pubkey: string, encoding: AccountEncoding, dataSlice: DataSlice | undefined): string {
    const account = this.chain.getAccount(pubkey) ?? {
      lamports: 0n,
      data: new Uint8Array(),
      owner: SYSTEM_PROGRAM_ID,
      executable: false,
    };
    return stringifyJsonWithBigInts(
      encodeAccount(account, encoding, dataSlice, (mint) => this.chain.mintDecimals(mint)),
    );
  }

  /** Slots only advance when someone looks, so tick while anyone listens for slots. */
  private updateSlotTimer(): void {
    const wanted = [...this.subscriptions.values()].some(
      (subscription) => subscription.kind === "slot" || subscription.kind === "root",
    );
    if (wanted && this.slotTimer === undefined) {
      this.slotTimer = setInterval(() => this.chain.sync(), SLOT_DURATION_MS / 4);
      this.slotTimer.unref();
    } else if (!wanted && this.slotTimer !== undefined) {
      clearInterval(this.slotTimer);
      this.slotTimer = undefined;
    }
  }

  private notify(subscription: Subscription, method: string, result: unknown): void {
    subscription.connection.send(
      stringifyJsonWithBigInts({ jsonrpc: "2.0", method, params: { result, subscription: subscription.id } }),
    );
  }

  private reply(connection: WebSocketConnection, id: JsonValue, result: unknown, error?: RpcError): void {
    const body = error
      ? {
          jsonrpc: "2.0",
          error: {
            code: error.code,
            message: error.message,
            ...(error.data === undefined ? {} : { data: error.data }),
          },
          id,
        }
      : { jsonrpc: "2.0", result, id };
    connection.send(stringifyJsonWithBigInts(body));
  }
}
