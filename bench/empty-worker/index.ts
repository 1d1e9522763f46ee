/** The smallest Worker: the baseline `npm run bench:startup` subtracts (Miniflare's own services start either way). */
export default {
  fetch(): Response {
    return new Response("ok");
  },
};

/**
 * wrangler.toml binds the settle ledger's Durable Object class, so every entry bundled with it must export one; this
 * one is never called.
 */
export { UnusedLedgerObject as SettleLedgerObject } from "../unused-ledger-object";
