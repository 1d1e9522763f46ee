import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseRpcJson, RPC_KEYS_PER_CALL, rpcAnswer, rpcCall, rpcReadMany } from "../../../src/chain/rpc";
import { sendWithPreflight } from "../../../src/chain/send-transaction";
import { FacilitatorError } from "../../../src/platform/errors/catalogue";

/**
 * The one Solana RPC client against a real HTTP server on loopback (node:http) that answers each request the way a
 * test scripts it: what goes on the wire, how every kind of failure maps to a 502 naming the method and never the
 * URL, the timeout, and batched reads split at the node's per-call limit.
 */
interface Received {
  path: string;
  body: { jsonrpc: string; id: unknown; method: string; params: unknown[] };
}

type Answer = (request: Received, response: ServerResponse) => void;

let received: Received[] = [];
let answer: Answer = () => {};
let baseUrl = "";
let closeServer: () => Promise<void> = async () => {};

beforeAll(async () => {
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const entry = {
      path: request.url ?? "",
      body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Received["body"],
    };
    received.push(entry);
    answer(entry, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  closeServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});

afterAll(() => closeServer());

beforeEach(() => {
  received = [];
});

/** A provider-style URL with a key in the path and the query: errors must never repeat it. */
const SECRET = "k3yK3yK3yK3yK3yK3yK3y";
const config = () => ({ rpcUrl: `${baseUrl}/v2/${SECRET}?api-key=${SECRET}`, rpcTimeoutMs: 1_000 });

const json = (status: number, body: unknown, response: ServerResponse) => {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(typeof body === "string" ? body : JSON.stringify(body));
};
const result =
  (value: unknown): Answer =>
  (request, response) =>
    json(200, { jsonrpc: "2.0", id: request.body.id, result: value }, response);

async function failureOf(promise: Promise<unknown>): Promise<FacilitatorError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FacilitatorError);
  const failure = error as FacilitatorError;
  expect(failure.code).toBe("FACILITATOR_UPSTREAM");
  expect(failure.status).toBe(502);
  expect(failure.message).not.toContain(SECRET);
  expect(failure.message).not.toContain("127.0.0.1");
  return failure;
}

describe("rpcCall: one JSON-RPC 2.0 request", () => {
  it("posts the method and params to the configured URL and returns the result", async () => {
    answer = result({ value: true });
    await expect(rpcCall(config(), "isBlockhashValid", ["hash", { commitment: "confirmed" }])).resolves.toEqual({
      value: true,
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe(`/v2/${SECRET}?api-key=${SECRET}`);
    expect(received[0]!.body).toMatchObject({
      jsonrpc: "2.0",
      method: "isBlockhashValid",
      params: ["hash", { commitment: "confirmed" }],
    });
    expect(typeof received[0]!.body.id).toBe("number");
  });

  it(
    "maps a JSON-RPC error to a 502 naming the method, the message and the code, with URLs in the message " + "hidden",
    async () => {
      answer = (request, response) =>
        json(
          200,
          {
            jsonrpc: "2.0",
            id: request.body.id,
            error: { code: -32005, message: `node behind; see ${config().rpcUrl} for status` },
          },
          response,
        );
      const failure = await failureOf(rpcCall(config(), "getLatestBlockhash", [{ commitment: "confirmed" }]));
      expect(failure.message).toBe(
        "Solana RPC getLatestBlockhash failed: node behind; see <rpc> for status (code -32005)",
      );
    },
  );

  it("maps an HTTP error status to a 502 with the status", async () => {
    answer = (_request, response) => json(503, { error: "overloaded" }, response);
    const failure = await failureOf(rpcCall(config(), "getBalance", ["x"]));
    expect(failure.message).toBe("Solana RPC getBalance failed: HTTP 503");
  });

  it("maps a body that is not JSON, or JSON without result or error, to a 502 'malformed response'", async () => {
    // Both readers: the exact one (getBalance) and the runtime's JSON parser (simulateTransaction).
    for (const method of ["getBalance", "simulateTransaction"]) {
      answer = (_request, response) => json(200, "<html>gateway</html>", response);
      expect((await failureOf(rpcCall(config(), method, ["x"]))).message).toBe(
        `Solana RPC ${method} failed: malformed response`,
      );
      answer = (request, response) => json(200, { jsonrpc: "2.0", id: request.body.id }, response);
      expect((await failureOf(rpcCall(config(), method, ["x"]))).message).toBe(
        `Solana RPC ${method} failed: malformed response`,
      );
    }
  });

  it(
    "reads lamports exactly wherever an answer can hold them, a simulation that asks for accounts " + "included",
    async () => {
      const big = "18446744073709551615";
      answer = (request, response) =>
        json(
          200,
          `{"jsonrpc":"2.0","id":${request.body.id},"result":{"value":{"err":null,` +
            `"accounts":[{"lamports":${big},"rentEpoch":${big}}]}}}`,
          response,
        );
      const simulated = await rpcCall<{ value: { accounts: { lamports: string; rentEpoch: string }[] } }>(
        config(),
        "simulateTransaction",
        ["tx", { accounts: { addresses: ["a"] } }],
      );
      expect(simulated.value.accounts[0]).toEqual({ lamports: big, rentEpoch: big });
      answer = (request, response) =>
        json(200, `{"jsonrpc":"2.0","id":${request.body.id},"result":{"context":{"slot":1},"value":${big}}}`, response);
      expect((await rpcCall<{ value: string }>(config(), "getBalance", ["x"])).value).toBe(big);
    },
  );

  it("maps a refused connection to a 502 'unreachable'", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const address = closed.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await failureOf(
      rpcCall({ rpcUrl: `http://127.0.0.1:${port}/${SECRET}`, rpcTimeoutMs: 1_000 }, "getSlot", []),
    );
    expect(failure.message).toBe("Solana RPC getSlot failed: unreachable");
  });

  it(
    "gives up after the configured timeout when the node does not answer, and when it stalls inside the " + "body",
    async () => {
      answer = () => {}; // never answers
      let started = performance.now();
      const silent = await failureOf(rpcCall({ ...config(), rpcTimeoutMs: 300 }, "simulateTransaction", ["tx"]));
      expect(silent.message).toBe("Solana RPC simulateTransaction failed: timed out");
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      expect(performance.now() - started).toBeLessThan(3_000);

      answer = (_request, response) => {
        response.writeHead(200, { "Content-Type": "application/json" });
        response.write('{"jsonrpc":"2.0","id":1,"result":'); // headers and half a body, then nothing
      };
      for (const method of ["simulateTransaction", "getBalance"]) {
        started = performance.now();
        const stalled = await failureOf(rpcCall({ ...config(), rpcTimeoutMs: 300 }, method, ["tx"]));
        expect(stalled.message).toBe(`Solana RPC ${method} failed: timed out`);
        expect(performance.now() - started).toBeLessThan(3_000);
      }
    },
  );

  it("takes a per-call timeout over the configured one", async () => {
    answer = () => {};
    const started = performance.now();
    await failureOf(rpcCall({ ...config(), rpcTimeoutMs: 10_000 }, "getBalance", ["x"], 200));
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe("rpcAnswer: a JSON-RPC error handed to the caller", () => {
  it("returns the error object (code, message, data) instead of throwing", async () => {
    const error = {
      code: -32002,
      message: "Transaction simulation failed",
      data: { err: { InstructionError: [1, { Custom: 1 }] }, logs: ["Program log: x"] },
    };
    answer = (request, response) => json(200, { jsonrpc: "2.0", id: request.body.id, error }, response);
    await expect(rpcAnswer(config(), "sendTransaction", ["tx"])).resolves.toEqual({ ok: false, error });
  });

  it("still throws for transport failures", async () => {
    answer = (_request, response) => json(429, "{}", response);
    expect((await failureOf(rpcAnswer(config(), "sendTransaction", ["tx"]))).message).toBe(
      "Solana RPC sendTransaction failed: HTTP 429",
    );
  });
});

describe("rpcReadMany: batched reads", () => {
  it("reads keys in as few calls as the method's limit allows, in order, with the options on every call", async () => {
    answer = (request, response) => {
      const [keys] = request.body.params as [string[]];
      json(
        200,
        { jsonrpc: "2.0", id: request.body.id, result: { context: { slot: 1 }, value: keys.map((key) => ({ key })) } },
        response,
      );
    };
    const keys = Array.from({ length: 2 * RPC_KEYS_PER_CALL.getMultipleAccounts + 7 }, (_, i) => `key${i}`);
    const values = await rpcReadMany<{ key: string }>(config(), "getMultipleAccounts", keys, {
      encoding: "base64",
      commitment: "confirmed",
    });
    expect(values.map((v) => v.key)).toEqual(keys);
    expect(received.map((r) => (r.body.params[0] as string[]).length)).toEqual([100, 100, 7]);
    for (const request of received)
      expect(request.body.params[1]).toEqual({ encoding: "base64", commitment: "confirmed" });
  });

  it("sends only the keys when there are no options, and nothing at all for no keys", async () => {
    answer = (request, response) =>
      json(200, { jsonrpc: "2.0", id: request.body.id, result: { value: [null] } }, response);
    await expect(rpcReadMany(config(), "getSignatureStatuses", ["sig"])).resolves.toEqual([null]);
    expect(received[0]!.body.params).toEqual([["sig"]]);
    received = [];
    await expect(rpcReadMany(config(), "getSignatureStatuses", [])).resolves.toEqual([]);
    expect(received).toHaveLength(0);
  });

  it("refuses an answer whose values do not line up with the keys", async () => {
    answer = (request, response) =>
      json(200, { jsonrpc: "2.0", id: request.body.id, result: { value: [null] } }, response);
    expect((await failureOf(rpcReadMany(config(), "getMultipleAccounts", ["a", "b"]))).message).toBe(
      "Solana RPC getMultipleAccounts failed: malformed response",
    );
  });
});

describe("parseRpcJson: integers beyond 2^53 stay exact", () => {
  it("keeps a large lamports value and a large balance as digits, small ones as numbers", () => {
    const parsed = parseRpcJson(
      '{"value":[{"lamports":18446744073709551615,"space":165},{"lamports": 9007199254740993 }],"context":{"slot":42}}',
    ) as {
      value: { lamports: number | string; space: number }[];
      context: { slot: number };
    };
    expect(BigInt(parsed.value[0]!.lamports)).toBe(18446744073709551615n);
    expect(BigInt(parsed.value[1]!.lamports)).toBe(9007199254740993n);
    expect(parsed.value[0]!.space).toBe(165);
    expect(parsed.context.slot).toBe(42);
    expect((parseRpcJson('{"value":12345678901234567890}') as { value: string }).value).toBe("12345678901234567890");
  });

  it("leaves strings alone, even when they quote JSON with long integers", () => {
    const log = 'Program log: {"amount":12345678901234567890}';
    const parsed = parseRpcJson(JSON.stringify({ value: { logs: [log], err: null } })) as { value: { logs: string[] } };
    expect(parsed.value.logs[0]).toBe(log);
  });
});

describe("sendWithPreflight over the client", () => {
  const send = () => sendWithPreflight(config(), "AQID");

  it("sends with preflight at confirmed commitment and returns the signature", async () => {
    answer = result("5igSig");
    await expect(send()).resolves.toEqual({ kind: "sent", signature: "5igSig" });
    expect(received[0]!.body.params).toEqual([
      "AQID",
      { encoding: "base64", skipPreflight: false, preflightCommitment: "confirmed", maxRetries: 3 },
    ]);
  });

  it("returns a preflight failure's raw TransactionError and logs", async () => {
    const err = { InstructionError: [0, { Custom: 6 }] };
    answer = (request, response) =>
      json(
        200,
        {
          jsonrpc: "2.0",
          id: request.body.id,
          error: { code: -32002, message: "Transaction simulation failed", data: { err, logs: ["a", "b"] } },
        },
        response,
      );
    await expect(send()).resolves.toEqual({ kind: "rejected", err, logs: ["a", "b"] });
  });

  it("reads 'already processed' and 'blockhash not found' from the message text", async () => {
    answer = (request, response) =>
      json(
        200,
        {
          jsonrpc: "2.0",
          id: request.body.id,
          error: { code: -32002, message: "This transaction has already been processed" },
        },
        response,
      );
    await expect(send()).resolves.toEqual({ kind: "rejected", err: "AlreadyProcessed", logs: [] });
    answer = (request, response) =>
      json(
        200,
        { jsonrpc: "2.0", id: request.body.id, error: { code: -32002, message: "Blockhash not found" } },
        response,
      );
    await expect(send()).resolves.toEqual({ kind: "rejected", err: "BlockhashNotFound", logs: [] });
  });

  it("throws a 502 for any other JSON-RPC error and for a result that is not a signature", async () => {
    answer = (request, response) =>
      json(200, { jsonrpc: "2.0", id: request.body.id, error: { code: -32603, message: "internal error" } }, response);
    expect((await failureOf(send())).message).toBe("Solana RPC sendTransaction failed: internal error (code -32603)");
    answer = result(null);
    expect((await failureOf(send())).message).toBe("Solana RPC sendTransaction failed: malformed response");
  });
});
