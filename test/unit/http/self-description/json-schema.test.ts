import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { toJsonSchema } from "../../../../src/http/self-description/json-schema";
import { VerifySettleBodySchema } from "../../../../src/rails/registry";

describe("valibot → JSON Schema (for /openapi.json)", () => {
  it("describes objects, required keys, optional keys, pipes and nested shapes", () => {
    const schema = v.object({
      name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
      amount: v.pipe(v.string(), v.regex(/^\d+$/)),
      count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
      kind: v.picklist(["a", "b"]),
      tags: v.array(v.string()),
      url: v.pipe(v.string(), v.url()),
      version: v.literal(2),
    });
    expect(toJsonSchema(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 64 },
        amount: { type: "string", pattern: "^\\d+$" },
        count: { type: "integer", minimum: 1, maximum: 100 },
        kind: { enum: ["a", "b"] },
        tags: { type: "array", items: { type: "string" } },
        url: { type: "string", format: "uri" },
        version: { const: 2 },
      },
      required: ["name", "amount", "kind", "tags", "url", "version"],
    });
  });

  it("describes the verify/settle body with its nested requirement line", () => {
    const schema = toJsonSchema(VerifySettleBodySchema) as any;
    // Issue 23: a body whose x402Version is only inside paymentPayload is a v2 body, so the top-level one is optional,
    // and when present it must be 2.
    expect(schema.required).toEqual(["paymentPayload", "paymentRequirements"]);
    expect(schema.properties.x402Version).toEqual({ const: 2 });
    expect(schema.properties.paymentRequirements.properties.amount).toMatchObject({
      type: "string",
      pattern: "^\\d{1,20}$",
    });
    // The payload is one of the rails' shapes: a signed transaction (exact, sla-escrow) or an upto channel payload.
    const [transactionShape, uptoShape] = schema.properties.paymentPayload.properties.payload.anyOf;
    expect(transactionShape.properties.transaction.type).toBe("string");
    expect(transactionShape.required).toEqual(["transaction"]);
    expect(uptoShape.properties.openTransaction.type).toBe("string");
    expect(uptoShape.required).toContain("channelId");
  });
});
