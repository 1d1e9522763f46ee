import { describe, expect, it } from "vitest";
import { localEdge } from "../../../scripts/lib/local-edge";
import type { Env } from "../../../src/env";

/**
 * The local edge (scripts/lib/local-edge.ts) in workerd's own Request: what reaches the Worker behind it. The
 * end-to-end test (test/e2e/scripts/npm-start-serving.test.ts) shows the same through npm start's entry worker.
 */
function edgeAndSeen() {
  let seen: Request | undefined;
  const edge = localEdge({
    fetch: (request: Request) => {
      seen = request;
      return new Response("ok");
    },
  } as unknown as { fetch: ExportedHandlerFetchHandler<Env> });
  const send = async (request: Request) => {
    await edge.fetch(request as never, {} as Env, {} as ExecutionContext);
    return seen!;
  };
  return { send };
}

describe("the local edge", () => {
  it("passes a request that carries nothing of the edge's as it came (no copy on the hot path)", async () => {
    const { send } = edgeAndSeen();
    const request = new Request("http://127.0.0.1/api/v1/facilitator/verify", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Correlation-ID": "abc" },
      body: "{}",
    });
    expect(await send(request)).toBe(request);
  });

  it("empties a cf the caller chose (the direct socket's MF-CF-Blob), even without an edge header", async () => {
    const { send } = edgeAndSeen();
    const seen = await send(new Request("http://127.0.0.1/", { cf: { colo: "EVIL" } }));
    expect((seen.cf as { colo?: string } | undefined)?.colo).toBeUndefined();
  });

  it("drops Cloudflare's and Miniflare's request headers and keeps the rest", async () => {
    const { send } = edgeAndSeen();
    const seen = await send(
      new Request("http://127.0.0.1/", {
        headers: {
          "CF-Connecting-IP": "203.0.113.9",
          "True-Client-IP": "203.0.113.9",
          "MF-Original-URL": "http://evil/",
          "X-Correlation-ID": "kept",
        },
      }),
    );
    expect([...seen.headers.keys()]).toEqual(["x-correlation-id"]);
    expect((seen.cf as { colo?: string } | undefined)?.colo).toBeUndefined();
  });
});
