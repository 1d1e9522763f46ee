import { env, SELF } from "cloudflare:test";
import { buildApp } from "../../../src/app";
import type { Env } from "../../../src/env";

export const API = "http://facilitator.test/api/v1/facilitator";

/** Calls the deployed Worker entry (fetch handler inside workerd) with JSON helpers. */
export async function call(path: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("Content-Type", "application/json");
  const response = await SELF.fetch(path.startsWith("http") ? path : API + path, {
    ...rest,
    headers,
    body: json !== undefined ? JSON.stringify(json) : rest.body,
  });
  const text = await response.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Calls a fresh app with modified bindings (a new env object is a new config-cache key). */
export async function callWithEnv(overrides: Record<string, unknown>, path: string, init: RequestInit = {}) {
  const app = buildApp();
  const response = await app.request(API + path, init, { ...(env as unknown as Env), ...overrides });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}
