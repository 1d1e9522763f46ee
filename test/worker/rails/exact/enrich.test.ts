import { type Address, address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../../../../src/rails/exact/cluster-defaults";
import { getCreateVaultInstruction } from "../../../../src/rails/exact/program/instructions";
import {
  findUniversalSettleConfigPda,
  findVaultPda,
  findVaultSolStoragePda,
} from "../../../../src/rails/exact/program/pda";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { chainRpc, sendSigned } from "../../../support/workerd/chain";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/** POST /payment-required/enrich against the Worker, the local chain seeded with the devnet UniversalSettle Config. */

const DEVNET = CLUSTERS.devnet.network;
const PROGRAM_ID = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
const USDC = CLUSTERS.devnet.usdcMint;
const NATIVE_SOL = "11111111111111111111111111111111";

async function newWallet(): Promise<Address> {
  return (await generateKeyPairSigner()).address;
}

function naiveLine(payTo: string, overrides: Record<string, unknown> = {}) {
  return {
    scheme: "exact",
    network: DEVNET,
    asset: USDC,
    amount: "1250000",
    payTo,
    maxTimeoutSeconds: 60,
    ...overrides,
  };
}

function body402(accepts: unknown[]) {
  return { x402Version: 2, resource: { url: "https://seller.example/weather", mimeType: "application/json" }, accepts };
}

function enrich(json: unknown) {
  return call("/payment-required/enrich", { method: "POST", json });
}

/**
 * Creates `seller`'s vault with a real CreateVault transaction (the stand-in UniversalSettle program runs on the
 * local chain): paid by the seller itself it is sovereign, paid by anyone else it is not.
 */
async function createVault(seller: KeyPairSigner, payer: KeyPairSigner): Promise<Address> {
  const [vault] = await findVaultPda(PROGRAM_ID, seller.address);
  const [solStorage] = await findVaultSolStoragePda(PROGRAM_ID, vault);
  await chainRpc("requestAirdrop", [payer.address, 1_000_000_000]);
  await sendSigned(payer, [
    getCreateVaultInstruction({ programId: PROGRAM_ID, payer, vault, solStorage, seller: seller.address }),
  ]);
  return vault;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("POST /payment-required/enrich", () => {
  it("turns a bare seller wallet into its vault PDA and adds this facilitator's extra", async () => {
    const wallet = await newWallet();
    const [vault] = await findVaultPda(PROGRAM_ID, wallet);
    const [configAddress] = await findUniversalSettleConfigPda(PROGRAM_ID);

    const response = await enrich(body402([naiveLine(wallet)]));
    expect(response.status).toBe(200);
    expect(response.body.x402Version).toBe(2);
    expect(response.body.resource).toEqual({ url: "https://seller.example/weather", mimeType: "application/json" });
    const [line] = response.body.accepts;
    expect(line).toEqual({
      scheme: "exact",
      network: DEVNET,
      asset: USDC,
      amount: "1250000",
      payTo: vault,
      maxTimeoutSeconds: 60,
      extra: {
        feePayer: TEST_FEE_PAYER.address,
        programId: PROGRAM_ID,
        configAddress,
        feeBps: "100", // no vault on chain yet: the standard rate
        minFeeAmount: "10000",
        minFeeAmountSol: "100000",
        maxComputeUnitLimit: "200000",
        recommendedComputeUnitPrice: "1",
        merchantWallet: wallet,
      },
    });
  });

  it(
    "quotes the sovereign rate for a seller whose vault exists and is sovereign, the standard rate " + "otherwise",
    async () => {
      const sovereign = await generateKeyPairSigner();
      const jitProvisioned = await generateKeyPairSigner();
      await createVault(sovereign, sovereign);
      await createVault(jitProvisioned, await generateKeyPairSigner());

      const response = await enrich(
        body402([naiveLine(sovereign.address), naiveLine(jitProvisioned.address, { asset: NATIVE_SOL })]),
      );
      expect(response.status).toBe(200);
      expect(response.body.accepts[0].extra.feeBps).toBe("90");
      expect(response.body.accepts[1].extra.feeBps).toBe("100");
    },
  );

  it("is idempotent: enriching an enriched body changes nothing", async () => {
    const first = await enrich(
      body402([naiveLine(await newWallet()), naiveLine(await newWallet(), { asset: NATIVE_SOL, amount: "5000000" })]),
    );
    expect(first.status).toBe(200);
    const second = await enrich(first.body);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.text).toBe(first.text);
  });

  it("passes lines for other networks and schemes through byte for byte", async () => {
    const wallet = await newWallet();
    const others = [
      {
        scheme: "exact",
        network: "eip155:8453",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        amount: "1000",
        payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
        maxTimeoutSeconds: 60,
        extra: { name: "USDC", version: "2" },
      },
      {
        scheme: "exact",
        network: CLUSTERS.mainnet.network,
        asset: CLUSTERS.mainnet.usdcMint,
        amount: "1000",
        payTo: wallet,
        maxTimeoutSeconds: 60,
      },
      // sla-escrow lines of this network are enriched too (test/worker/rails/sla-escrow/build-verify-settle.test.ts);
      // another network's pass.
      {
        scheme: "sla-escrow",
        network: CLUSTERS.mainnet.network,
        asset: USDC,
        amount: "1000",
        payTo: wallet,
        maxTimeoutSeconds: 60,
        extra: { nested: { list: [1, 2.5, "x", null, true] } },
      },
      { scheme: "upto", network: DEVNET, anything: "goes", amount: 7 },
    ];
    const input = body402([...others, naiveLine(wallet)]);
    const response = await enrich(input);
    expect(response.status).toBe(200);
    others.forEach((line, i) => {
      expect(JSON.stringify(response.body.accepts[i]), `accepts[${i}]`).toBe(JSON.stringify(line));
    });
    expect(response.body.accepts[4].payTo).not.toBe(wallet);
  });

  it("keeps the seller's own extra keys, while keys this facilitator owns are overwritten", async () => {
    const wallet = await newWallet();
    const line = naiveLine(wallet, {
      description: "Weather for one city",
      extra: {
        memo: "order-42",
        beneficiary: wallet,
        feePayer: "Stale1111111111111111111111111111111111111",
        feeBps: "1",
      },
    });
    const response = await enrich(body402([line]));
    expect(response.status).toBe(200);
    const enriched = response.body.accepts[0];
    expect(enriched.description).toBe("Weather for one city");
    expect(enriched.extra.memo).toBe("order-42");
    expect(enriched.extra.beneficiary).toBe(wallet);
    expect(enriched.extra.feePayer).toBe(TEST_FEE_PAYER.address);
    expect(enriched.extra.feeBps).toBe("100");
    expect(enriched.extra.merchantWallet).toBe(wallet);
  });

  it("accepts the scheme alias and answers with the wire name", async () => {
    const wallet = await newWallet();
    const [vault] = await findVaultPda(PROGRAM_ID, wallet);
    const response = await enrich(body402([naiveLine(wallet, { scheme: "v2:solana:exact" })]));
    expect(response.status).toBe(200);
    expect(response.body.accepts[0].scheme).toBe("exact");
    expect(response.body.accepts[0].payTo).toBe(vault);
  });

  it("also enriches a line that carries the seller wallet in both payTo and extra.merchantWallet", async () => {
    const wallet = await newWallet();
    const [vault] = await findVaultPda(PROGRAM_ID, wallet);
    const response = await enrich(body402([naiveLine(wallet, { extra: { merchantWallet: wallet } })]));
    expect(response.status).toBe(200);
    expect(response.body.accepts[0].payTo).toBe(vault);
  });

  it("leaves an off-curve payTo without merchantWallet as given (the wallet behind a PDA is unknowable)", async () => {
    const [someonesVault] = await findVaultPda(PROGRAM_ID, await newWallet());
    const line = naiveLine(someonesVault);
    const response = await enrich(body402([line]));
    expect(response.status).toBe(200);
    expect(response.body.accepts[0]).toEqual(line);
  });

  it(
    "gives a vault-only line (payTo = an existing vault, extra {}) the same extra a wallet line gets (issue 23 item " +
      "3)",
    async () => {
      const seller = await generateKeyPairSigner();
      const vault = await createVault(seller, seller);
      const fromWallet = await enrich(body402([naiveLine(seller.address)]));
      const fromVault = await enrich(body402([naiveLine(vault, { extra: {} })]));
      expect(fromVault.status).toBe(200);
      expect(fromVault.body.accepts[0]).toEqual(fromWallet.body.accepts[0]);
      expect(fromVault.body.accepts[0].extra).toMatchObject({
        feePayer: TEST_FEE_PAYER.address,
        merchantWallet: seller.address,
        feeBps: "90",
      });
    },
  );

  it("completes a line that already names its vault and merchantWallet but lacks this facilitator's keys", async () => {
    const wallet = await newWallet();
    const [vault] = await findVaultPda(PROGRAM_ID, wallet);
    const response = await enrich(body402([naiveLine(vault, { extra: { merchantWallet: wallet } })]));
    expect(response.status).toBe(200);
    expect(response.body.accepts[0].payTo).toBe(vault);
    expect(response.body.accepts[0].extra).toMatchObject({
      feePayer: TEST_FEE_PAYER.address,
      programId: PROGRAM_ID,
      merchantWallet: wallet,
      feeBps: "100",
    });
  });

  it("refuses a merchantWallet that disagrees with payTo, naming the field", async () => {
    const response = await enrich(
      body402([naiveLine(await newWallet(), { extra: { merchantWallet: await newWallet() } })]),
    );
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("BAD_REQUEST");
    expect(response.body.error).toMatch(/^accepts\[0\]\.payTo: /);
  });

  it("answers 400 naming accepts[i].field for a bad exact line of this network", async () => {
    const wallet = await newWallet();
    const cases: [unknown, RegExp][] = [
      [naiveLine(wallet, { amount: "1.5" }), /^accepts\[1\]\.amount: /],
      [naiveLine("not-base58!"), /^accepts\[1\]\.payTo: /],
      [naiveLine(wallet, { maxTimeoutSeconds: "60" }), /^accepts\[1\]\.maxTimeoutSeconds: /],
      [naiveLine(wallet, { extra: { merchantWallet: "nope" } }), /^accepts\[1\]\.extra\.merchantWallet: /],
      [{ scheme: "exact", asset: USDC, amount: "1", payTo: wallet, maxTimeoutSeconds: 60 }, /^accepts\[1\]\.network: /],
      ["not an object", /^accepts\[1\]: must be an object/],
    ];
    for (const [bad, expected] of cases) {
      const response = await enrich(body402([naiveLine(wallet), bad]));
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.code).toBe("BAD_REQUEST");
      expect(response.body.error).toMatch(expected);
      expect(response.body).toHaveProperty("correlationId");
    }
  });

  it("answers 400 for a body that is not a PaymentRequired or not JSON", async () => {
    const noAccepts = await enrich({ x402Version: 2, resource: { url: "https://seller.example" }, accepts: [] });
    expect(noAccepts.status).toBe(400);
    expect(noAccepts.body.error).toMatch(/^accepts: /);

    const wrongVersion = await enrich({ ...body402([naiveLine(await newWallet())]), x402Version: 1 });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.body.error).toMatch(/^x402Version: /);

    const malformed = await call("/payment-required/enrich", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/not valid JSON/);
  });

  it("with an allowlist, still enriches a line for an unlisted asset and logs a warning", async () => {
    const warnings: string[] = [];
    vi.spyOn(console, "warn").mockImplementation((line: unknown) => void warnings.push(String(line)));
    const wallet = await newWallet();
    const [vault] = await findVaultPda(PROGRAM_ID, wallet);
    const otherMint = await newWallet();
    const response = await callWithEnv({ SVC_ALLOWED_PAYMENT_MINTS: USDC }, "/payment-required/enrich", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body402([naiveLine(wallet, { asset: otherMint })])),
    });
    expect(response.status).toBe(200);
    expect(response.body.accepts[0].payTo).toBe(vault);
    const warning = warnings.map((w) => JSON.parse(w)).find((w) => w.event === "enrich_asset_not_allowed");
    expect(warning).toMatchObject({ level: "warn", index: 0, asset: otherMint });
    expect(warning.message).toContain("not supported");
    expect(warning.message).toContain("Approved assets:");
  });
});
