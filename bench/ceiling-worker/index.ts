/**
 * TEST-ONLY (benchmark): the least a /verify can do on the real-timing bench: read the body, forward the buyer's
 * transaction to simulateTransaction once, answer from the result. No checks at all. Its throughput at c=32 on the
 * same machine, chain and client is the ceiling a facilitator's verify can reach there: what it loses to the latency
 * bound is the machine's (the chain, the client and workerd sharing its cores), not the facilitator's.
 */
interface Env {
  SOLANA_RPC_URL: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST") return new Response("ok"); // the start-up probe
    const body = (await request.json()) as { paymentPayload: { payload: { transaction: string } } };
    const simulation = await fetch(env.SOLANA_RPC_URL, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "simulateTransaction",
        params: [
          body.paymentPayload.payload.transaction,
          { encoding: "base64", sigVerify: false, replaceRecentBlockhash: false, commitment: "confirmed" },
        ],
      }),
    });
    const answer = (await simulation.json()) as { result?: { value: { err: unknown } } };
    const isValid = answer.result?.value.err === null;
    return Response.json(isValid ? { isValid } : { isValid, invalidReason: "simulation_failed" });
  },
};

/**
 * wrangler.toml binds the settle ledger's Durable Object class, so every entry bundled with it must export one; this
 * one is never called.
 */
export { UnusedLedgerObject as SettleLedgerObject } from "../unused-ledger-object";
