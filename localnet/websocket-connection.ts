/**
 * A minimal server side of RFC 6455 (WebSocket) over node:http's `upgrade` event — enough for the
 * Solana PubSub clients (@solana/kit's rpc-subscriptions): text frames, fragmentation, ping/pong,
 * close. Written here to avoid a dependency for a dev tool.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

const HANDSHAKE_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const MAX_MESSAGE_BYTES = 1024 * 1024;

const OPCODE = { CONTINUATION: 0x0, TEXT: 0x1, BINARY: 0x2, CLOSE: 0x8, PING: 0x9, PONG: 0xa } as const;

export interface WebSocketConnection {
  send(text: string): void;
  close(): void;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
}

/** Completes the handshake; returns null (and answers 400) when the request is not a WebSocket upgrade. */
export function acceptWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer): WebSocketConnection | null {
  const key = request.headers["sec-websocket-key"];
  if (typeof key !== "string" || request.headers.upgrade?.toLowerCase() !== "websocket") {
    socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
    return null;
  }
  const accept = createHash("sha1")
    .update(key + HANDSHAKE_GUID)
    .digest("base64");
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: ` +
      `Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );

  const messageListeners: ((text: string) => void)[] = [];
  const closeListeners: (() => void)[] = [];
  let buffered: Buffer = head.length > 0 ? Buffer.from(head) : Buffer.alloc(0);
  let fragments: Buffer[] = [];
  let closed = false;

  const writeFrame = (opcode: number, payload: Buffer) => {
    if (closed || socket.destroyed) return;
    let header: Buffer;
    if (payload.length < 126) {
      header = Buffer.from([0x80 | opcode, payload.length]);
    } else if (payload.length < 65_536) {
      header = Buffer.alloc(4);
      header[0] = 0x80 | opcode;
      header[1] = 126;
      header.writeUInt16BE(payload.length, 2);
    } else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = 127;
      header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    socket.write(Buffer.concat([header, payload]));
  };

  const finish = () => {
    if (closed) return;
    closed = true;
    socket.destroy();
    for (const listener of closeListeners) listener();
  };

  const closeWith = (code: number) => {
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code, 0);
    writeFrame(OPCODE.CLOSE, payload);
    finish();
  };

  /** Parses every complete frame in `buffered`. */
  const drain = () => {
    for (;;) {
      if (buffered.length < 2) return;
      const first = buffered[0] ?? 0;
      const second = buffered[1] ?? 0;
      const fin = (first & 0x80) !== 0;
      const opcode = first & 0x0f;
      const masked = (second & 0x80) !== 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffered.length < 4) return;
        length = buffered.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffered.length < 10) return;
        const long = buffered.readBigUInt64BE(2);
        if (long > BigInt(MAX_MESSAGE_BYTES)) return closeWith(1009);
        length = Number(long);
        offset = 10;
      }
      if (!masked) return closeWith(1002); // clients must mask
      if (length > MAX_MESSAGE_BYTES) return closeWith(1009);
      if (buffered.length < offset + 4 + length) return;
      const mask = buffered.subarray(offset, offset + 4);
      const payload = Buffer.from(buffered.subarray(offset + 4, offset + 4 + length));
      for (let index = 0; index < payload.length; index++)
        payload[index] = (payload[index] ?? 0) ^ (mask[index % 4] ?? 0);
      buffered = buffered.subarray(offset + 4 + length);

      switch (opcode) {
        case OPCODE.PING:
          writeFrame(OPCODE.PONG, payload);
          break;
        case OPCODE.PONG:
          break;
        case OPCODE.CLOSE:
          return closeWith(1000);
        case OPCODE.TEXT:
        case OPCODE.BINARY:
        case OPCODE.CONTINUATION: {
          fragments.push(payload);
          if (fragments.reduce((sum, part) => sum + part.length, 0) > MAX_MESSAGE_BYTES) return closeWith(1009);
          if (fin) {
            const text = Buffer.concat(fragments).toString("utf8");
            fragments = [];
            for (const listener of messageListeners) listener(text);
          }
          break;
        }
        default:
          return closeWith(1002);
      }
    }
  };

  socket.on("data", (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    drain();
  });
  socket.on("close", finish);
  socket.on("error", finish);
  if (buffered.length > 0) queueMicrotask(drain);

  return {
    send: (text) => writeFrame(OPCODE.TEXT, Buffer.from(text, "utf8")),
    close: () => closeWith(1001),
    onMessage: (listener) => messageListeners.push(listener),
    onClose: (listener) => closeListeners.push(listener),
  };
}
