import { Hono } from "hono";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { API_PREFIX, type AppEnv } from "../../../src/http/context";
import { onError } from "../../../src/http/error-handler";
import { mountRoutes, route } from "../../../src/http/route-def";

/**
 * The route machinery on a real Hono app: the schemas a table entry declares are applied before its handler runs.
 * POST routes only, and no operator auth or rate limit: those read the deployment's config, which the worker tests
 * (input-hardening, rate-limits, operator routes) exercise on the real app.
 */
const Params = v.object({ id: v.pipe(v.string(), v.regex(/^\d+$/, "must be a number"), v.transform(Number)) });
const Query = v.object({ verbose: v.optional(v.picklist(["yes", "no"], "must be yes or no")) });
const Body = v.strictObject(
  { amount: v.pipe(v.number("must be a number"), v.integer("must be a whole number")), note: v.optional(v.string()) },
  "only amount and note are accepted",
);

function appWith(...routes: ReturnType<typeof route>[]) {
  const app = new Hono<AppEnv>();
  mountRoutes(app, routes);
  app.onError(onError);
  return app;
}

const echo = route({
  key: "echo",
  method: "POST",
  path: "/things/:id",
  summary: "echo",
  tag: "Test",
  params: Params,
  query: Query,
  body: Body,
  // The types come from the schemas: id is a number after the transform.
  handler: (c, { params, query, body }) =>
    c.json({ id: params.id + 1, verbose: query.verbose ?? null, amount: body.amount }),
});

const post = (
  app: Hono<AppEnv>,
  path: string,
  body: string,
  headers: Record<string, string> = { "Content-Type": "application/json" },
) => app.request(API_PREFIX + path, { method: "POST", body, headers });

describe("route(): a table entry's schemas are applied once, before its handler", () => {
  it("hands the handler the validated, transformed input", async () => {
    const answer = await post(appWith(echo), "/things/41?verbose=yes", JSON.stringify({ amount: 5 }));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ id: 42, verbose: "yes", amount: 5 });
  });

  it("answers a bad path, query or body with a 400 naming the field, without running the handler", async () => {
    const app = appWith(echo);
    const cases = [
      ["/things/abc", JSON.stringify({ amount: 5 }), "id: must be a number"],
      ["/things/1?verbose=maybe", JSON.stringify({ amount: 5 }), "verbose: must be yes or no"],
      ["/things/1", JSON.stringify({ amount: 1.5 }), "amount: must be a whole number"],
      ["/things/1", JSON.stringify({ amount: 1, extra: true }), "only amount and note are accepted"],
      ["/things/1", "{not json", "JSON"],
    ] as const;
    for (const [path, body, reason] of cases) {
      const answer = await post(app, path, body);
      expect(answer.status, path + body).toBe(400);
      const json = (await answer.json()) as { code: string; error: string };
      expect(json.code).toBe("BAD_REQUEST");
      expect(json.error).toContain(reason);
    }
  });

  it("refuses a non-JSON Content-Type with 415 unless the route reads any", async () => {
    const strict = await post(appWith(echo), "/things/1", JSON.stringify({ amount: 1 }), {
      "Content-Type": "text/html",
    });
    expect(strict.status).toBe(415);
    const lenient = route({
      key: "lenient",
      method: "POST",
      path: "/lenient",
      summary: "",
      tag: "Test",
      body: Body,
      anyContentType: true,
      handler: (c, { body }) => c.json(body),
    });
    const answer = await post(appWith(lenient), "/lenient", JSON.stringify({ amount: 1 }), {
      "Content-Type": "text/html",
    });
    expect(answer.status).toBe(200);
  });

  it("reads an empty body as {} only where the route says so", async () => {
    const Optional = v.strictObject({ dryRun: v.optional(v.boolean()) });
    const defaults = route({
      key: "d",
      method: "POST",
      path: "/d",
      summary: "",
      tag: "Test",
      body: Optional,
      emptyBodyIsDefaults: true,
      handler: (c, { body }) => c.json({ dryRun: body.dryRun ?? "default" }),
    });
    const required = route({
      key: "r",
      method: "POST",
      path: "/r",
      summary: "",
      tag: "Test",
      body: Optional,
      handler: (c) => c.json({}),
    });
    const app = appWith(defaults, required);
    expect(await (await post(app, "/d", "  ")).json()).toEqual({ dryRun: "default" });
    expect((await post(app, "/r", "")).status).toBe(400);
  });

  it("lets a route answer invalid input in its own shape", async () => {
    const shaped = route({
      key: "s",
      method: "POST",
      path: "/s",
      summary: "",
      tag: "Test",
      body: Body,
      invalidInput: (c, message) =>
        c.json({ isValid: false, invalidReason: "invalid_payload", invalidMessage: message }, 400),
      handler: (c) => c.json({ isValid: true }),
    });
    const answer = await post(appWith(shaped), "/s", JSON.stringify({ amount: "x" }));
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      isValid: false,
      invalidReason: "invalid_payload",
      invalidMessage: "amount: must be a number",
    });
  });

  it("refuses to build a route whose path parameters have no schema", () => {
    expect(() =>
      route({ key: "bad", method: "POST", path: "/things/:id", summary: "", tag: "Test", handler: (c) => c.json({}) }),
    ).toThrow(/no params schema/);
  });
});
