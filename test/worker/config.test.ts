import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callWithEnv } from "./helpers";
import { writeParameter, deleteParameter } from "../../src/store/parameters";
import { loadConfig } from "../../src/config/load-config";
import type { Env } from "../../src/env";

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

  it("mainnet has no default UniversalSettle id (none is publicly confirmed): it must be configured", async () => {
    const missing = await callWithEnv({ SOLANA_CLUSTER: "mainnet", ENVIRONMENT: "preview", UNIVERSAL_SETTLE_PROGRAM_ID: "" }, "/health");
    expect(missing.status).toBe(500);
    expect(missing.body.code).toBe("CONFIG_INVALID");
    expect(missing.body.error).toMatch(/UNIVERSAL_SETTLE_PROGRAM_ID is required on mainnet/);
    const configured = await loadConfig({ ...baseEnv, SOLANA_CLUSTER: "mainnet", ENVIRONMENT: "preview", UNIVERSAL_SETTLE_PROGRAM_ID: "u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf" } as Env);
    expect(configured.programs.universalSettle).toBe("u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf");
    // The SLA-Escrow mainnet id is the normative ABI's; devnet's UniversalSettle id is confirmed by pr402's history.
    expect(configured.programs.slaEscrow).toBe("SEscZ6n23pVak34xipBKoGCikHUj3w6XPNyty4rHprJ");
    expect((await loadConfig({ ...baseEnv, UNIVERSAL_SETTLE_PROGRAM_ID: "" } as Env)).programs.universalSettle).toBe("u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf");
  });

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

  it("applies defaults and cluster program ids", async () => {
    const config = await loadConfig(baseEnv);
    expect(config.network).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(config.programs.universalSettle).toBe("u84EMHTHwMeFpT9M2tNoHi9vBNjev4jxi9CsrFAjjWf");
    expect(config.mints.usdc).toBe("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
    expect(config.allowedPaymentMints).toEqual([]);
    expect(config.sweep.minSplRawDefault).toBe(100_000n);
  });
});
