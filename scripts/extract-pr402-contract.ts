/**
 * Extracts the wire contract of pr402 (field names, required fields, types) from its public/openapi.json into
 * test/support/pr402-contract.json, which test/worker/http/pr402/contract.test.ts compares with this service.
 *
 *   git -C <pr402 mirror> show HEAD:public/openapi.json > /tmp/pr402-openapi.json
 *   npx tsx scripts/extract-pr402-contract.ts /tmp/pr402-openapi.json <pr402 commit>
 *
 * Only the shape is kept (no descriptions or examples): the fixture is a fact sheet about pr402, not its text.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Shape } from "../test/support/workerd/pr402-shape";

// biome-ignore lint/suspicious/noExplicitAny: a schema of the OpenAPI document, any JSON under any key, walked by name
type OpenApiSchema = Record<string, any>;

const [sourcePath, commit] = process.argv.slice(2);
if (!sourcePath || !commit) throw new Error("usage: extract-pr402-contract.ts <openapi.json> <pr402 commit>");
const doc = JSON.parse(readFileSync(sourcePath, "utf8"));
const components: Record<string, OpenApiSchema> = doc.components?.schemas ?? {};

function shapeOf(schema: OpenApiSchema | undefined, depth = 0): Shape {
  if (!schema) return {};
  if (schema.$ref) {
    const name = String(schema.$ref).split("/").pop()!;
    return depth > 6 ? { type: "object" } : shapeOf(components[name], depth + 1);
  }
  const shape: Shape = {};
  if (schema.type) shape.type = schema.type;
  if (schema.nullable) shape.nullable = true;
  if (schema.enum) shape.enum = schema.enum;
  if (schema.oneOf ?? schema.anyOf)
    shape.oneOf = (schema.oneOf ?? schema.anyOf).map((s: OpenApiSchema) => shapeOf(s, depth + 1));
  if (schema.properties) {
    shape.type ??= "object";
    shape.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, shapeOf(v as OpenApiSchema, depth + 1)]),
    );
  }
  if (schema.required) shape.required = schema.required;
  if (schema.items) shape.items = shapeOf(schema.items, depth + 1);
  if (typeof schema.additionalProperties === "object")
    shape.additionalProperties = shapeOf(schema.additionalProperties, depth + 1);
  else if (schema.additionalProperties === false) shape.additionalProperties = false;
  return shape;
}

const PREFIX = "/api/v1/facilitator";
const operations = [];
for (const [path, item] of Object.entries<Record<string, OpenApiSchema>>(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (!["get", "post"].includes(method)) continue;
    const params = (op.parameters ?? []) as OpenApiSchema[];
    const body = op.requestBody?.content?.["application/json"]?.schema;
    const ok = op.responses?.["200"]?.content?.["application/json"]?.schema;
    operations.push({
      operationId: op.operationId,
      method: method.toUpperCase(),
      path: path.startsWith(PREFIX) ? path.slice(PREFIX.length) : path,
      auth: op.security ? "bearer" : undefined,
      query: params
        .filter((p) => p.in === "query")
        .map((p) => ({ name: p.name, required: Boolean(p.required), ...shapeOf(p.schema) })),
      path_params: params.filter((p) => p.in === "path").map((p) => p.name),
      ...(body ? { body: shapeOf(body) } : {}),
      ...(ok ? { response: shapeOf(ok) } : {}),
    });
  }
}

const fixture = {
  source: `github.com/miralandlabs/pr402 @ ${commit}: public/openapi.json (info.version ${doc.info?.version})`,
  generatedBy: "scripts/extract-pr402-contract.ts",
  operations,
};
writeFileSync(new URL("../test/support/pr402-contract.json", import.meta.url), JSON.stringify(fixture, null, 1) + "\n");
console.log(`${operations.length} operations`);
