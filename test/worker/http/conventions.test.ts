import { describe, expect, it } from "vitest";
import { call } from "../../support/workerd/worker-http";

describe("HTTP conventions", () => {
  it("answers OPTIONS preflight with 204 and the CORS headers", async () => {
    const response = await call("/verify", { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(response.headers.get("Access-Control-Max-Age")).toBe("86400");
    expect(response.headers.get("Access-Control-Allow-Headers")).toContain("PAYMENT-SIGNATURE");
  });

  it("puts X-API-Version, CORS and a minted X-Correlation-ID on every response", async () => {
    const response = await call("/supported");
    expect(response.headers.get("X-API-Version")).toBe("1.1.0");
    expect(response.headers.get("Access-Control-Expose-Headers")).toContain("PAYMENT-RESPONSE");
    expect(response.headers.get("X-Correlation-ID")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("echoes a caller's correlation id, also on errors", async () => {
    const response = await call("/no-such-route", { headers: { "X-Correlation-ID": "abc-123" } });
    expect(response.headers.get("X-Correlation-ID")).toBe("abc-123");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: "No route for GET /api/v1/facilitator/no-such-route",
      code: "NOT_FOUND",
      reason: "not_found",
      correlationId: "abc-123",
    });
  });

  it("does not echo an unsafe correlation id", async () => {
    const response = await call("/supported", { headers: { "X-Correlation-ID": "<script>alert(1)</script>" } });
    expect(response.headers.get("X-Correlation-ID")).not.toContain("<");
  });

  it("treats HEAD like GET without a body", async () => {
    const response = await call("/supported", { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
    expect(response.headers.get("Content-Type")).toContain("application/json");
  });

  it("refuses an oversize body with 413 JSON", async () => {
    const big = "x".repeat(70_000);
    const response = await call("/health", {
      method: "POST",
      body: JSON.stringify({ big }),
      headers: { "Content-Type": "application/json" },
    });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(response.body.correlationId).toEqual(expect.any(String));
  });

  it("answers unknown routes with a JSON 404", async () => {
    const response = await call("http://facilitator.test/nothing/here");
    expect(response.status).toBe(404);
    expect(response.body.code).toBe("NOT_FOUND");
  });
});

describe("bad input wording", () => {
  it("a missing field says it is required, naming the field", async () => {
    const response = await call("/verify", { method: "POST", json: { x402Version: 2 } });
    expect(response.status).toBe(400);
    expect(response.body.invalidMessage).toContain("paymentPayload: is required");
    expect(JSON.stringify(response.body)).not.toMatch(/\bat [\w.]+ \(|\.ts:\d+/); // no stack trace
  });
});
