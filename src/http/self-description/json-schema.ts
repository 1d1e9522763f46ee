import type * as v from "valibot";
import { isBase58Address } from "../../chain/base58";

/**
 * Describes a valibot schema as JSON Schema (draft 2020-12, as OpenAPI 3.1 uses), so that /openapi.json is
 * generated from the very schemas that validate requests. Covers the constructs the routes use; a custom check is
 * described by its message (and the address check by its alphabet); transforms are left out.
 */
type JsonSchema = Record<string, unknown>;

interface SchemaNode {
  type: string;
  kind?: string;
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  options?: unknown[];
  item?: SchemaNode;
  value?: SchemaNode;
  literal?: unknown;
  pipe?: ActionNode[];
  requirement?: unknown;
}

interface ActionNode {
  kind: string;
  type: string;
  requirement?: unknown;
  message?: unknown;
}

/** What `isBase58Address` accepts, as far as a pattern can say it (it also decodes to exactly 32 bytes). */
const BASE58_ADDRESS_PATTERN = "^[1-9A-HJ-NP-Za-km-z]{32,44}$";

export function toJsonSchema(schema: v.GenericSchema): JsonSchema {
  return describe(schema as unknown as SchemaNode);
}

function describe(node: SchemaNode): JsonSchema {
  const base = describeType(node);
  for (const action of node.pipe?.slice(1) ?? []) applyAction(base, action);
  return base;
}

function describeType(node: SchemaNode): JsonSchema {
  switch (node.type) {
    case "object":
    case "loose_object":
    case "strict_object": {
      const entries = Object.entries(node.entries ?? {});
      const required = entries.filter(([, entry]) => !isOptional(entry)).map(([key]) => key);
      return {
        type: "object",
        properties: Object.fromEntries(entries.map(([key, entry]) => [key, describe(entry)])),
        ...(required.length > 0 ? { required } : {}),
        ...(node.type === "strict_object" ? { additionalProperties: false } : {}),
      };
    }
    case "optional":
    case "exact_optional":
    case "nullish":
    case "undefinedable":
      return describe(node.wrapped!);
    case "nullable":
      return { anyOf: [describe(node.wrapped!), { type: "null" }] };
    case "string":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "literal":
      return { const: node.literal };
    case "picklist":
      return { enum: node.options };
    case "union":
    case "variant":
      return { anyOf: (node.options as SchemaNode[]).map(describe) };
    case "array":
      return { type: "array", items: describe(node.item!) };
    case "record":
      return { type: "object", additionalProperties: describe(node.value!) };
    default:
      return {};
  }
}

function isOptional(node: SchemaNode): boolean {
  return ["optional", "exact_optional", "nullish", "undefinedable"].includes(node.type);
}

function applyAction(target: JsonSchema, action: ActionNode): void {
  if (action.kind !== "validation") return;
  // JSON has no bigint: a u64 bound is written as a (possibly rounded) number rather than breaking serialisation.
  const requirement = typeof action.requirement === "bigint" ? Number(action.requirement) : action.requirement;
  switch (action.type) {
    case "regex":
      target.pattern = (requirement as RegExp).source;
      break;
    case "min_length":
      target[target.type === "array" ? "minItems" : "minLength"] = requirement;
      break;
    case "max_length":
      target[target.type === "array" ? "maxItems" : "maxLength"] = requirement;
      break;
    case "min_value":
      target.minimum = requirement;
      break;
    case "max_value":
      target.maximum = requirement;
      break;
    case "integer":
      target.type = "integer";
      break;
    case "url":
      target.format = "uri";
      break;
    case "check":
      if (action.requirement === isBase58Address) target.pattern = BASE58_ADDRESS_PATTERN;
      if (typeof action.message === "string") target.description = action.message;
      break;
  }
}
