import { env } from "cloudflare:test";
import { type Address, address, generateKeyPairSigner } from "@solana/kit";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import type { Config } from "../../../../src/platform/config/load-config";
import { loadConfig } from "../../../../src/rails/registry";
import { escrowAddresses, getSlaEscrowFacts } from "../../../../src/rails/sla-escrow/escrow-facts";
import { checkEscrowTerms } from "../../../../src/rails/sla-escrow/escrow-terms";
import { getEscrowEncoder } from "../../../../src/rails/sla-escrow/program/accounts";
import { MAX_PAYMENT_TTL_SECONDS } from "../../../../src/rails/sla-escrow/program/instructions";
import type { PaymentRequirements } from "../../../../src/x402/schemas";
import { messageOf, reasonOf } from "../../../support/rule-results";
import { chainRpc } from "../../../support/workerd/chain";
import { ORACLE } from "../../../support/workerd/escrow-fixtures";
import { USDC } from "../../../support/workerd/payment-fixtures";

/**
 * The terms of an sla-escrow line (src/rails/sla-escrow/escrow-terms.ts), one case per rule, against the Bank,
 * Config and Escrow accounts the local chain holds (read through the rail's own facts). The paused case places an
 * Escrow of its own, for a fresh mint, so no other test's escrow changes.
 */
let config: Config;
let escrow: Address;
let bank: Address;
let seller: Address;
let stranger: Address;
let floorSeconds: bigint;
let limits: { minPaymentAmount: bigint; maxPaymentAmount: bigint; minFeeAmount: bigint };

beforeAll(async () => {
  config = await loadConfig(env as unknown as Env);
  const facts = await getSlaEscrowFacts(config, USDC);
  ({ escrow, bank } = facts);
  limits = facts.escrowAccount!;
  floorSeconds = facts.escrowConfig!.deliveryCutoffSeconds + BigInt(config.slaEscrow.deliveryBudgetSeconds);
  seller = (await generateKeyPairSigner()).address;
  stranger = (await generateKeyPairSigner()).address;
});

const line = (overrides: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ({
    scheme: "sla-escrow",
    network: config.network,
    asset: USDC,
    amount: "1000000",
    payTo: escrow,
    maxTimeoutSeconds: 3_600,
    extra: { merchantWallet: seller, ...extra },
    ...overrides,
  }) as unknown as PaymentRequirements;
const terms = (requirements: PaymentRequirements, amount = BigInt(requirements.amount)) =>
  checkEscrowTerms(config, requirements, amount);

describe("sla-escrow terms", () => {
  it(
    "a line the builder would make passes, naming the seller, the kind and the oracles this facilitator " + "allows",
    async () => {
      const result = await terms(line());
      expect(result).toMatchObject({ ok: true, terms: { seller, kind: "spl", ttlSeconds: 3_600n } });
      if (result.ok) expect(result.terms.oracleAuthorities).toContain(ORACLE);
      // extra.beneficiary wins over merchantWallet: it is FundPayment's seller.
      expect(await terms(line({}, { beneficiary: stranger }))).toMatchObject({ ok: true, terms: { seller: stranger } });
    },
  );

  it("extra.escrowProgramId other than this facilitator's program", async () => {
    expect(reasonOf(await terms(line({}, { escrowProgramId: stranger })))).toBe("invalid_sla_escrow_program_mismatch");
  });

  it("an asset without an Escrow on this cluster (the builder answers 501)", async () => {
    const result = await terms(line({ asset: stranger }));
    expect(reasonOf(result)).toBe("sla_escrow_not_configured");
    expect(result).toMatchObject({ notConfigured: true });
  });

  it("extra.bankAddress other than this facilitator's bank", async () => {
    expect(reasonOf(await terms(line({}, { bankAddress: stranger })))).toBe("invalid_sla_escrow_bank_mismatch");
    expect(reasonOf(await terms(line({}, { bankAddress: bank })))).toBe("accepted");
  });

  it("payTo other than the Escrow PDA of the asset", async () => {
    expect(reasonOf(await terms(line({ payTo: seller })))).toBe("invalid_sla_escrow_recipient_mismatch");
  });

  it("no seller wallet (or not base58)", async () => {
    expect(reasonOf(await terms(line({ extra: {} })))).toBe("invalid_sla_escrow_missing_seller");
    expect(reasonOf(await terms(line({ extra: { merchantWallet: "not-base58-0OIl" } })))).toBe(
      "invalid_sla_escrow_missing_seller",
    );
  });

  it("the Escrow PDA named as the seller", async () => {
    expect(reasonOf(await terms(line({ extra: { merchantWallet: escrow } })))).toBe(
      "invalid_sla_escrow_seller_is_escrow",
    );
  });

  it("a paused escrow", async () => {
    const mint = (await generateKeyPairSigner()).address;
    const { escrow: pausedEscrow } = await escrowAddresses(config.programs.slaEscrow, mint);
    const data = getEscrowEncoder().encode({
      mint,
      escrowTokens: stranger,
      openAtUnixSeconds: 0n,
      feeBalance: 0n,
      tokenLiquidity: 0n,
      ...limits,
      feeBps: 100,
      oracleFeeBps: 0,
      paused: true,
    });
    await chainRpc("localnet_setAccount", [
      pausedEscrow,
      { lamports: 10_000_000, dataBase64: btoa(String.fromCharCode(...data)), owner: config.programs.slaEscrow },
    ]);
    const result = await terms(line({ asset: mint, payTo: pausedEscrow }));
    expect(reasonOf(result)).toBe("sla_escrow_paused");
    expect(messageOf(result)).toContain(mint);
  });

  it("an amount outside the escrow's range, below and above", async () => {
    expect(reasonOf(await terms(line({ amount: String(limits.minPaymentAmount - 1n) })))).toBe(
      "invalid_sla_escrow_amount_out_of_range",
    );
    expect(reasonOf(await terms(line({ amount: String(limits.maxPaymentAmount + 1n) })))).toBe(
      "invalid_sla_escrow_amount_out_of_range",
    );
  });

  it("an amount in range but below the minimum fee (the seller would receive nothing)", async () => {
    expect(limits.minFeeAmount).toBeGreaterThan(limits.minPaymentAmount); // the local Escrow leaves room for this case
    expect(reasonOf(await terms(line({ amount: String(limits.minFeeAmount - 1n) })))).toBe(
      "invalid_sla_escrow_amount_below_minimum",
    );
  });

  it("a ttl below the delivery cutoff plus budget, or above the program's maximum", async () => {
    expect(reasonOf(await terms(line({ maxTimeoutSeconds: Number(floorSeconds) - 1 })))).toBe("invalid_sla_escrow_ttl");
    expect(reasonOf(await terms(line({ maxTimeoutSeconds: Number(floorSeconds) })))).toBe("accepted");
    expect(reasonOf(await terms(line({ maxTimeoutSeconds: Number(MAX_PAYMENT_TTL_SECONDS) + 1 })))).toBe(
      "invalid_sla_escrow_ttl",
    );
  });

  it("extra.oracleAuthorities naming no oracle this facilitator allows", async () => {
    expect(reasonOf(await terms(line({}, { oracleAuthorities: [stranger] })))).toBe("invalid_sla_escrow_oracle");
    expect(await terms(line({}, { oracleAuthorities: [stranger, ORACLE] }))).toMatchObject({
      ok: true,
      terms: { oracleAuthorities: [address(ORACLE)] },
    });
  });
});
