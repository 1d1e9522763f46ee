/** The facilitator API as the pages read it (same origin). */
export const API = "/api/v1/facilitator";

/** GET a JSON document of the API; a non-2xx answer throws with the body's `error` sentence. */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(API + path, { headers: { Accept: "application/json" } });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(body.error || "HTTP " + response.status);
  return body;
}
