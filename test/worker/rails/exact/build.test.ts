import {
  type Address,
  address,
  createKeyPairFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
  type Transaction,
  verifySignature,
} from "@solana/kit";
import { findAssociatedTokenPda, getMintEncoder } from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";
import { CLUSTERS } from "../../../../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../../../../src/rails/exact/cluster-defaults";
import { findVaultPda, findVaultSolStoragePda } from "../../../../src/rails/exact/program/pda";
import { TEST_FEE_PAYER } from "../../../support/keys";
import { chainRpc } from "../../../support/workerd/chain";
import { activatedSeller } from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * POST /build-exact-payment-tx against the Worker and the real local chain: the returned transaction is
 * decoded, signed by the buyer, and (with the fee payer's signature added, as settle would) landed on chain.
 */

const DEVNET = CLUSTERS.devnet.network;
const PROGRAM_ID = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
const USDC = address(CLUSTERS.devnet.usdcMint);
const NATIVE_SOL = address("11111111111111111111111111111111");
const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const TOKEN_2022_PROGRAM = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
const COMPUTE_BUDGET_PROGRAM = address("ComputeBudget111111111111111111111111111111");
const MEMO_PROGRAM = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const SYSTEM_PROGRAM = NATIVE_SOL;
const RESOURCE = { url: "https://seller.example/weather", mimeType: "application/json" };

let faucet: Address;

beforeAll(async () => {
  const info = (await chainRpc("localnet_getInfo", [])) as { faucet: string };
  faucet = address(info.faucet);
});

// ------------------------------------------------------------------------------------------------
// helpers

/** A buyer whose key comes from a fixed test seed (sha256 of a label), as a wallet would hold it. */
async function buyerFromSeed(label: string): Promise<KeyPairSigner> {
  const seed = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`exact-build-test/${label}/${runId}`)),
  );
  return createKeyPairSignerFromPrivateKeyBytes(seed);
}
/** Keeps buyers of this run apart from any earlier run against a long-lived chain. */
const runId = crypto.randomUUID();

/** A seller and its enriched `accepts[]` line, produced by the enrich endpoint as a seller would. */
async function enrichedLine(
  asset: Address,
  amount: string,
  scheme = "exact",
  seller?: Address,
): Promise<Record<string, any>> {
  seller ??= (await generateKeyPairSigner()).address;
  const response = await call("/payment-required/enrich", {
    method: "POST",
    json: {
      x402Version: 2,
      resource: RESOURCE,
      accepts: [{ scheme, network: DEVNET, asset, amount, payTo: seller, maxTimeoutSeconds: 60 }],
    },
  });
  expect(response.status).toBe(200);
  return response.body.accepts[0];
}

/** Each build call comes from its own client address, so the per-client rate limit never interferes. */
function build(json: unknown) {
  const clientIp = `198.51.100.${Math.floor(Math.random() * 250) + 1}:${crypto.randomUUID()}`;
  return call("/build-exact-payment-tx", { method: "POST", json, headers: { "CF-Connecting-IP": clientIp } });
}

function decode(base64: string) {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(base64)) as Transaction;
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  if (message.version !== 0) throw new Error(`expected a v0 message, got ${String(message.version)}`);
  const accounts = message.staticAccounts;
  const instructions = message.instructions.map((ix) => ({
    programAddress: accounts[ix.programAddressIndex]!,
    accounts: (ix.accountIndices ?? []).map((i) => accounts[i]!),
    data: new Uint8Array(ix.data ?? []),
  }));
  return { transaction, message, accounts, instructions };
}

function u32(data: Uint8Array, offset: number): number {
  return new DataView(data.buffer, data.byteOffset).getUint32(offset, true);
}
function u64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset).getBigUint64(offset, true);
}

/** Signs as the buyer (the facilitator's slot stays empty), as a client does before sending the proof. */
async function signAsBuyer(base64: string, buyer: KeyPairSigner): Promise<Transaction> {
  return partiallySignTransaction([buyer.keyPair], decode(base64).transaction);
}

/** Adds the fee payer's signature and sends the transaction, as settlement would; returns the signature. */
async function landOnChain(buyerSigned: Transaction): Promise<void> {
  const feePayerKeys = await createKeyPairFromBytes(TEST_FEE_PAYER.secretKey);
  const signed = await partiallySignTransaction([feePayerKeys], buyerSigned);
  await chainRpc("sendTransaction", [
    getBase64EncodedWireTransaction(signed),
    { encoding: "base64", preflightCommitment: "confirmed" },
  ]);
}

async function tokenBalance(tokenAccount: Address): Promise<bigint> {
  const result = (await chainRpc("getTokenAccountBalance", [tokenAccount])) as { value: { amount: string } };
  return BigInt(result.value.amount);
}

async function lamportsOf(account: Address): Promise<bigint> {
  const result = (await chainRpc("getBalance", [account])) as { value: number };
  return BigInt(result.value);
}

/**
 * A Token-2022 mint with the given extensions (TLV after the 165-byte base + account-type byte), faucet as authority.
 */
async function placeToken2022Mint(extensions: { type: number; value: Uint8Array }[]): Promise<Address> {
  const mint = (await generateKeyPairSigner()).address;
  const base = getMintEncoder().encode({
    mintAuthority: faucet,
    supply: 0n,
    decimals: 6,
    isInitialized: true,
    freezeAuthority: null,
  });
  const tlvLength = extensions.reduce((sum, e) => sum + 4 + e.value.length, 0);
  const data = new Uint8Array(166 + tlvLength);
  data.set(base, 0);
  data[165] = 1; // AccountType::Mint
  let offset = 166;
  for (const { type, value } of extensions) {
    new DataView(data.buffer).setUint16(offset, type, true);
    new DataView(data.buffer).setUint16(offset + 2, value.length, true);
    data.set(value, offset + 4);
    offset += 4 + value.length;
  }
  await chainRpc("localnet_setAccount", [
    mint,
    { lamports: 10_000_000, dataBase64: btoa(String.fromCharCode(...data)), owner: TOKEN_2022_PROGRAM },
  ]);
  return mint;
}

// ------------------------------------------------------------------------------------------------

describe("POST /build-exact-payment-tx: USDC", () => {
  it(
    "builds [limit, price, TransferChecked to the vault ATA, memo] with the facilitator as fee payer, and it lands " +
      "once signed",
    async () => {
      const buyer = await buyerFromSeed("usdc-happy");
      await chainRpc("requestTokenAirdrop", [buyer.address, 2_000_000]);
      const line = await enrichedLine(USDC, "1250000");
      const vault = address(line.payTo);

      const response = await build({ payer: buyer.address, accepted: line, resource: RESOURCE });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const body = response.body;
      expect(body.feePayer).toBe(TEST_FEE_PAYER.address);
      expect(body.payer).toBe(buyer.address);
      expect(body.signerPubkeys).toEqual([TEST_FEE_PAYER.address, buyer.address]);
      expect(body.payerSignatureIndex).toBe(1);
      expect(body.assetKind).toBe("spl-token");
      expect(body.notes.join(" ")).toMatch(/just in time at settlement/);
      const nowSeconds = Math.floor(Date.now() / 1000);
      expect(body.recentBlockhashExpiresAt).toBeGreaterThanOrEqual(nowSeconds + 55);
      expect(body.recentBlockhashExpiresAt).toBeLessThanOrEqual(nowSeconds + 65);

      // The verify/settle body around it: wire scheme, the line as given, the same unsigned transaction.
      expect(body.verifyBodyTemplate).toEqual({
        x402Version: 2,
        paymentPayload: {
          x402Version: 2,
          resource: RESOURCE,
          accepted: line,
          payload: { transaction: body.transaction },
        },
        paymentRequirements: line,
      });

      const { transaction, message, accounts, instructions } = decode(body.transaction);
      expect(accounts[0]).toBe(TEST_FEE_PAYER.address);
      expect(message.header.numSignerAccounts).toBe(2);
      expect(message.addressTableLookups ?? []).toEqual([]);
      expect(message.lifetimeToken).toBe(body.recentBlockhash);
      expect(Object.values(transaction.signatures)).toEqual([null, null]); // unsigned: both slots empty

      const [sourceAta] = await findAssociatedTokenPda({
        owner: buyer.address,
        mint: USDC,
        tokenProgram: TOKEN_PROGRAM,
      });
      const [vaultAta] = await findAssociatedTokenPda({ owner: vault, mint: USDC, tokenProgram: TOKEN_PROGRAM });
      expect(body.destination).toBe(vaultAta);
      expect(instructions.map((ix) => ix.programAddress)).toEqual([
        COMPUTE_BUDGET_PROGRAM,
        COMPUTE_BUDGET_PROGRAM,
        TOKEN_PROGRAM,
        MEMO_PROGRAM,
      ]);
      const [limit, price, transfer, memo] = instructions as [
        (typeof instructions)[0],
        (typeof instructions)[0],
        (typeof instructions)[0],
        (typeof instructions)[0],
      ];
      expect(limit.data[0]).toBe(2);
      expect(u32(limit.data, 1)).toBe(20_000);
      expect(price.data[0]).toBe(3);
      expect(u64(price.data, 1)).toBe(1n);
      expect(transfer.data[0]).toBe(12); // TransferChecked
      expect(u64(transfer.data, 1)).toBe(1_250_000n);
      expect(transfer.data[9]).toBe(6);
      expect(transfer.accounts).toEqual([sourceAta, USDC, vaultAta, buyer.address]);
      expect(transfer.accounts).not.toContain(TEST_FEE_PAYER.address);
      expect(memo.accounts).toEqual([]);
      expect(new TextDecoder().decode(memo.data)).toMatch(/^[0-9a-f]{32}$/);

      // The buyer signs at payerSignatureIndex; the signature verifies over the message bytes.
      const signed = await signAsBuyer(body.transaction, buyer);
      const signatures = Object.values(signed.signatures);
      expect(signatures[0]).toBeNull();
      const buyerSignature = signatures[body.payerSignatureIndex]!;
      expect(await verifySignature(buyer.keyPair.publicKey, buyerSignature, signed.messageBytes)).toBe(true);

      // Settlement provisions the vault's token account first (just-in-time); emulate that, then land the payment.
      await chainRpc("requestTokenAirdrop", [vault, 0]);
      await landOnChain(signed);
      expect(await tokenBalance(vaultAta)).toBe(1_250_000n);
      expect(await tokenBalance(sourceAta)).toBe(750_000n);
    },
  );

  it("gives two identical purchases different transactions (random memo nonce)", async () => {
    const buyer = await buyerFromSeed("usdc-twice");
    await chainRpc("requestTokenAirdrop", [buyer.address, 1_000_000]);
    const line = await enrichedLine(USDC, "10000");
    const [first, second] = await Promise.all([
      build({ payer: buyer.address, accepted: line }),
      build({ payer: buyer.address, accepted: line }),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body.transaction).not.toBe(second.body.transaction);
    // Without a resource in the request the template has none either.
    expect(first.body.verifyBodyTemplate.paymentPayload).not.toHaveProperty("resource");
  });

  it("accepts the scheme alias and writes the wire name into the template", async () => {
    const buyer = await buyerFromSeed("usdc-alias");
    await chainRpc("requestTokenAirdrop", [buyer.address, 1_000_000]);
    const line = await enrichedLine(USDC, "10000");
    const response = await build({ payer: buyer.address, accepted: { ...line, scheme: "v2:solana:exact" } });
    expect(response.status).toBe(200);
    expect(response.body.verifyBodyTemplate.paymentPayload.accepted).toEqual(line);
    expect(response.body.verifyBodyTemplate.paymentRequirements.scheme).toBe("exact");
  });

  it("says how much is missing when the buyer's balance is short, and skipSourceBalanceCheck bypasses it", async () => {
    const buyer = await buyerFromSeed("usdc-short");
    await chainRpc("requestTokenAirdrop", [buyer.address, 500_000]);
    const line = await enrichedLine(USDC, "1250000");

    const short = await build({ payer: buyer.address, accepted: line });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe("BAD_REQUEST");
    expect(short.body.error).toContain("Insufficient USDC balance: has 0.5, needs 1.25 (missing 0.75)");
    expect(short.body.error).toContain("has 500000, needs 1250000, missing 750000");
    expect(short.body).toMatchObject({ availableRaw: "500000", requiredRaw: "1250000", missingRaw: "750000" });

    const skipped = await build({ payer: buyer.address, accepted: line, skipSourceBalanceCheck: true });
    expect(skipped.status).toBe(200);
    expect(skipped.body.notes.join(" ")).toMatch(/skipSourceBalanceCheck/);
  });

  it("reports a buyer without any token account as having 0", async () => {
    const buyer = await buyerFromSeed("usdc-none");
    const response = await build({ payer: buyer.address, accepted: await enrichedLine(USDC, "10000") });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain("Insufficient USDC balance: has 0, needs 0.01 (missing 0.01)");
  });
});

describe("POST /build-exact-payment-tx: native SOL and Token-2022", () => {
  it("builds a System transfer from the buyer to the vault SOL storage PDA, and it lands once signed", async () => {
    const buyer = await buyerFromSeed("sol-happy");
    await chainRpc("requestAirdrop", [buyer.address, 1_000_000_000]);
    const line = await enrichedLine(NATIVE_SOL, "5000000");
    const [solStorage] = await findVaultSolStoragePda(PROGRAM_ID, address(line.payTo));

    const response = await build({ payer: buyer.address, accepted: line, resource: RESOURCE });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.assetKind).toBe("native-sol");
    expect(response.body.destination).toBe(solStorage);
    const { accounts, instructions } = decode(response.body.transaction);
    expect(accounts[0]).toBe(TEST_FEE_PAYER.address);
    expect(instructions.map((ix) => ix.programAddress)).toEqual([
      COMPUTE_BUDGET_PROGRAM,
      COMPUTE_BUDGET_PROGRAM,
      SYSTEM_PROGRAM,
      MEMO_PROGRAM,
    ]);
    expect(u32(instructions[0]!.data, 1)).toBe(10_000);
    const transfer = instructions[2]!;
    expect(u32(transfer.data, 0)).toBe(2); // System Transfer
    expect(u64(transfer.data, 4)).toBe(5_000_000n);
    expect(transfer.accounts).toEqual([buyer.address, solStorage]);

    const signed = await signAsBuyer(response.body.transaction, buyer);
    expect(
      await verifySignature(buyer.keyPair.publicKey, Object.values(signed.signatures)[1]!, signed.messageBytes),
    ).toBe(true);
    await landOnChain(signed);
    expect(await lamportsOf(solStorage)).toBe(5_000_000n);
  });

  it("refuses a SOL payment the buyer cannot cover, with the shortfall", async () => {
    const buyer = await buyerFromSeed("sol-short");
    await chainRpc("requestAirdrop", [buyer.address, 2_000_000]);
    const response = await build({ payer: buyer.address, accepted: await enrichedLine(NATIVE_SOL, "5000000") });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain("Insufficient SOL balance: has 0.002, needs 0.005 (missing 0.003)");
  });

  it("builds a Token-2022 payment with the Token-2022 program id, and it lands once signed", async () => {
    // MintCloseAuthority (type 3) with its authority revoked (all zero) is harmless: nobody can close the mint.
    const mint = await placeToken2022Mint([{ type: 3, value: new Uint8Array(32) }]);
    const buyer = await buyerFromSeed("t22-happy");
    await chainRpc("requestTokenAirdrop", [buyer.address, 3_000_000, mint]);
    const line = await enrichedLine(mint, "2000000");
    const vault = address(line.payTo);

    const response = await build({ payer: buyer.address, accepted: line });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.assetKind).toBe("token-2022");
    const { instructions } = decode(response.body.transaction);
    expect(u32(instructions[0]!.data, 1)).toBe(30_000);
    const transfer = instructions[2]!;
    expect(transfer.programAddress).toBe(TOKEN_2022_PROGRAM);
    const [sourceAta] = await findAssociatedTokenPda({ owner: buyer.address, mint, tokenProgram: TOKEN_2022_PROGRAM });
    const [vaultAta] = await findAssociatedTokenPda({ owner: vault, mint, tokenProgram: TOKEN_2022_PROGRAM });
    expect(transfer.accounts).toEqual([sourceAta, mint, vaultAta, buyer.address]);

    await chainRpc("requestTokenAirdrop", [vault, 0, mint]);
    await landOnChain(await signAsBuyer(response.body.transaction, buyer));
    expect(await tokenBalance(vaultAta)).toBe(2_000_000n);
  });

  it("refuses Token-2022 mints with dangerous extensions, but not a DefaultAccountState of initialized", async () => {
    const buyer = await buyerFromSeed("t22-refused");
    const cases: [{ type: number; value: Uint8Array }[], RegExp | null][] = [
      [[{ type: 12, value: new Uint8Array(32).fill(7) }], /PermanentDelegate/],
      [[{ type: 1, value: new Uint8Array(108) }], /TransferFeeConfig/],
      [[{ type: 6, value: Uint8Array.of(2) }], /DefaultAccountState/],
      [[{ type: 6, value: Uint8Array.of(1) }], null],
    ];
    for (const [extensions, refusal] of cases) {
      const mint = await placeToken2022Mint(extensions);
      const response = await build({
        payer: buyer.address,
        accepted: await enrichedLine(mint, "10000"),
        skipSourceBalanceCheck: true,
      });
      if (refusal === null) {
        expect(response.status, JSON.stringify(response.body)).toBe(200);
      } else {
        expect(response.status).toBe(400);
        expect(response.body.error).toMatch(refusal);
      }
    }
  });
});

describe("POST /build-exact-payment-tx: the built transaction passes /verify once the buyer signs", () => {
  /** Fills the template with the buyer-signed transaction, exactly as a client does, and asks /verify. */
  async function verifyFilledTemplate(build: any, buyer: KeyPairSigner) {
    const signed = getBase64EncodedWireTransaction(await signAsBuyer(build.transaction, buyer));
    const template = structuredClone(build.verifyBodyTemplate);
    template.paymentPayload.payload.transaction = signed;
    return call("/verify", { method: "POST", json: template });
  }

  it("USDC to a provisioned vault", async () => {
    const buyer = await buyerFromSeed("verify-usdc");
    await chainRpc("requestTokenAirdrop", [buyer.address, 1_000_000]);
    // An activated vault: for a vault still to be created /verify answers what /settle's just-in-time provisioning
    // would (test/worker/rails/exact/verify-just-in-time.test.ts), and 250,000 is below the payment a vault is fronted
    // for.
    const line = await enrichedLine(USDC, "250000", "exact", await activatedSeller(USDC));
    const built = await build({ payer: buyer.address, accepted: line, resource: RESOURCE });
    expect(built.status).toBe(200);
    const verdict = await verifyFilledTemplate(built.body, buyer);
    expect(verdict.body, JSON.stringify(verdict.body)).toMatchObject({
      isValid: true,
      valid: true,
      payer: buyer.address,
    });
  });

  it("native SOL", async () => {
    const buyer = await buyerFromSeed("verify-sol");
    await chainRpc("requestAirdrop", [buyer.address, 1_000_000_000]);
    const built = await build({
      payer: buyer.address,
      accepted: await enrichedLine(NATIVE_SOL, "2000000", "exact", await activatedSeller(NATIVE_SOL)),
      resource: RESOURCE,
    });
    expect(built.status).toBe(200);
    const verdict = await verifyFilledTemplate(built.body, buyer);
    expect(verdict.body, JSON.stringify(verdict.body)).toMatchObject({
      isValid: true,
      valid: true,
      payer: buyer.address,
    });
  });
});

describe("POST /build-exact-payment-tx: refusals", () => {
  it("refuses a mint outside the allowlist with the shared allowlist message", async () => {
    const buyer = await buyerFromSeed("allowlist");
    const otherMint = await placeToken2022Mint([]);
    const line = await enrichedLine(otherMint, "10000");
    const response = await callWithEnv(
      { SVC_ALLOWED_PAYMENT_MINTS: `${USDC}, ${NATIVE_SOL}` },
      "/build-exact-payment-tx",
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ payer: buyer.address, accepted: line }),
      },
    );
    expect(response.status).toBe(400);
    expect(response.body.error).toBe(
      `Asset ${otherMint} is not supported by this facilitator. Approved assets: ${USDC}, ${NATIVE_SOL} (native SOL)`,
    );
    expect(response.body.error).toContain("not supported");
    expect(response.body.error).toContain("Approved assets:");
  });

  it("refuses requests that do not fit this facilitator, naming the field", async () => {
    const buyer = await buyerFromSeed("refusals");
    const line = await enrichedLine(USDC, "10000");
    const otherWallet = (await generateKeyPairSigner()).address;
    const [someVault] = await findVaultPda(PROGRAM_ID, otherWallet);
    const { merchantWallet: _dropped, ...extraWithoutWallet } = line.extra;
    const cases: [unknown, RegExp][] = [
      [{ payer: buyer.address, accepted: { ...line, network: CLUSTERS.mainnet.network } }, /^accepted\.network: /],
      [{ payer: "not-base58!", accepted: line }, /^payer: /],
      [{ payer: buyer.address }, /^accepted: /],
      [{ payer: buyer.address, accepted: { ...line, amount: "-1" } }, /^accepted\.amount: /],
      [{ payer: buyer.address, accepted: { ...line, amount: "0" } }, /^accepted\.amount: must be greater than 0/],
      [{ payer: buyer.address, accepted: { ...line, scheme: "sla-escrow" } }, /^accepted\.scheme: /],
      [
        { payer: buyer.address, accepted: { ...line, extra: { ...line.extra, feePayer: otherWallet } } },
        /^accepted\.extra\.feePayer: /,
      ],
      [
        { payer: buyer.address, accepted: { ...line, extra: extraWithoutWallet } },
        /merchantWallet.*not an existing UniversalSettle vault.*enrich/,
      ],
      [{ payer: buyer.address, accepted: { ...line, payTo: someVault } }, /^accepted\.payTo: .*not the vault PDA/],
      [{ payer: buyer.address, accepted: line, skipSourceBalanceCheck: "yes" }, /^skipSourceBalanceCheck: /],
      [{ payer: TEST_FEE_PAYER.address, accepted: line }, /^payer: /],
      [{ payer: someVault, accepted: line }, /^payer: .*off the ed25519 curve/],
      [
        { payer: buyer.address, accepted: await enrichedLine(otherWallet, "10000") },
        /^accepted\.asset: .*does not exist/,
      ],
    ];
    for (const [json, expected] of cases) {
      const response = await build(json);
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.code).toBe("BAD_REQUEST");
      expect(response.body.error).toMatch(expected);
    }
  });

  it(
    "builds for an activated vault's line without extra.merchantWallet (the seller is read from the vault, as " +
      "/verify does)",
    async () => {
      const buyer = await buyerFromSeed("vault-only");
      const seller = await activatedSeller(USDC);
      const line = (
        await call("/payment-required/enrich", {
          method: "POST",
          json: {
            x402Version: 2,
            resource: RESOURCE,
            accepts: [
              { scheme: "exact", network: DEVNET, asset: USDC, amount: "10000", payTo: seller, maxTimeoutSeconds: 60 },
            ],
          },
        })
      ).body.accepts[0];
      const { merchantWallet: _dropped, ...extraWithoutWallet } = line.extra;
      const response = await build({
        payer: buyer.address,
        accepted: { ...line, extra: extraWithoutWallet },
        skipSourceBalanceCheck: true,
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.destination).toBe(
        (await findAssociatedTokenPda({ owner: address(line.payTo), mint: USDC, tokenProgram: TOKEN_PROGRAM })).at(0),
      );
    },
  );

  it("refuses a line below the minimum payment with /verify's reason and the number", async () => {
    const buyer = await buyerFromSeed("below-minimum");
    const line = await enrichedLine(USDC, "10000");
    const response = await build({
      payer: buyer.address,
      accepted: { ...line, amount: "1000" },
      skipSourceBalanceCheck: true,
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: "BAD_REQUEST",
      reason: "invalid_exact_svm_payload_amount_below_minimum",
      minimumAmount: "10000",
    });
    expect(response.body.error).toMatch(
      /^accepted\.amount: amount 1000 is below this facilitator's minimum of 10000 raw units/,
    );
  });

  it("answers 400 for malformed JSON", async () => {
    const response = await call("/build-exact-payment-tx", {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": crypto.randomUUID() },
      body: '{"payer": ',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/not valid JSON/);
  });

  it("answers 502 FACILITATOR_UPSTREAM when the Solana RPC is unreachable", async () => {
    const buyer = await buyerFromSeed("rpc-down");
    const line = await enrichedLine(USDC, "10000");
    const response = await callWithEnv({ SOLANA_RPC_URL: "http://127.0.0.1:9" }, "/build-exact-payment-tx", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ payer: buyer.address, accepted: line }),
    });
    expect(response.status).toBe(502);
    expect(response.body.code).toBe("FACILITATOR_UPSTREAM");
    expect(response.body.error).not.toContain("127.0.0.1");
  });
});
