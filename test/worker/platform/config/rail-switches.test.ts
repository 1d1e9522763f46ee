/**
 * Rails are enabled one by one (src/platform/config/rail-switches.ts): a rail whose required setting is absent is not
 * offered and every surface says why, while the rest of the Worker serves; a setting that is malformed still fails
 * closed. Real: workerd, the local chain (devnet program ids and stand-ins), local D1.
 */
import { describe, expect, it } from "vitest";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../../../../src/rails/exact/cluster-defaults";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { PRODUCTION_WITHOUT_UNIVERSAL_SETTLE } from "../../../support/workerd/production-vars";
import { callWithEnv } from "../../../support/workerd/worker-http";

const SELLER = "9hw9Py9uMGtXRNpABZjifcK1t3suwzjyri9L9QYKg6zZ";

describe("a deployment without a UniversalSettle program id", () => {
  it(
    "serves exact in its wallet form out of the box (the vault form is not configured), sla-escrow and upto, and " +
      "says why the vault form is not offered",
    async () => {
      const { status, body } = await callWithEnv(PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, "/supported");
      expect(status).toBe(200);
      expect(body.kinds.map((k: { scheme: string }) => k.scheme)).toEqual(["exact", "sla-escrow", "upto"]);
      expect(body.kinds.map((k: { extra: { payToForms: string[] } }) => k.extra.payToForms)).toEqual([
        ["wallet"],
        ["escrow"],
        ["wallet"],
      ]);
      expect(body.notOffered).toEqual([
        {
          scheme: "exact",
          payToForm: "vault",
          reason: "rail_not_enabled",
          why: expect.stringMatching(/UNIVERSAL_SETTLE_PROGRAM_ID is not set/),
        },
      ]);
      // The operator may still switch the wallet form off: then no exact kind at all, and both forms say why.
      const off = await callWithEnv(
        { ...PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, SVC_EXACT_WALLET_PAYTO: "false" },
        "/supported",
      );
      expect(off.body.kinds.map((k: { scheme: string }) => k.scheme)).toEqual(["sla-escrow", "upto"]);
      expect(off.body.notOffered).toEqual([
        expect.objectContaining({ scheme: "exact", payToForm: "vault" }),
        {
          scheme: "exact",
          payToForm: "wallet",
          reason: "rail_not_enabled",
          why: expect.stringMatching(/SVC_EXACT_WALLET_PAYTO is off/),
        },
      ]);
    },
  );

  it("/health and /capabilities serve, naming which rails run", async () => {
    const health = await callWithEnv(PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, "/health");
    expect(health.status).toBe(200);
    expect(health.body.programs).toMatchObject({
      ok: true,
      universalSettle: null,
      slaEscrow: { found: true },
      rails: {
        exactVault: { enabled: false, why: expect.stringMatching(/UNIVERSAL_SETTLE_PROGRAM_ID/) },
        exactWallet: { enabled: true },
        slaEscrow: { enabled: true },
        upto: { enabled: true },
      },
    });
    const caps = await callWithEnv(PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, "/capabilities");
    expect(caps.status).toBe(200);
    expect(caps.body.features).toMatchObject({
      universalSettleExact: false,
      exactWalletPayTo: true,
      unsignedExactPaymentTxBuild: true,
      slaEscrow: true,
    });
  });

  it(
    "the vault routes and builders answer 503 rail_not_enabled with the reason; verify refuses an exact payment as " +
      "rail_not_enabled",
    async () => {
      const post = (json: unknown): RequestInit => ({
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(json),
      });
      const line = {
        scheme: "exact",
        network: CLUSTERS.mainnet.network,
        payTo: SELLER,
        asset: CLUSTERS.devnet.usdcMint,
        amount: "10000",
        maxTimeoutSeconds: 60,
        extra: { merchantWallet: SELLER, feePayer: TEST_FEE_PAYER.address },
      };
      const cases: [string, RequestInit][] = [
        [`/sellers/${SELLER}/rails/exact`, {}],
        [
          "/payment-required/enrich",
          post({ x402Version: 2, resource: { url: "https://seller.test/a" }, accepts: [line] }),
        ],
        ["/build-exact-payment-tx", post({ payer: "4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap", accepted: line })],
        [`/fee-quote?wallet=${SELLER}&amount=10000&scheme=exact&asset=USDC`, {}],
      ];
      for (const [path, init] of cases) {
        const { status, body } = await callWithEnv(PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, path, init);
        expect({ path, status, code: body.code, reason: body.reason }, body.error).toEqual({
          path,
          status: 503,
          code: "RAIL_NOT_ENABLED",
          reason: "rail_not_enabled",
        });
        expect(body.error).toMatch(/UNIVERSAL_SETTLE_PROGRAM_ID is not set/);
      }
      const verify = await callWithEnv(
        PRODUCTION_WITHOUT_UNIVERSAL_SETTLE,
        "/verify",
        post({
          x402Version: 2,
          paymentPayload: { x402Version: 2, accepted: line, payload: { transaction: "AAAA" } },
          paymentRequirements: line,
        }),
      );
      expect(verify.body).toMatchObject({ isValid: false, invalidReason: "rail_not_enabled" });
    },
  );

  it("a malformed UniversalSettle id (not merely absent) still fails closed with CONFIG_INVALID", async () => {
    for (const path of ["/health", "/supported"]) {
      const { status, body } = await callWithEnv(
        { ...PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, UNIVERSAL_SETTLE_PROGRAM_ID: "not-a-program" },
        path,
      );
      expect(status).toBe(500);
      expect(body.code).toBe("CONFIG_INVALID");
      expect(body.error).toContain("UNIVERSAL_SETTLE_PROGRAM_ID");
    }
    const bad = await callWithEnv({ SVC_EXACT_WALLET_PAYTO: "sometimes" }, "/supported");
    expect(bad.status).toBe(500);
    expect(bad.body.error).toContain("SVC_EXACT_WALLET_PAYTO");
  });
});

describe("SVC_EXACT_WALLET_PAYTO", () => {
  const formsOf = async (overrides: Record<string, unknown>) => {
    const { body } = await callWithEnv(overrides, "/supported");
    return body.kinds.find((k: { scheme: string }) => k.scheme === "exact")?.extra.payToForms ?? null;
  };

  it(
    "is on by default locally and wherever the vault form is not configured, off by default beside the vault form, " +
      "and the operator's choice either way",
    async () => {
      expect(await formsOf({})).toEqual(["vault", "wallet"]);
      expect(await formsOf({ SVC_EXACT_WALLET_PAYTO: "false" })).toEqual(["vault"]);
      const production = {
        ...PRODUCTION_WITHOUT_UNIVERSAL_SETTLE,
        UNIVERSAL_SETTLE_PROGRAM_ID: EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId,
      };
      expect(await formsOf(production)).toEqual(["vault"]);
      expect(await formsOf({ ...production, SVC_EXACT_WALLET_PAYTO: "true" })).toEqual(["vault", "wallet"]);
      // Without a UniversalSettle program (by default, or opted in): exact runs in its wallet form only, with no vault
      // figures, and publishes what its fee payer sponsors.
      for (const overrides of [
        PRODUCTION_WITHOUT_UNIVERSAL_SETTLE,
        { ...PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, SVC_EXACT_WALLET_PAYTO: "yes" },
      ]) {
        const { body } = await callWithEnv(overrides, "/supported");
        expect(body.kinds.map((k: { scheme: string }) => k.scheme)).toEqual(["exact", "sla-escrow", "upto"]);
        expect(body.kinds[0].extra).toEqual({
          feePayer: expect.any(String),
          maxComputeUnitLimit: "200000",
          recommendedComputeUnitPrice: "1",
          payToForms: ["wallet"],
          features: { smartWalletSupported: true },
          sponsorship: {
            maxComputeUnitPrice: "50000",
            maxPriorityFeeLamports: "10000",
            perBuyerPerDayLamports: "30000000",
            perPayToPerDayLamports: "50000000",
            perProvenSellerPerDayLamports: "500000000",
            failedPaymentsPerBuyerPerDay: "3",
          },
        });
      }
    },
  );

  it("verifies smart-wallet buyers by default, in production too; the operator can turn it off", async () => {
    const exactExtra = async (overrides: Record<string, string>) => {
      const { body } = await callWithEnv(overrides, "/supported");
      return body.kinds.find((k: { scheme: string }) => k.scheme === "exact").extra;
    };
    expect((await exactExtra({})).features).toEqual({ smartWalletSupported: true });
    expect((await exactExtra(PRODUCTION_WITHOUT_UNIVERSAL_SETTLE)).features).toEqual({ smartWalletSupported: true });
    expect((await exactExtra({ SVC_EXACT_SMART_WALLETS: "false" })).features).toBeUndefined();
  });

  it(
    "with the wallet form only, enrich keeps a wallet line's payTo and adds the fee payer; a vault line is " +
      "rail_not_enabled",
    async () => {
      const walletOnly = { ...PRODUCTION_WITHOUT_UNIVERSAL_SETTLE, SVC_EXACT_WALLET_PAYTO: "true" };
      const line = {
        scheme: "exact",
        network: CLUSTERS.mainnet.network,
        payTo: SELLER,
        asset: CLUSTERS.devnet.usdcMint,
        amount: "10000",
        maxTimeoutSeconds: 60,
        extra: { name: "kept" },
      };
      const enrich = (accepts: unknown[]) =>
        callWithEnv(walletOnly, "/payment-required/enrich", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ x402Version: 2, resource: { url: "https://seller.test/a" }, accepts }),
        });
      const enriched = await enrich([line]);
      expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
      expect(enriched.body.accepts[0]).toEqual({
        ...line,
        extra: {
          name: "kept",
          feePayer: TEST_FEE_PAYER.address,
          maxComputeUnitLimit: "200000",
          recommendedComputeUnitPrice: "1",
        },
      });
      const vaultLine = await enrich([{ ...line, extra: { merchantWallet: SELLER } }]);
      expect(vaultLine.status).toBe(503);
      expect(vaultLine.body).toMatchObject({ code: "RAIL_NOT_ENABLED", reason: "rail_not_enabled" });
    },
  );
});
