import { describe, expect, it } from "vitest";
import { buildApp } from "../../../../src/app";
import { call } from "../../../support/workerd/worker-http";

const ORIGIN = "http://facilitator.test";

/** `METHOD /path` of every operation documented in an OpenAPI description. */
function documentedOperations(doc: { paths: Record<string, Record<string, unknown>> }): Set<string> {
  const ops = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const method of Object.keys(item)) ops.add(`${method.toUpperCase()} ${path}`);
  return ops;
}

/** `METHOD /path` of every route Hono serves (middleware is mounted as ALL and is not an operation). */
function servedOperations(): Set<string> {
  return new Set(
    buildApp()
      .routes.filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`),
  );
}

describe("GET /openapi.json", () => {
  it(
    "is OpenAPI 3.1 with description version 1.1.0 and the discovery schemaVersion (validated in " +
      "test/e2e/http/self-description/artifacts.test.ts)",
    async () => {
      const { status, body } = await call(ORIGIN + "/openapi.json");
      expect(status).toBe(200);
      expect(body.openapi).toBe("3.1.0");
      expect(body.info.version).toBe("1.1.0");
      expect(body.info["x-schemaVersion"]).toBe("1.2.0");
    },
  );

  it("documents exactly the routes the app serves, both ways", async () => {
    const { body } = await call(ORIGIN + "/openapi.json");
    const documented = documentedOperations(body);
    const served = servedOperations();
    expect(
      [...served].filter((op) => !documented.has(op)),
      "served but undocumented",
    ).toEqual([]);
    expect(
      [...documented].filter((op) => !served.has(op)),
      "documented but not served",
    ).toEqual([]);
  });

  it(
    "puts the bearer scheme on operator routes only, and the catalogue error body on every API " + "operation",
    async () => {
      const { body } = await call(ORIGIN + "/openapi.json");
      expect(body.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
      const sweep = body.paths["/api/v1/facilitator/sweep"].post;
      expect(sweep.security).toEqual([{ bearerAuth: [] }]);
      expect(body.paths["/api/v1/facilitator/verify"].post.security).toBeUndefined();
      const errorSchema = body.components.schemas.JsonError;
      expect(errorSchema.required).toEqual(["error", "code", "reason", "correlationId"]);
      expect(errorSchema.properties.code.enum).toEqual(
        expect.arrayContaining(["BAD_REQUEST", "PAYMENT_INVALID", "RATE_LIMITED", "NOT_FOUND"]),
      );
      for (const [path, item] of Object.entries<Record<string, any>>(body.paths)) {
        if (!path.startsWith("/api/v1/facilitator/")) continue;
        for (const op of Object.values(item)) {
          if (op.tags[0] === "Artifacts") continue;
          const schema = op.responses["4XX"].content["application/json"].schema;
          expect(schema.allOf[0].$ref).toBe("#/components/schemas/JsonError");
          // Each operation lists its own reasons, as x-reasons and as the enum of `reason`.
          expect(schema.allOf[1].properties.reason.enum).toEqual(op.responses["4XX"]["x-reasons"]);
          expect(op.responses["4XX"]["x-reasons"]).toContain("internal_error");
        }
      }
    },
  );

  it("generates request bodies, query and path parameters, and success bodies from the valibot schemas", async () => {
    const { body } = await call(ORIGIN + "/openapi.json");
    const build = body.paths["/api/v1/facilitator/build-exact-payment-tx"].post;
    const request = build.requestBody.content["application/json"].schema;
    expect(request.type).toBe("object");
    expect(request.required).toEqual(expect.arrayContaining(["payer"]));
    const success = build.responses["200"].content["application/json"].schema;
    expect(success.required).toEqual(
      expect.arrayContaining(["transaction", "verifyBodyTemplate", "payerSignatureIndex"]),
    );
    const verify = body.paths["/api/v1/facilitator/verify"].post;
    expect(verify.requestBody.content["application/json"].schema.required).toEqual(
      expect.arrayContaining(["paymentPayload", "paymentRequirements"]),
    );
    const preview = body.paths["/api/v1/facilitator/sellers/{wallet}/preview"].get;
    // Path parameters are described by the route's params schema, as the query's are.
    expect(preview.parameters).toEqual([
      {
        name: "wallet",
        in: "path",
        required: true,
        schema: {
          type: "string",
          pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$",
          description: "must be a base58 Solana address (32 bytes)",
        },
      },
    ]);
    const settlement = body.paths["/api/v1/facilitator/settlements/{signature}"].get;
    expect(settlement.parameters[0]).toMatchObject({
      name: "signature",
      in: "path",
      schema: { pattern: "^[1-9A-HJ-NP-Za-km-z]{64,88}$" },
    });
    for (const [path, item] of Object.entries<Record<string, { parameters?: { in: string; name: string }[] }>>(
      body.paths,
    )) {
      const named = [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]);
      for (const operation of Object.values(item))
        expect(
          (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
          path,
        ).toEqual(named);
    }
    const search = body.paths["/api/v1/facilitator/resources"].get;
    expect(search.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["q"]));
  });

  it("the error body it documents is what the service really answers", async () => {
    const { status, body } = await call("/build-exact-payment-tx", { method: "POST", json: { nonsense: true } });
    expect(status).toBe(400);
    expect(Object.keys(body)).toEqual(expect.arrayContaining(["error", "code", "correlationId"]));
    const doc = (await call(ORIGIN + "/openapi.json")).body;
    expect(doc.components.schemas.JsonError.properties.code.enum).toContain(body.code);
  });
});
