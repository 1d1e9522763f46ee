import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Database = DrizzleD1Database<typeof schema>;

const instances = new WeakMap<D1Database, Database>();

/** One drizzle wrapper per D1 binding (cheap, but no reason to rebuild it per query). */
export function database(d1: D1Database): Database {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}
