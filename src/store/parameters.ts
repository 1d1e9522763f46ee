import { eq } from "drizzle-orm";
import { database } from "./db";
import { parameters } from "./schema";

/** All operator parameters from D1 as key → value. */
export async function readParameters(d1: D1Database): Promise<Map<string, string>> {
  const rows = await database(d1).select({ key: parameters.key, value: parameters.value }).from(parameters);
  return new Map(rows.map((r) => [r.key, r.value]));
}

export async function writeParameter(d1: D1Database, key: string, value: string): Promise<void> {
  const now = Date.now();
  await database(d1)
    .insert(parameters)
    .values({ key, value, updatedAtMs: now })
    .onConflictDoUpdate({ target: parameters.key, set: { value, updatedAtMs: now } });
}

export async function deleteParameter(d1: D1Database, key: string): Promise<void> {
  await database(d1).delete(parameters).where(eq(parameters.key, key));
}

/** `connected` when a trivial query answers, `error` otherwise (health check). */
export async function probeDatabase(d1: D1Database | undefined): Promise<"connected" | "disabled" | "error"> {
  if (!d1) return "disabled";
  try {
    await d1.prepare("SELECT 1").first();
    return "connected";
  } catch {
    return "error";
  }
}
