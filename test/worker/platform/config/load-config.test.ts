import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import type { Env } from "../../../../src/env";
import { loadConfig } from "../../../../src/rails/registry";
import { deleteParameter, writeParameter } from "../../../../src/store/parameters";
import { callWithEnv } from "../../../support/workerd/worker-http";

const baseEnv = env as unknown as Env;

describe("configuration", () => {
  it("an invalid env var makes every route answer 500 naming the key", async () => {
    for (const path of ["/health", "/supported", "/capabilities"]) {
      const response = await callWithEnv({ SVC_MAX_COMPUTE_UNIT_LIMIT: "lots" }, path);
      expect(response.status).toBe(500);
      expect(response.body.code).toBe("CONFIG_INVALID");
      expect(response.body.error).toContain("SVC_MAX_COMPUTE_UNIT_LIMIT");
      expect(response.body).toHaveProperty("correlationId");
    }
  });

  it(
    "mainnet has no default UniversalSettle id (none is publicly confirmed): without one the vault form of exact is " +
      "off, not the service",
    async () => {
      const missing = await loadConfig({
        ...baseEnv,
        SOLANA_CLUSTER: "mainnet",
        ENVIRONMENT: "preview",
        SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
        UNIVERSAL_SETTLE_PROGRAM_ID: "",
      } as Env);
      expect(missing.programs.universalSettle).toBeNull();
      expect(missing.rails.exactVault).toEqual({
        enabled: false,
        why: expect.stringMatching(
          new RegExp(
            "UNIVERSAL_SETTLE_PROGRAM_ID is not set and no public source confirms a UniversalSettle " +
              "program id on mainnet",
          ),
        ),
      });
      // (Outside local the demo oracle of the local vars is refused, so this preview config names none.)
      const configured = await loadConfig({
        ...baseEnv,
        SOLANA_CLUSTER: "mainnet",
        ENVIRONMENT: "preview",
        SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
        UNIVERSAL_SETTLE_PROGRAM_ID: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
      } as Env);
      expect(configured.programs.universalSettle).toBe("u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf");
      expect(configured.rails.exactVault).toEqual({ enabled: true });
      // The SLA-Escrow mainnet id is the normative ABI's; devnet's UniversalSettle id is confirmed by pr402's history.
      expect(configured.programs.slaEscrow).toBe("SEscZ6n23pVak34xipBKoGCikHUj3w6XPNyty4rHprJ");
      expect((await loadConfig({ ...baseEnv, UNIVERSAL_SETTLE_PROGRAM_ID: "" } as Env)).programs.universalSettle).toBe(
        "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
      );
    },
  );

  it(
    "the payment-channels treasury owner is a setting: the cluster's key by default, SVC_UPTO_TREASURY_OWNER " +
      "replaces it",
    async () => {
      const devnet = await loadConfig({ ...baseEnv, SVC_UPTO_TREASURY_OWNER: "" } as Env);
      expect(devnet.upto.treasuryOwner).toBe("4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap");
      const mainnet = await loadConfig({
        ...baseEnv,
        SOLANA_CLUSTER: "mainnet",
        ENVIRONMENT: "preview",
        SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
        UNIVERSAL_SETTLE_PROGRAM_ID: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
      } as Env);
      expect(mainnet.upto.treasuryOwner).toBe("Cs2zdfUNonRdRGsiZUQQLdTxzxVvJZmgiX2mpLYKuEqP");
      const verified = "9hw9Py9uMGtXRNpABZjifcK1t3suwzjyri9L9QYKg6zZ";
      expect((await loadConfig({ ...baseEnv, SVC_UPTO_TREASURY_OWNER: verified } as Env)).upto.treasuryOwner).toBe(
        verified,
      );
      const bad = await callWithEnv({ SVC_UPTO_TREASURY_OWNER: "not-a-key" }, "/health");
      expect(bad.status).toBe(500);
      expect(bad.body.error).toContain("SVC_UPTO_TREASURY_OWNER");
    },
  );

  it("a missing fee payer secret is named without leaking anything", async () => {
    const response = await callWithEnv({ FEE_PAYER_SECRET_KEY: undefined }, "/health");
    expect(response.status).toBe(500);
    expect(response.body.error).toContain("FEE_PAYER_SECRET_KEY");
  });

  it("a malformed fee payer secret is rejected and never echoed", async () => {
    const bogus = "NotAKey" + "1".repeat(40);
    const response = await callWithEnv({ FEE_PAYER_SECRET_KEY: bogus }, "/health");
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain(bogus);
  });

  it("a D1 parameter overrides the env var of the same name", async () => {
    await writeParameter(baseEnv.DB, "SVC_MAX_COMPUTE_UNIT_LIMIT", "123456");
    try {
      const config = await loadConfig(baseEnv);
      expect(config.compute.maxUnitLimit).toBe(123_456);
    } finally {
      await deleteParameter(baseEnv.DB, "SVC_MAX_COMPUTE_UNIT_LIMIT");
    }
    expect((await loadConfig(baseEnv)).compute.maxUnitLimit).toBe(200_000);
  });

  it("an invalid D1 parameter is reported with its key", async () => {
    await writeParameter(baseEnv.DB, "SVC_ALLOWED_PAYMENT_MINTS", "not-a-mint");
    try {
      await expect(loadConfig(baseEnv)).rejects.toThrow(/SVC_ALLOWED_PAYMENT_MINTS/);
    } finally {
      await deleteParameter(baseEnv.DB, "SVC_ALLOWED_PAYMENT_MINTS");
    }
  });

  it("the fee payer key cannot be replaced through the database", async () => {
    await writeParameter(baseEnv.DB, "FEE_PAYER_SECRET_KEY", "[1,2,3]");
    try {
      const config = await loadConfig(baseEnv);
      expect(config.feePayer.address).toBeTruthy();
    } finally {
      await deleteParameter(baseEnv.DB, "FEE_PAYER_SECRET_KEY");
    }
  });

  it(
    "the upto voucher key and its bearer token cannot be set through the database (a rail slice's env-only " + "keys)",
    async () => {
      // Both rows together would switch delegated mode on with a key the operator never put in the Worker's secrets.
      await writeParameter(
        baseEnv.DB,
        "SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY",
        labelledKeypair("config-test/upto-authorizer-from-d1").secretKeyBase58,
      );
      await writeParameter(baseEnv.DB, "SVC_UPTO_DELEGATED_SETTLE_TOKEN", "token-from-the-database-0123456789");
      try {
        const config = await loadConfig(baseEnv);
        expect(config.upto.delegated).toBeNull();
      } finally {
        await deleteParameter(baseEnv.DB, "SVC_UPTO_RECEIVER_AUTHORIZER_SECRET_KEY");
        await deleteParameter(baseEnv.DB, "SVC_UPTO_DELEGATED_SETTLE_TOKEN");
      }
    },
  );

  it("applies defaults and cluster program ids", async () => {
    const config = await loadConfig(baseEnv);
    expect(config.network).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(config.programs.universalSettle).toBe("u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf");
    expect(config.mints.usdc).toBe("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
    expect(config.allowedPaymentMints).toEqual([]);
    expect(config.sweep.minSplRawDefault).toBe(100_000n);
  });
});

describe("a deployment fails closed (issue 20 §5)", () => {
  // (mainnet has no default UniversalSettle id: a production config names one.)
  const production = {
    ENVIRONMENT: "production",
    SOLANA_CLUSTER: "mainnet",
    SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
    UNIVERSAL_SETTLE_PROGRAM_ID: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf",
  };

  it("requires ENVIRONMENT: without it every route answers 500 naming the key (no default to local)", async () => {
    const response = await callWithEnv({ ENVIRONMENT: undefined }, "/health");
    expect(response.status).toBe(500);
    expect(response.body.code).toBe("CONFIG_INVALID");
    expect(response.body.error).toMatch(/ENVIRONMENT is required/);
  });

  it("ENVIRONMENT cannot come from the database (a parameter row cannot make a deployment local)", async () => {
    await writeParameter(baseEnv.DB, "ENVIRONMENT", "local");
    try {
      await expect(loadConfig({ ...baseEnv, ENVIRONMENT: undefined })).rejects.toThrow(/ENVIRONMENT/);
      expect((await loadConfig({ ...baseEnv, ...production })).environment).toBe("production");
    } finally {
      await deleteParameter(baseEnv.DB, "ENVIRONMENT");
    }
  });

  it("refuses the demo oracle outside local, whichever oracle key names it, also from the database", async () => {
    const demo = "2qHwqqzYw91UPTeHJ3Kp8P5aX5my3sCTz4NkmwLv5qTF";
    for (const environment of ["production", "preview"]) {
      const response = await callWithEnv(
        { ...production, ENVIRONMENT: environment, SVC_SLA_ESCROW_ORACLE_AUTHORITIES: `${demo}` },
        "/supported",
      );
      expect(response.status).toBe(500);
      expect(response.body.error).toMatch(/SVC_SLA_ESCROW_ORACLE_AUTHORITIES names the local demo oracle/);
    }
    await expect(
      loadConfig({ ...baseEnv, ...production, SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY: demo }),
    ).rejects.toThrow(/SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY/);
    await writeParameter(baseEnv.DB, "SVC_SLA_ESCROW_ORACLE_AUTHORITIES", demo);
    try {
      await expect(loadConfig({ ...baseEnv, ...production })).rejects.toThrow(/demo oracle/);
    } finally {
      await deleteParameter(baseEnv.DB, "SVC_SLA_ESCROW_ORACLE_AUTHORITIES");
    }
    // Locally the demo oracle is what npm start, the demo and the tests use.
    expect((await loadConfig(baseEnv)).slaEscrow.oracleAuthorities).toEqual([demo]);
  });

  it("refuses loopback probing outside local, and turns it off there by default", async () => {
    const on = await callWithEnv({ ...production, SVC_PROBE_ALLOW_LOOPBACK: "yes" }, "/health");
    expect(on.status).toBe(500);
    expect(on.body.error).toMatch(/SVC_PROBE_ALLOW_LOOPBACK may only be enabled when ENVIRONMENT is "local"/);
    expect((await loadConfig({ ...baseEnv, ...production })).probe.allowLoopback).toBe(false);
    expect((await loadConfig(baseEnv)).probe.allowLoopback).toBe(true);
  });
});
