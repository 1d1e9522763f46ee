import { env } from "cloudflare:test";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { chainRpc, fundedBuyer } from "../../support/workerd/chain";
import { type Commit, describeCommits, durableCommitsOf, postTo } from "../../support/workerd/durable-commits";
import { escrowLine, hex32, ORACLE, signedEscrowBody } from "../../support/workerd/escrow-fixtures";
import { isolatedFacilitator } from "../../support/workerd/isolated-facilitator";
import { createUsdcAccount, DEVNET, RESOURCE, signAsBuyer, USDC } from "../../support/workerd/payment-fixtures";
import { uptoBody, uptoClaimBody, uptoDeposit, uptoLine } from "../../support/workerd/upto-fixtures";
import { callWithEnv } from "../../support/workerd/worker-http";

/**
 * The durable commits of one settle, per rail (docs/scale.md, "Durable commits per settle"): the answer waits for at
 * most AWAITED_PER_SETTLE of them — the claim before the send (one D1 transaction that also books what the payment
 * costs the fee payer and writes the rail's rows) and the success report before the answer (one storage commit of the
 * payment's ledger object: its row, the report and, when due, its alarm) — and everything else is written after the
 * answer. Counted on the real Worker, D1, ledger objects and local chain (test/support/workerd/durable-commits.ts says
 * what "awaited" means); a commit added on the way to the answer fails this test.
 */
const AWAITED_PER_SETTLE = 2;
/** After the answer: the ledger object's mirror to D1 and the seller's history row (each one D1 transaction). */
const AFTER_THE_ANSWER_AT_MOST = 3;

function expectCommits(commits: Commit[], awaited = AWAITED_PER_SETTLE, after = AFTER_THE_ANSWER_AT_MOST) {
  const waitedFor = commits.filter((c) => c.awaited);
  expect(waitedFor.length, describeCommits(commits)).toBeLessThanOrEqual(awaited);
  expect(commits.length - waitedFor.length, describeCommits(commits)).toBeLessThanOrEqual(after);
  return commits;
}

async function settled(response: Response): Promise<Record<string, any>> {
  const body = (await response.json()) as Record<string, any>;
  expect(body, JSON.stringify(body)).toMatchObject({ success: true });
  return body;
}

describe(
  "durable commits per settle: the claim before the send and the report before the answer, nothing else " + "awaited",
  () => {
    it("exact, vault payTo (object ledger)", async () => {
      const f = await isolatedFacilitator("commits-exact-vault");
      const buyer = await fundedBuyer(5_000_000);
      const body = await f.signedBody(buyer, await f.line(USDC, "100000"));
      const { response, commits } = await durableCommitsOf((db) => postTo({ ...f.env, ...db }, "/settle", body));
      await settled(response);
      const awaited = expectCommits(commits).filter((c) => c.awaited);
      // The claim's D1 transaction carries the payment's fee booking; the report is the object's one storage commit.
      expect(awaited.map((c) => c.store)).toEqual(["d1", "object storage"]);
    });

    it("exact, wallet payTo (object ledger)", async () => {
      const f = await isolatedFacilitator("commits-exact-wallet");
      const seller = await generateKeyPairSigner();
      await chainRpc("requestAirdrop", [seller.address, 1_000_000_000]);
      await createUsdcAccount(seller.address, seller);
      const buyer = await fundedBuyer(5_000_000);
      const accepted = {
        scheme: "exact",
        network: DEVNET,
        payTo: seller.address,
        asset: USDC,
        amount: "100000",
        maxTimeoutSeconds: 60,
        extra: { feePayer: f.feePayer },
      };
      const built = await f.post("/build-exact-payment-tx", { payer: buyer.address, accepted });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const body = built.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
      const { response, commits } = await durableCommitsOf((db) => postTo({ ...f.env, ...db }, "/settle", body));
      await settled(response);
      expectCommits(commits);
    });

    it("exact on the D1 ledger: the claim and the report, both D1", async () => {
      const f = await isolatedFacilitator("commits-exact-d1", { SVC_SETTLE_LEDGER: "d1" });
      const buyer = await fundedBuyer(5_000_000);
      const body = await f.signedBody(buyer, await f.line(USDC, "100000"));
      const { response, commits } = await durableCommitsOf((db) => postTo({ ...f.env, ...db }, "/settle", body));
      await settled(response);
      const awaited = expectCommits(commits).filter((c) => c.awaited);
      expect(awaited.map((c) => c.store)).toEqual(["d1", "d1"]);
    });

    it("upto deposit, then upto claim", async () => {
      const f = await isolatedFacilitator("commits-upto");
      const authorizer = await generateKeyPairSigner();
      const buyer = await fundedBuyer(5_000_000);
      const line = await uptoLine({ feePayer: f.feePayer, authorizer: authorizer.address });
      const deposit = await uptoDeposit(buyer, line);
      const opened = await durableCommitsOf((db) =>
        postTo({ ...f.env, ...db }, "/settle", uptoBody(line, { ...deposit, type: "deposit" })),
      );
      await settled(opened.response);
      // The claim's transaction writes the channel's row with its rent and the open's fee booking.
      expectCommits(opened.commits);

      const claim = await uptoClaimBody(line, deposit, 750_000n, authorizer);
      const claimed = await durableCommitsOf((db) => postTo({ ...f.env, ...db }, "/settle", claim));
      await settled(claimed.response);
      // The claim's transaction stores the signed claim on the channel and books its fee.
      expectCommits(claimed.commits);
    });

    it("sla-escrow, buyer-paid and sponsored", async () => {
      const buyer = await fundedBuyer(5_000_000, 1_000_000_000);
      const paid = await signedEscrowBody(
        buyer,
        await escrowLine(USDC, "1000000", (await generateKeyPairSigner()).address),
      );
      const buyerPaid = await durableCommitsOf((db) => postTo(db, "/settle", paid.body));
      await settled(buyerPaid.response);
      // The claim's transaction also registers the funding with the escrow keeper.
      expectCommits(buyerPaid.commits);

      const sponsorOn = { SVC_SLA_ESCROW_ALLOW_FACILITATOR_FEE_SPONSORSHIP: "yes" };
      const line = await escrowLine(USDC, "1000000", (await generateKeyPairSigner()).address);
      const built = await callWithEnv(sponsorOn, "/build-sla-escrow-payment-tx", {
        method: "POST",
        body: JSON.stringify({
          payer: buyer.address,
          accepted: line,
          resource: RESOURCE,
          slaHash: hex32(),
          oracleAuthority: ORACLE,
          facilitatorPaysTransactionFees: true,
        }),
        headers: { "Content-Type": "application/json" },
      });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const body = built.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
      const sponsored = await durableCommitsOf((db) => postTo({ ...sponsorOn, ...db }, "/settle", body));
      await settled(sponsored.response);
      // The sponsored funding's fee is booked in the same claim transaction.
      expectCommits(sponsored.commits);
      const booking = await env.DB.prepare(
        "SELECT kind, state FROM fee_payer_exposure WHERE payer = ? AND kind = 'sponsored_funding'",
      )
        .bind(buyer.address as Address)
        .first();
      expect(booking).toEqual({ kind: "sponsored_funding", state: "spent" });
    });
  },
);
