/**
 * The Worker as `npm start` serves it (scripts/start.ts: Miniflare's entry worker with unsafeTriggerHandlers, in front
 * of the local entry), tested from outside over HTTP:
 * - Cron Triggers: the on-demand trigger URL runs the real `scheduled` handler against the local chain and the local
 *   D1, and every expression the start script schedules is one wrangler.toml declares;
 * - the local edge (scripts/lib/local-edge.ts): what only Cloudflare may set on a request (`request.cf`, which
 *   Miniflare
 *   takes from a caller's `MF-CF-Blob` header, and `CF-Connecting-IP`) is not the caller's to choose.
 */
import {
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransaction,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import { fundFromFaucet } from "../../../demo/chain-rpc";
import { triggerScheduled } from "../../../scripts/lib/cron-runner";
import { cronsOfConfig } from "../../../scripts/lib/serve-worker";
import { RATE_LIMITS } from "../../../src/http/middleware/rate-limit";
import { CORE_JOBS_CRON, jobsByCron, RAIL_JOBS_CRON } from "../../../src/jobs/scheduled";
import { CLUSTERS } from "../../../src/platform/config/networks";
import { RAILS } from "../../../src/rails/registry";
import { withLocalWorker } from "../../support/node/local-worker";

const local = withLocalWorker({ feePayerLamports: 10_000_000_000, triggerHandlers: true, startTimeoutMs: 180_000 });

const health = async () => (await (await fetch(`${local.worker.url}/api/v1/facilitator/health`)).json()) as any;

describe("Cron Triggers under npm start", () => {
  it("schedules exactly wrangler.toml's crons, each of which has jobs", () => {
    const crons = cronsOfConfig();
    expect(crons.sort()).toEqual([CORE_JOBS_CRON, RAIL_JOBS_CRON].sort());
    for (const cron of crons) expect(jobsByCron(RAILS)[cron]?.length).toBeGreaterThan(0);
  });

  it("GET /cdn-cgi/handler/scheduled?cron= runs the trigger's jobs now, and /health shows their runs", async () => {
    const before = await health();
    expect(before.settlementKeeper.jobs).toEqual({
      sweep: null,
      "escrow-keeper": null,
      "upto-keeper": null,
      retention: null,
      "probe-resources": null,
      "search-index-merge": null,
    });

    const response = await fetch(
      `${local.worker.url}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(CORE_JOBS_CRON)}`,
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    await triggerScheduled(local.worker.url, RAIL_JOBS_CRON);

    const after = await health();
    for (const job of ["sweep", "escrow-keeper", "upto-keeper", "retention", "probe-resources", "search-index-merge"]) {
      expect(after.settlementKeeper.jobs[job], job).toMatchObject({
        trigger: "cron",
        outcome: "ok",
        lamportsSpent: "0",
      });
    }
    expect(Date.parse(after.settlementKeeper.jobs.sweep.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(after.settlementKeeper).toMatchObject({
      vaultSweepCronConfigured: true,
      slaEscrowSettleCronConfigured: true,
      databaseConnected: true,
    });
  });
});

/** What a caller would send to be believed about Cloudflare's edge: a location of its choosing and a fresh address. */
const forgedEdge = () => ({
  "MF-CF-Blob": JSON.stringify({ colo: "EVIL" }),
  "CF-Connecting-IP": `203.0.113.${Math.floor(Math.random() * 250) + 1}`,
});

async function post(path: string, json: unknown, headers: Record<string, string>) {
  const response = await fetch(local.api + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("npm start believes no caller about Cloudflare's edge", () => {
  it(
    "a caller's MF-CF-Blob does not choose the settle ledger object: the payment is claimed at the place " + "`local`",
    async () => {
      const seller = await generateKeyPairSigner();
      const buyer = await generateKeyPairSigner();
      await fundFromFaucet(local.chain.url, seller.address, 100_000_000, 1); // its own USDC account: a wallet payTo
      await fundFromFaucet(local.chain.url, buyer.address, 100_000_000, 1_000_000n);
      const line = {
        scheme: "exact",
        network: CLUSTERS.devnet.network,
        asset: CLUSTERS.devnet.usdcMint,
        amount: "10000",
        payTo: seller.address,
        maxTimeoutSeconds: 60,
        extra: { feePayer: local.feePayer.address },
      };
      const built = await post("/build-exact-payment-tx", { payer: buyer.address, accepted: line }, forgedEdge());
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const body = built.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = getBase64EncodedWireTransaction(
        await partiallySignTransaction(
          [buyer.keyPair],
          getTransactionDecoder().decode(getBase64Encoder().encode(built.body.transaction)),
        ),
      );
      const settled = await post("/settle", body, forgedEdge());
      expect(settled.status, JSON.stringify(settled.body)).toBe(200);
      expect(settled.body.success).toBe(true);

      const row = await (await local.worker.database())
        .prepare("SELECT ledger_object AS ledgerObject FROM settlements WHERE signature = ?")
        .bind(settled.body.transaction)
        .first<{ ledgerObject: string }>();
      expect(row?.ledgerObject).toMatch(/^local\/\d+$/);
    },
  );

  it("a caller's CF-Connecting-IP does not pick its rate-limit bucket: every local caller is one client", async () => {
    // Each request claims another address. Twice the build limit and more, so a 429 is due even if the limiter's
    // window turns over once meanwhile; a refused body still counts (the limit is checked before the body is read).
    const { limit } = RATE_LIMITS.build;
    const statuses: number[] = [];
    for (let sent = 0; sent < 2 * limit + 5 && !statuses.includes(429); sent++) {
      statuses.push((await post("/build-exact-payment-tx", {}, forgedEdge())).status);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status !== 429).every((status) => status === 400)).toBe(true);
  });
});
