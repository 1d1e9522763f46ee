import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../../src/platform/errors/catalogue";
import { call } from "../../support/workerd/worker-http";

const ORIGIN = "http://facilitator.test";

type Operation = {
  parameters?: { name: string; in: string; required: boolean }[];
  responses: Record<string, { "x-reasons"?: string[] }>;
};

/**
 * The bad inputs tried on a route, first one that is refused wins: junk path parameters, a body that is not JSON, a
 * query with every required field missing or every field junk.
 */
function badRequestsFor(path: string, method: string, op: Operation): { url: string; init: RequestInit }[] {
  const params = op.parameters ?? [];
  const url = ORIGIN + path.replace(/\{[A-Za-z]+\}/g, "!not-valid!");
  const tries: { url: string; init: RequestInit }[] = [];
  if (method === "post")
    tries.push({ url, init: { method: "POST", headers: { "Content-Type": "application/json" }, body: "{not json" } });
  if (params.some((p) => p.in === "path")) tries.push({ url, init: { method: method.toUpperCase() } });
  const query = params.filter((p) => p.in === "query");
  if (query.length > 0) {
    tries.push({ url: ORIGIN + path, init: { method: method.toUpperCase() } });
    const junk = new URLSearchParams(query.map((p) => [p.name, "!not-valid!"]));
    tries.push({ url: `${ORIGIN + path}?${junk}`, init: { method: method.toUpperCase() } });
  }
  return tries;
}

/**
 * The one error body (src/http/error-handler.ts): a sentence, a catalogue code, a snake_case reason the route lists.
 */
function expectOneShape(where: string, body: any, listed: readonly string[] | undefined) {
  expect(typeof body?.error, where).toBe("string");
  expect(body.error.length, where).toBeGreaterThan(10);
  expect(Object.keys(ERROR_STATUS), where).toContain(body.code);
  expect(body.reason, where).toMatch(/^[a-z0-9_]+$/);
  if (listed) expect(listed, `${where}: reason ${body.reason} is listed in x-reasons`).toContain(body.reason);
}

describe("one error shape on every route", () => {
  it("answers a bad input on every API operation of /openapi.json with error, code and a listed reason", async () => {
    const { body: doc } = await call(ORIGIN + "/openapi.json");
    const checked: string[] = [];
    const inputless: string[] = [];
    for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
      if (!path.startsWith("/api/v1/facilitator/")) continue;
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const listed = op.responses["4XX"]?.["x-reasons"];
        let refused = false;
        for (const { url, init } of badRequestsFor(path, method, op)) {
          const response = await call(url, init);
          if (response.status < 400) continue;
          expectOneShape(where, response.body, listed);
          refused = true;
          break;
        }
        if (refused) checked.push(where);
        else inputless.push(where);
      }
    }
    // Routes that take no input cannot be sent a bad one: the router's own refusal (an unknown method) has the shape
    // too.
    for (const where of inputless) {
      const path = where.split(" ")[1]!;
      const response = await call(ORIGIN + path, { method: "DELETE" });
      expect(response.status, where).toBeGreaterThanOrEqual(400);
      expectOneShape(`DELETE ${path}`, response.body, undefined);
    }
    expect(checked.length).toBeGreaterThan(40);
    expect(checked).toEqual(
      expect.arrayContaining([
        "POST /api/v1/facilitator/verify",
        "POST /api/v1/facilitator/settle",
        "POST /api/v1/facilitator/build-exact-payment-tx",
      ]),
    );
  });
});

describe("networks are judged alike on every route", () => {
  const evmLine = (network: string) => ({
    scheme: "exact",
    network,
    asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    amount: "10000",
    payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
    maxTimeoutSeconds: 60,
    extra: {},
  });
  const payer = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

  for (const network of ["base-sepolia", "eip155:84532", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"]) {
    it(`refuses a ${network} line as invalid_network on the builders, /verify and /settle`, async () => {
      const line = evmLine(network);
      for (const path of ["/build-exact-payment-tx", "/build-upto-deposit-tx", "/build-sla-escrow-payment-tx"]) {
        const response = await call(path, {
          method: "POST",
          json: {
            payer,
            accepted: {
              ...line,
              scheme: path.includes("upto") ? "upto" : path.includes("escrow") ? "sla-escrow" : "exact",
            },
          },
        });
        expect(response.status, path).toBe(400);
        expect(response.body, path).toMatchObject({ code: "BAD_REQUEST", reason: "invalid_network" });
        expect(response.body.error, path).toContain(network);
      }
      const paymentBody = {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: line, payload: { transaction: "AAAA" } },
        paymentRequirements: line,
      };
      const verify = await call("/verify", { method: "POST", json: paymentBody });
      expect(verify.body).toMatchObject({
        isValid: false,
        invalidReason: "invalid_network",
        reason: "invalid_network",
      });
      const settle = await call("/settle", { method: "POST", json: paymentBody });
      expect(settle.body).toMatchObject({ success: false, errorReason: "invalid_network", reason: "invalid_network" });
    });
  }

  it("enrich leaves other networks' lines untouched, and says so when no line is for this facilitator", async () => {
    const onlyEvm = await call("/payment-required/enrich", {
      method: "POST",
      json: {
        x402Version: 2,
        resource: { url: "https://seller.example/r" },
        accepts: [evmLine("eip155:84532"), evmLine("base-sepolia")],
      },
    });
    expect(onlyEvm.status).toBe(400);
    expect(onlyEvm.body).toMatchObject({ reason: "no_line_for_facilitator" });
    expect(onlyEvm.body.error).toContain("eip155:84532");

    const { body: supported } = await call("/supported");
    const network = supported.kinds[0].network as string;
    const mixed = await call("/payment-required/enrich", {
      method: "POST",
      json: {
        x402Version: 2,
        resource: { url: "https://seller.example/r" },
        accepts: [
          evmLine("eip155:84532"),
          {
            ...evmLine(network),
            asset: supported.kinds[0].extra?.usdc ?? "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
            payTo: payer,
          },
        ],
      },
    });
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(200);
    expect(mixed.body.accepts[0]).toEqual(evmLine("eip155:84532"));
    expect(mixed.body.accepts[1].extra.merchantWallet).toBe(payer);
  });
});
