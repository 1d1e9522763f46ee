import * as v from "valibot";
import { badRequest, FacilitatorError, refused } from "../platform/errors/catalogue";
import { describeIssues } from "../platform/validation/issue-message";
import type { AppContext } from "./context";
import { type JsonTextResult, parseJsonText } from "./json-text";

/** How a route reads its body (see `RouteSpec` in `route-def.ts`). */
export interface BodyOptions {
  emptyBodyIsDefaults: boolean;
  anyContentType: boolean;
  /** Rewrites the parsed JSON before it is validated (e.g. a bare PaymentPayload into a verify/settle body). */
  reshape?: (value: unknown) => unknown;
}

/**
 * Reads a JSON body and validates it: malformed JSON, wrong types and unknown shapes all become a 400 naming the field.
 * `parsedText`: the body's text already parsed by an earlier check of this request (route-def's network check).
 */
export async function readJsonBody<S extends v.GenericSchema>(
  c: AppContext,
  schema: S,
  options: BodyOptions,
  parsedText?: JsonTextResult,
): Promise<v.InferOutput<S>> {
  // Operator routes read the body first: an empty one means the defaults, whatever its Content-Type.
  const early = options.emptyBodyIsDefaults ? await c.req.text() : undefined;
  if (early !== undefined && early.trim() === "") return validate(schema, {}, "body");
  if (!options.anyContentType) {
    const contentType = c.req.header("Content-Type") ?? "";
    if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType) && !/^text\/plain\b/i.test(contentType)) {
      throw new FacilitatorError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Request body must be JSON (Content-Type: application/json)",
      );
    }
  }
  const parsed = parsedText ?? parseJsonText(early ?? (await c.req.text()));
  if (!parsed.ok) throw refused("invalid_json", parsed.message);
  return validate(schema, options.reshape ? options.reshape(parsed.value) : parsed.value, "body");
}

/**
 * Validates one part of a request (`where`: path, query or body) against its schema; a 400 naming the field otherwise.
 */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw badRequest(describeIssues(result.issues, where));
}
