import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import { deleteParameter, writeParameter } from "../../../../src/store/parameters";
import { callWithEnv } from "../../../support/workerd/worker-http";

/**
 * `slaEscrowOracleProfiles[]` in /capabilities (docs/facilitator-spec.md §2.9, §8): the canonical three with
 * per-profile operator keys, replaced whole by SVC_SLA_ESCROW_ORACLE_PROFILES_JSON, a D1 parameter before the env var,
 * and absent when the escrow rail is not served.
 */
const DB = (env as unknown as Env).DB;
const API_QUALITY_OPERATOR = "2qHwqqzYw91UPTeHJ3Kp8P5aX5my3sCTz4NkmwLv5qTF";
const ONCHAIN_OPERATOR = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";

describe("oracle profiles in /capabilities", () => {
  it("lists the canonical profiles with the configured default operators when the escrow rail is served", async () => {
    const caps = await callWithEnv(
      { SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY: API_QUALITY_OPERATOR },
      "/capabilities",
    );
    expect(caps.status).toBe(200);
    expect(caps.body.features.slaEscrow).toBe(true);
    expect(caps.body.slaEscrowOracleProfiles).toEqual([
      {
        profileId: "x402/oracles/api-quality/v1",
        normativeSpecUrl: "http://facilitator.test/agent-integration.md#oracle-profiles",
        repositoryPath: "x402/oracles/api-quality/v1",
        defaultOperatorPubkey: API_QUALITY_OPERATOR,
      },
      {
        profileId: "x402/oracles/onchain-transfer/v1",
        normativeSpecUrl: "http://facilitator.test/agent-integration.md#oracle-profiles",
        repositoryPath: "x402/oracles/onchain-transfer/v1",
      },
      {
        profileId: "x402/oracles/file-delivery/attestation/v1",
        normativeSpecUrl: "http://facilitator.test/agent-integration.md#oracle-profiles",
        repositoryPath: "x402/oracles/file-delivery/attestation/v1",
      },
    ]);
  });

  it("SVC_SLA_ESCROW_ORACLE_PROFILES_JSON replaces the list; the D1 parameter wins over the env var", async () => {
    const fromEnv = [
      {
        profileId: "x402/oracles/api-quality/v1",
        normativeSpecUrl: "https://oracles.example/api-quality/v1",
        registryUrl: "https://registry.example/",
      },
    ];
    const fromDb = [
      {
        profileId: "x402/oracles/onchain-transfer/v1",
        normativeSpecUrl: "https://oracles.example/onchain/v1",
        defaultOperatorPubkey: ONCHAIN_OPERATOR,
      },
    ];
    const envOnly = await callWithEnv(
      { SVC_SLA_ESCROW_ORACLE_PROFILES_JSON: JSON.stringify(fromEnv) },
      "/capabilities",
    );
    expect(envOnly.body.slaEscrowOracleProfiles).toEqual(fromEnv);

    await writeParameter(DB, "SVC_SLA_ESCROW_ORACLE_PROFILES_JSON", JSON.stringify(fromDb));
    try {
      const both = await callWithEnv({ SVC_SLA_ESCROW_ORACLE_PROFILES_JSON: JSON.stringify(fromEnv) }, "/capabilities");
      expect(both.body.slaEscrowOracleProfiles).toEqual(fromDb);
    } finally {
      await deleteParameter(DB, "SVC_SLA_ESCROW_ORACLE_PROFILES_JSON");
    }
  });

  it("a malformed profile list or operator key is a configuration error naming the key", async () => {
    const bad = await callWithEnv(
      { SVC_SLA_ESCROW_ORACLE_PROFILES_JSON: JSON.stringify([{ profileId: "x", normativeSpecUrl: "ftp://nope" }]) },
      "/capabilities",
    );
    expect(bad.status).toBe(500);
    expect(bad.body.error).toMatch(/SVC_SLA_ESCROW_ORACLE_PROFILES_JSON/);
    const notJson = await callWithEnv({ SVC_SLA_ESCROW_ORACLE_PROFILES_JSON: "[{" }, "/capabilities");
    expect(notJson.body.error).toMatch(/SVC_SLA_ESCROW_ORACLE_PROFILES_JSON/);
    const badKey = await callWithEnv({ SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY: "not-a-key" }, "/capabilities");
    expect(badKey.body.error).toMatch(/SVC_SLA_ESCROW_FILE_DELIVERY_DEFAULT_PUBKEY/);
  });

  it("absent when the escrow rail is not served (no Bank for the configured program on this cluster)", async () => {
    const caps = await callWithEnv(
      {
        SLA_ESCROW_PROGRAM_ID: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
        SVC_SLA_ESCROW_API_QUALITY_DEFAULT_PUBKEY: API_QUALITY_OPERATOR,
      },
      "/capabilities",
    );
    expect(caps.status).toBe(200);
    expect(caps.body.features.slaEscrow).toBe(false);
    expect(caps.body).not.toHaveProperty("slaEscrowOracleProfiles");
  });
});
