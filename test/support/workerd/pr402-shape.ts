import contract from "../pr402-contract.json";

/**
 * pr402's wire contract as extracted from its public/openapi.json (test/support/pr402-contract.json, made by
 * scripts/extract-pr402-contract.ts; the fixture's `source` names the commit). Helpers shared by the contract tests.
 */
export interface Shape {
  type?: string;
  required?: string[];
  properties?: Record<string, Shape>;
  items?: Shape;
  additionalProperties?: Shape | boolean;
  nullable?: true;
  enum?: unknown[];
  oneOf?: Shape[];
}

export interface Pr402Operation {
  operationId: string;
  method: "GET" | "POST";
  path: string;
  auth?: string;
  query: (Shape & { name: string; required: boolean })[];
  path_params: string[];
  body?: Shape;
  response?: Shape;
}

export const PR402 = contract as { source: string; operations: Pr402Operation[] };

export function pr402Operation(operationId: string): Pr402Operation {
  const op = PR402.operations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no pr402 operation ${operationId}`);
  return op;
}

/**
 * Enum values we send beyond pr402's documented ones, on purpose (also in docs/pr402-compatibility.md), keyed by the
 * end of the member's path. pr402's own client reads these members as plain strings, so an extra value decodes.
 */
export const OUR_ENUM_EXTENSIONS: Record<string, { values: unknown[]; reason: string }> = {
  "lifecycle.nextStep": {
    values: ["create_token_account"],
    reason:
      "issue 20: sweeps never create the seller's token account, so the preview names that step; pr402's " +
      "SellerLifecycle.next_step is an Option<String> (src/facilitator.rs), so its client decodes it",
  },
};

/** Whether `value` at path `at` is one of our deliberate enum extensions. */
export function isEnumExtension(at: string, value: unknown): boolean {
  return Object.entries(OUR_ENUM_EXTENSIONS).some(
    ([suffix, extension]) => at.endsWith(`.${suffix}`) && extension.values.includes(value),
  );
}

/** Whether a JSON value has pr402's type (integer = a whole number). */
function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

/**
 * Problems of a live JSON value against a pr402 shape: a missing required member, a wrong type, a value outside an
 * enum. Optional members are checked when present; `null` is accepted only where pr402 says nullable or the member
 * is optional (a Rust `Option` reads null as absent).
 */
export function shapeProblems(value: unknown, shape: Shape, at = "$", optional = false): string[] {
  if (value === null) return shape.nullable || optional ? [] : [`${at}: null`];
  if (shape.oneOf)
    return shape.oneOf.some((s) => shapeProblems(value, s, at).length === 0)
      ? []
      : [`${at}: matches none of ${JSON.stringify(shape.oneOf)}`];
  if (shape.type && !hasType(value, shape.type))
    return [`${at}: expected ${shape.type}, got ${JSON.stringify(value)?.slice(0, 60)}`];
  if (shape.enum && !shape.enum.includes(value) && !isEnumExtension(at, value))
    return [`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(shape.enum)}`];
  const problems: string[] = [];
  if (Array.isArray(value) && shape.items)
    for (const [i, item] of value.entries()) problems.push(...shapeProblems(item, shape.items!, `${at}[${i}]`));
  if (hasType(value, "object")) {
    const record = value as Record<string, unknown>;
    for (const key of shape.required ?? [])
      if (!(key in record)) problems.push(`${at}.${key}: missing (required by pr402)`);
    for (const [key, member] of Object.entries(shape.properties ?? {})) {
      if (key in record)
        problems.push(...shapeProblems(record[key], member, `${at}.${key}`, !(shape.required ?? []).includes(key)));
    }
    if (typeof shape.additionalProperties === "object") {
      for (const [key, member] of Object.entries(record))
        if (!(key in (shape.properties ?? {})))
          problems.push(...shapeProblems(member, shape.additionalProperties, `${at}.${key}`));
    }
  }
  return problems;
}

/** Problems of a live response against the 200 body pr402 documents for `operationId`. */
export function pr402ResponseProblems(operationId: string, body: unknown): string[] {
  const op = pr402Operation(operationId);
  return op.response ? shapeProblems(body, op.response) : [];
}
