import { DurableObject } from "cloudflare:workers";

/** A stand-in for the settle ledger's class in bench entries that never settle (wrangler.toml binds the class name). */
export class UnusedLedgerObject extends DurableObject {}
