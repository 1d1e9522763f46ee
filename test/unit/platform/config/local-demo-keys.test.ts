import { describe, expect, it } from "vitest";
import { labelledKeypair } from "../../../../scripts/lib/keypair";
import { LOCAL_VARS } from "../../../../scripts/lib/local-vars";
import { LOCAL_DEMO_ORACLE_AUTHORITY, PUBLICLY_DERIVED_KEYS } from "../../../../src/platform/config/local-demo-keys";

describe("the local demo oracle", () => {
  it("is the key derived from its public label, refused outside local, and named only by the local vars", () => {
    expect(LOCAL_DEMO_ORACLE_AUTHORITY).toBe(labelledKeypair("x402-facilitator/local/oracle").address);
    expect(PUBLICLY_DERIVED_KEYS.has(LOCAL_DEMO_ORACLE_AUTHORITY)).toBe(true);
    expect(LOCAL_VARS).toEqual({
      ENVIRONMENT: "local",
      SVC_SLA_ESCROW_ORACLE_AUTHORITIES: LOCAL_DEMO_ORACLE_AUTHORITY,
    });
  });
});
