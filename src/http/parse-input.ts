import * as v from "valibot";
import { badRequest, FacilitatorError } from "../errors/catalogue";
import { describeIssues } from "../validation/issue-message";
import type { AppContext } from "./context";
import { parseJsonText } from "./json-text";

/** Reads a JSON body and validates it: malformed JSON, wrong types and unknown shapes all become a 400 naming the field. */
export async function parseJsonBody<S extends v.GenericSchema>(c: AppContext, schema: S): Promise<v.InferOutput<S>> {
  const contentType = c.req.header("Content-Type") ?? "";
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType) && !/^text\/plain\b/i.test(contentType)) {
    throw new FacilitatorError("UNSUPPORTED_MEDIA_TYPE", "Request body must be JSON (Content-Type: application/json)");
  }
  const parsed = parseJsonText(await c.req.text());
  if (!parsed.ok) throw badRequest(parsed.message);
  return validate(schema, parsed.value, "body");
}

/** Validates query parameters (as a plain object of strings). */
export function parseQuery<S extends v.GenericSchema>(c: AppContext, schema: S): v.InferOutput<S> {
  return validate(schema, c.req.query(), "query");
}

/** Validates path parameters. */
export function parsePathParams<S extends v.GenericSchema>(c: AppContext, schema: S): v.InferOutput<S> {
  return validate(schema, c.req.param(), "path");
}

export function validate<S extends v.GenericSchema>(schema: S, input: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  throw badRequest(describeIssues(result.issues, where));
}
