import { address, generateKeyPairSigner } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { chainRpc, fundedBuyer, lamportsOf, tokenBalance } from "../../../support/workerd/chain";
import {
  DEVNET,
  enrichedLine,
  NATIVE_SOL,
  signAsBuyer,
  signedPaymentBody,
  USDC,
} from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");

describe("exact: verify then settle on the local chain", () => {
  it("settles a USDC payment into a seller vault that did not exist yet (just-in-time provisioning)", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "1250000", (await generateKeyPairSigner()).address); // not activated
    const body = await signedPaymentBody(buyer, line);

    const verified = await call("/verify", { method: "POST", json: body });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ isValid: true, valid: true, payer: buyer.address });

    const settled = await call("/settle", { method: "POST", json: body });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
    expect(settled.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);

    const [vaultAta] = await findAssociatedTokenPda({
      owner: address(line.payTo),
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
    });
    expect(await tokenBalance(vaultAta)).toBe(1_250_000n);
    const health = await call("/health");
    expect(health.body.justInTimeProvisioning.provisionedToday).toBeGreaterThanOrEqual(1);
    expect(health.body.justInTimeProvisioning.dailyCap).toBe(25);
    const status = await chainRpc<{ value: [{ confirmationStatus: string; err: unknown } | null] }>(
      "getSignatureStatuses",
      [[settled.body.transaction], { searchTransactionHistory: true }],
    );
    expect(status.value[0]).toMatchObject({ err: null });
  });

  it("settles a native SOL payment into the vault SOL storage", async () => {
    const buyer = await fundedBuyer(0);
    const line = await enrichedLine(NATIVE_SOL, "5000000");
    const body = await signedPaymentBody(buyer, line);
    const settled = await call("/settle", { method: "POST", json: body });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body.success).toBe(true);
  });
});

describe("exact: settlement is idempotent and never doubles a payment", () => {
  it("a replayed payment is a duplicate_settlement: one payment, one success (issue 8 item 1)", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "200000");
    const body = await signedPaymentBody(buyer, line);
    const first = await call("/settle", { method: "POST", json: body });
    expect(first.body.success, JSON.stringify(first.body)).toBe(true);

    // The buyer replays PAYMENT-SIGNATURE (the body), even with the body's correlationId set: no second success.
    const replay = await call("/settle", { method: "POST", json: { ...body, correlationId: "anything" } });
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
      transaction: first.body.transaction,
    });
    expect(replay.body.errorMessage).toContain(`/settlements/${first.body.transaction}`);
    // /verify of a settled payment is invalid too, and names the settlement from the ledger.
    const verify = await call("/verify", { method: "POST", json: body });
    expect(verify.status).toBe(400);
    expect(verify.body).toMatchObject({ isValid: false, invalidReason: "duplicate_settlement" });
    expect(verify.body.invalidMessage).toContain(first.body.transaction);

    const [vaultAta] = await findAssociatedTokenPda({
      owner: address(line.payTo),
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
    });
    expect(await tokenBalance(vaultAta)).toBe(200_000n);
  });

  it("a seller retrying with its own X-Correlation-ID hears success again, within maxTimeoutSeconds only", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const line = { ...(await enrichedLine(USDC, "200000")), maxTimeoutSeconds: 2 };
    const body = await signedPaymentBody(buyer, line);
    const sellerKey = `seller-retry-${crypto.randomUUID()}`;
    const first = await call("/settle", { method: "POST", json: body, headers: { "X-Correlation-ID": sellerKey } });
    expect(first.body.success, JSON.stringify(first.body)).toBe(true);

    const retry = await call("/settle", { method: "POST", json: body, headers: { "X-Correlation-ID": sellerKey } });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ success: true, transaction: first.body.transaction, alreadySettled: true });
    const otherKey = await call("/settle", {
      method: "POST",
      json: body,
      headers: { "X-Correlation-ID": `${sellerKey}-other` },
    });
    expect(otherKey.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });

    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const late = await call("/settle", { method: "POST", json: body, headers: { "X-Correlation-ID": sellerKey } });
    expect(late.body).toMatchObject({
      success: false,
      errorReason: "duplicate_settlement",
      transaction: first.body.transaction,
    });
  });

  it("ten concurrent settles of one payment: one transaction, exactly one success", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "300000");
    // Activate the vault first through one payment so the concurrent batch races on the payment itself.
    await call("/settle", { method: "POST", json: await signedPaymentBody(buyer, line) });
    const body = await signedPaymentBody(buyer, line);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call("/settle", { method: "POST", json: body })),
    );
    const successes = results.filter((r) => r.body.success === true);
    expect(successes).toHaveLength(1);
    for (const r of results) {
      if (r.body.success) continue;
      expect(["duplicate_settlement", "settlement_pending"], JSON.stringify(r.body)).toContain(r.body.errorReason);
      // A signature is only ever the one transaction's, and never handed out before the cluster had it.
      if (r.body.transaction) expect(r.body.transaction).toBe(successes[0]!.body.transaction);
    }
    const [vaultAta] = await findAssociatedTokenPda({
      owner: address(line.payTo),
      mint: USDC,
      tokenProgram: TOKEN_PROGRAM,
    });
    expect(await tokenBalance(vaultAta)).toBe(600_000n);
    // Whoever lost the race learns the outcome later: a duplicate, never a second success.
    const after = await call("/settle", { method: "POST", json: body });
    expect(after.body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
  });

  it("GET /settlements/{signature} tells a seller or buyer what happened", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "210000");
    const settled = await call("/settle", { method: "POST", json: await signedPaymentBody(buyer, line) });
    const found = await call(`/settlements/${settled.body.transaction}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      signature: settled.body.transaction,
      state: "confirmed",
      network: DEVNET,
      payTo: line.payTo,
      asset: USDC,
      amount: "210000",
      payer: buyer.address,
      merchantWallet: line.extra.merchantWallet,
    });
    expect(Date.parse(found.body.settledAt)).toBeGreaterThan(Date.now() - 60_000);
    const unknown = await call(`/settlements/${"1".repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("NOT_FOUND");
    const malformed = await call("/settlements/not-a-signature");
    expect(malformed.status).toBe(400);
  });

  it("a payment that is already on chain (AlreadyProcessed) settles as success", async () => {
    const { base58 } = await import("@scure/base");
    const {
      createKeyPairFromBytes,
      signBytes,
      getTransactionDecoder,
      getBase64Encoder,
      getBase64EncodedWireTransaction,
    } = await import("@solana/kit");
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "100000");
    await call("/settle", { method: "POST", json: await signedPaymentBody(buyer, line) }); // vault exists now
    const body = await signedPaymentBody(buyer, line);
    // Someone (e.g. a retrying seller's earlier request) already landed this exact transaction.
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(body.paymentPayload.payload.transaction));
    const feePayerKeys = await createKeyPairFromBytes(base58.decode(TEST_FEE_PAYER.secretKeyBase58));
    const feePayerSignature = await signBytes(feePayerKeys.privateKey, tx.messageBytes);
    const landed = { ...tx, signatures: { ...tx.signatures, [TEST_FEE_PAYER.address]: feePayerSignature } };
    const signature = await chainRpc<string>("sendTransaction", [
      getBase64EncodedWireTransaction(landed as typeof tx),
      { encoding: "base64" },
    ]);
    const settled = await call("/settle", { method: "POST", json: body });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body).toMatchObject({ success: true, transaction: signature });
  });

  it("the fee payer's balance moves only by the network fees of settled payments", async () => {
    // A fee payer of its own, so that payments settled by other test files at the same time do not count.
    const feePayer = labelledKeypair(`fee-payer-balance/${crypto.randomUUID()}`);
    await chainRpc("requestAirdrop", [feePayer.address, 5_000_000_000]);
    const env = { FEE_PAYER_SECRET_KEY: feePayer.secretKeyBase58 };
    const post = async (path: string, json: unknown) =>
      callWithEnv(env, path, {
        method: "POST",
        body: JSON.stringify(json),
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() },
      });
    const signedBody = async (line: Record<string, any>) => {
      const built = await post("/build-exact-payment-tx", { payer: buyer.address, accepted: line });
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const body = built.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
      return body;
    };

    const buyer = await fundedBuyer(20_000_000);
    const enriched = await post("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/a" },
      // A payment of at least the recovery target (1 USDC on the local chain) for a vault fronted just in time.
      accepts: [
        {
          scheme: "exact",
          network: DEVNET,
          asset: USDC,
          amount: "1000000",
          payTo: (await fundedBuyer(0)).address,
          maxTimeoutSeconds: 60,
        },
      ],
    });
    const line = enriched.body.accepts[0];
    expect(line.extra.feePayer).toBe(feePayer.address);
    // just-in-time vault, not counted below
    expect((await post("/settle", await signedBody(line))).body.success).toBe(true);

    const before = await lamportsOf(address(feePayer.address));
    const signatures: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = await signedBody(line);
      // Rejected attempts in between cost nothing.
      expect((await post("/settle", { ...body, paymentRequirements: { ...line, amount: "1" } })).status).toBe(400);
      expect((await post("/verify", body)).status).toBe(200);
      const settled = await post("/settle", body);
      expect(settled.body.success).toBe(true);
      signatures.push(settled.body.transaction);
      // a replay costs nothing either
      expect((await post("/settle", body)).body.errorReason).toBe("duplicate_settlement");
    }
    const after = await lamportsOf(address(feePayer.address));
    let fees = 0n;
    for (const signature of signatures) {
      const tx = await chainRpc<{ meta: { fee: number } }>("getTransaction", [
        signature,
        { encoding: "json", maxSupportedTransactionVersion: 0 },
      ]);
      // Two signatures at 5,000 lamports plus a priority fee of 20,000 CU × 1 micro-lamport (rounded up to 1).
      expect(BigInt(tx.meta.fee)).toBe(10_001n);
      fees += BigInt(tx.meta.fee);
    }
    expect(before - after).toBe(fees);
  });
});

describe("exact: the audit trail", () => {
  it(
    "records every settle attempt with outcome, payer, amount, asset, signature and correlation id (verify writes " +
      "none)",
    async () => {
      const { env } = await import("cloudflare:test");
      const buyer = await fundedBuyer(5_000_000);
      const line = await enrichedLine(USDC, "120000");
      const body = await signedPaymentBody(buyer, line);
      const correlationId = `audit-${crypto.randomUUID()}`;
      await call("/verify", { method: "POST", json: body, headers: { "X-Correlation-ID": correlationId } });
      const settled = await call("/settle", {
        method: "POST",
        json: body,
        headers: { "X-Correlation-ID": correlationId },
      });
      await call("/settle", {
        method: "POST",
        json: { ...body, paymentRequirements: { ...line, amount: "1" } },
        headers: { "X-Correlation-ID": correlationId },
      });

      // Attempts are written after the response (waitUntil); give the write a moment.
      let rows: Record<string, unknown>[] = [];
      for (let i = 0; i < 20 && rows.length < 2; i++) {
        rows = (
          await env.DB.prepare("SELECT * FROM payment_attempts WHERE correlation_id = ? ORDER BY id")
            .bind(correlationId)
            .all()
        ).results;
        if (rows.length < 2) await new Promise((r) => setTimeout(r, 50));
      }
      expect(rows.map((r) => [r.kind, r.outcome])).toEqual([
        ["settle", "settled"],
        ["settle", "failed"],
      ]);
      expect(rows[0]).toMatchObject({
        payer: buyer.address,
        amount: "120000",
        asset: USDC,
        signature: settled.body.transaction,
        merchant_wallet: line.extra.merchantWallet,
      });
      expect(rows[1]).toMatchObject({ reason: "invalid_payload_requirements_mismatch" });
      expect(Number(rows[0]!.duration_ms)).toBeGreaterThanOrEqual(0);

      // A replay under another correlation id is recorded as the duplicate it is; the payment keeps one "settled" row.
      const replayId = `${correlationId}-replay`;
      const replay = await call("/settle", { method: "POST", json: body, headers: { "X-Correlation-ID": replayId } });
      expect(replay.body.errorReason).toBe("duplicate_settlement");
      let replayRows: Record<string, unknown>[] = [];
      for (let i = 0; i < 20 && replayRows.length < 1; i++) {
        replayRows = (
          await env.DB.prepare("SELECT * FROM payment_attempts WHERE correlation_id = ?").bind(replayId).all()
        ).results;
        if (replayRows.length < 1) await new Promise((r) => setTimeout(r, 50));
      }
      expect(replayRows.map((r) => [r.outcome, r.reason])).toEqual([["failed", "duplicate_settlement"]]);
      const settledRows = await env.DB.prepare(
        "SELECT count(*) AS n FROM payment_attempts WHERE signature = ? AND outcome = 'settled'",
      )
        .bind(settled.body.transaction)
        .first<{ n: number }>();
      expect(settledRows?.n).toBe(1);
    },
  );
});

describe("exact: just-in-time provisioning policy", () => {
  it("fronts a non-sovereign vault, and refuses once the daily cap is used (without spending anything)", async () => {
    const { decodeSplitVault } = await import("../../../../src/rails/exact/program/accounts");
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "1000000", (await generateKeyPairSigner()).address); // not activated
    expect((await call("/settle", { method: "POST", json: await signedPaymentBody(buyer, line) })).body.success).toBe(
      true,
    );
    const vault = await chainRpc<{ value: { data: [string, string]; owner: string } }>("getAccountInfo", [
      line.payTo,
      { encoding: "base64" },
    ]);
    const state = decodeSplitVault(Uint8Array.from(atob(vault.value.data[0]), (c) => c.charCodeAt(0)));
    expect(state).toMatchObject({ isSovereign: false, isProvisioned: false });

    const capped = { SVC_JIT_PROVISIONING_DAILY_CAP: "0" };
    const fresh = await enrichedLine(USDC, "1000000", (await generateKeyPairSigner()).address);
    const body = await signedPaymentBody(buyer, fresh);
    const refused = await callWithEnv(capped, "/settle", {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "Content-Type": "application/json" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, errorReason: "vault_not_provisioned" });
    expect(refused.body.errorMessage).toContain("/sellers/provision-tx");
    const missing = await chainRpc<{ value: unknown }>("getAccountInfo", [fresh.payTo, { encoding: "base64" }]);
    expect(missing.value).toBeNull(); // no provisioning transaction was sent
  });
});

describe("exact: a confirmation that outlives its budget", () => {
  it("answers settlement_pending with the signature, and a later call reconciles without re-sending", async () => {
    // A fee payer of its own, so that the chain's test-only confirmation lag touches only this test's transactions.
    const feePayer = labelledKeypair(`pending/${crypto.randomUUID()}`);
    await chainRpc("requestAirdrop", [feePayer.address, 5_000_000_000]);
    const env = { FEE_PAYER_SECRET_KEY: feePayer.secretKeyBase58, SVC_SETTLE_CONFIRM_TIMEOUT_MS: "1000" };
    const post = async (path: string, json: unknown) =>
      callWithEnv(env, path, {
        method: "POST",
        body: JSON.stringify(json),
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() },
      });
    const buyer = await fundedBuyer(5_000_000);
    const seller = (await fundedBuyer(0)).address;
    const enriched = await post("/payment-required/enrich", {
      x402Version: 2,
      resource: { url: "https://seller.example/slow" },
      accepts: [
        { scheme: "exact", network: DEVNET, asset: USDC, amount: "1000000", payTo: seller, maxTimeoutSeconds: 60 },
      ],
    });
    const line = enriched.body.accepts[0];
    const signedBody = async () => {
      const built = await post("/build-exact-payment-tx", { payer: buyer.address, accepted: line });
      const body = built.body.verifyBodyTemplate;
      body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
      return body;
    };
    expect((await post("/settle", await signedBody())).body.success).toBe(true); // the vault exists from here on

    await chainRpc("localnet_setConfirmationLag", [feePayer.address, 2_500]);
    try {
      const body = await signedBody();
      const pending = await post("/settle", body);
      expect(pending.status).toBe(202);
      expect(pending.body).toMatchObject({
        success: false,
        errorReason: "settlement_pending",
        transaction: expect.any(String),
      });
      expect(pending.body.errorMessage).toContain("call /settle again");

      await new Promise((resolve) => setTimeout(resolve, 2_600));
      const reconciled = await post("/settle", body);
      expect(reconciled.status, JSON.stringify(reconciled.body)).toBe(200);
      // The 202 was not a success, so this is the payment's one success answer.
      expect(reconciled.body).toMatchObject({ success: true, transaction: pending.body.transaction });
      expect(reconciled.body.alreadySettled).toBeUndefined();
      const [vaultAta] = await findAssociatedTokenPda({
        owner: address(line.payTo),
        mint: USDC,
        tokenProgram: TOKEN_PROGRAM,
      });
      expect(await tokenBalance(vaultAta)).toBe(2_000_000n); // two payments, each counted once
    } finally {
      await chainRpc("localnet_setConfirmationLag", [feePayer.address, 0]);
    }
  });
});

describe("exact: Token-2022", () => {
  it("settles a payment in a plain Token-2022 mint into the vault's Token-2022 account", async () => {
    const { mint } = await chainRpc<{ mint: string }>("localnet_createMint", [
      { decimals: 6, tokenProgram: "token-2022" },
    ]);
    const buyer = await fundedBuyer(0);
    await chainRpc("requestTokenAirdrop", [buyer.address, 3_000_000, mint]);
    const line = await enrichedLine(address(mint), "1000000");
    const body = await signedPaymentBody(buyer, line);
    expect((await call("/verify", { method: "POST", json: body })).status).toBe(200);
    const settled = await call("/settle", { method: "POST", json: body });
    expect(settled.body.success, JSON.stringify(settled.body)).toBe(true);
    const [vaultAta] = await findAssociatedTokenPda({
      owner: address(line.payTo),
      mint: address(mint),
      tokenProgram: address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"),
    });
    expect(await tokenBalance(vaultAta)).toBe(1_000_000n);
  });
});
