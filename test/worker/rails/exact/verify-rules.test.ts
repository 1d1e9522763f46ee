import {
  AccountRole,
  type Address,
  address,
  type Blockhash,
  generateKeyPairSigner,
  getAddressDecoder,
  type KeyPairSigner,
} from "@solana/kit";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { chainRpc, fundedBuyer, tokenBalance } from "../../../support/workerd/chain";
import {
  bodyFor,
  craftBody,
  FEE_PAYER,
  memo,
  type PaymentParts,
  paymentParts,
  solTransferToVault,
  standardInstructions,
  TOKEN_2022_PROGRAM,
  transferChecked,
} from "../../../support/workerd/craft-payment";
import { enrichedLine, NATIVE_SOL, USDC } from "../../../support/workerd/payment-fixtures";
import { call, callWithEnv } from "../../../support/workerd/worker-http";

/**
 * One crafted transaction per rejection rule of the exact rail, each sent to the real /verify (and, where the
 * rule matters for money, /settle) of the Worker against the local chain. Each starts from the standard
 * payment shape and changes one thing.
 */

let buyer: KeyPairSigner;
let line: Record<string, any>;
let parts: PaymentParts;

beforeAll(async () => {
  buyer = await fundedBuyer(50_000_000);
  line = await enrichedLine(USDC, "1000000");
  parts = await paymentParts(buyer, line);
});

async function expectInvalid(body: Record<string, any>, reason: string | RegExp, messagePart?: RegExp) {
  const response = await call("/verify", { method: "POST", json: body });
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body).toMatchObject({
    isValid: false,
    valid: false,
    code: expect.any(String),
    correlationId: expect.any(String),
  });
  expect(response.body.invalidReason).toMatch(reason);
  if (messagePart) expect(response.body.invalidMessage).toMatch(messagePart);
  expect(response.body.error).toBe(response.body.invalidMessage);
  return response.body;
}

describe("exact: the standard payment", () => {
  it("is valid (baseline for every rule below)", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    const response = await call("/verify", { method: "POST", json: body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.payer).toBe(buyer.address);
  });
});

describe("exact: request-level rules", () => {
  it("malformed JSON → invalid_payload", async () => {
    const response = await call("/verify", {
      method: "POST",
      body: "{not json",
      headers: { "Content-Type": "application/json" },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ isValid: false, invalidReason: "invalid_payload" });
    expect(response.body.invalidMessage).toMatch(/not valid JSON/);
  });

  it("wrong types name the field → invalid_payload", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    body.paymentRequirements = { ...line, amount: 1000000 };
    const result = await expectInvalid(body, "invalid_payload");
    expect(result.invalidMessage).toContain("paymentRequirements.amount");
  });

  it("bad base58 payTo → invalid_payload naming the field", async () => {
    const bad = { ...line, payTo: "0OIl-not-base58" };
    const result = await expectInvalid(bodyFor(bad, "AAAA"), "invalid_payload");
    expect(result.invalidMessage).toContain("payTo");
  });

  it("paymentRequirements differing from accepted → rejected", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    body.paymentRequirements = { ...line, amount: "1" };
    await expectInvalid(body, "invalid_payload_requirements_mismatch");
  });

  it("scheme aliases are normalised (v2:solana:exact on both sides verifies)", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    body.paymentRequirements = { ...line, scheme: "v2:solana:exact" };
    body.paymentPayload.accepted = { ...line, scheme: "v2:solana:exact" };
    const response = await call("/verify", { method: "POST", json: body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it("unknown scheme → unsupported_scheme", async () => {
    // (This example was "upto" until the upto rail came, issue 24.)
    const other = { ...line, scheme: "deferred" };
    await expectInvalid(bodyFor(other, "AAAA"), "unsupported_scheme");
  });

  it("another network → invalid_network", async () => {
    const other = { ...line, network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" };
    await expectInvalid(bodyFor(other, "AAAA"), "invalid_network");
  });

  it("an asset outside the allowlist → the same message on build, verify and settle", async () => {
    const allowlist = { SVC_ALLOWED_PAYMENT_MINTS: "So11111111111111111111111111111111111111112" };
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    const init = (json: unknown) => ({
      method: "POST",
      body: JSON.stringify(json),
      headers: { "Content-Type": "application/json" },
    });
    const verify = await callWithEnv(allowlist, "/verify", init(body));
    const settle = await callWithEnv(allowlist, "/settle", init(body));
    const build = await callWithEnv(
      allowlist,
      "/build-exact-payment-tx",
      init({ payer: buyer.address, accepted: line }),
    );
    expect(verify.body.invalidMessage).toMatch(
      /not supported .* Approved assets: So11111111111111111111111111111111111111112/,
    );
    expect(settle.body.errorMessage).toBe(verify.body.invalidMessage);
    expect(build.body.error).toBe(verify.body.invalidMessage);
    expect([verify.status, settle.status, build.status]).toEqual([400, 400, 400]);
  });

  it("extra.feePayer that is not ours → rejected before anything else", async () => {
    const other = { ...line, extra: { ...line.extra, feePayer: buyer.address } };
    await expectInvalid(bodyFor(other, "AAAA"), "invalid_exact_svm_fee_payer_not_managed_by_facilitator");
  });

  it("payTo that is not the vault of merchantWallet → recipient mismatch", async () => {
    const other = { ...line, payTo: buyer.address };
    await expectInvalid(bodyFor(other, "AAAA"), "invalid_exact_svm_payload_recipient_mismatch");
  });
});

describe("exact: transaction rules", () => {
  it("undecodable transaction", async () => {
    await expectInvalid(
      bodyFor(line, btoa("garbage that is not a transaction")),
      "invalid_exact_svm_payload_transaction_could_not_be_decoded",
    );
  });

  it("address lookup tables", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    // Re-encode with one lookup-table entry appended to the v0 message (buyer re-signs the new message).
    const { transaction, lookupBody } = await withLookupTable(body.paymentPayload.payload.transaction, buyer);
    expect(transaction).not.toBe(lookupBody);
    await expectInvalid(bodyFor(line, transaction), "invalid_exact_svm_payload_address_lookup_tables");
  });

  it("durable nonce", async () => {
    const nonceAccount = (await generateKeyPairSigner()).address;
    const advanceNonce = {
      programAddress: address("11111111111111111111111111111111"),
      accounts: [
        { address: nonceAccount, role: AccountRole.WRITABLE },
        { address: address("SysvarRecentB1ockHashes11111111111111111111"), role: AccountRole.READONLY },
        { address: buyer.address, role: AccountRole.READONLY_SIGNER },
      ],
      data: new Uint8Array([4, 0, 0, 0]),
    };
    const body = await craftBody(line, [advanceNonce, ...standardInstructions(parts)], { signers: [buyer] });
    await expectInvalid(body, "invalid_exact_svm_payload_durable_nonce");
  });

  it("fee payer other than the facilitator", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer], feePayer: buyer.address });
    await expectInvalid(body, "invalid_exact_svm_fee_payer_mismatch");
  });

  it("missing buyer signature", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [] });
    await expectInvalid(body, "invalid_exact_svm_payload_missing_signature");
  });

  it("invalid buyer signature", async () => {
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
    const bytes = Uint8Array.from(atob(body.paymentPayload.payload.transaction), (ch) => ch.charCodeAt(0));
    bytes[1 + 64 + 10]! ^= 0xff; // flip a byte of the buyer's signature (slot 1)
    await expectInvalid(
      bodyFor(line, btoa(String.fromCharCode(...bytes))),
      "invalid_exact_svm_payload_signature_invalid",
    );
  });

  it("an extra required signer", async () => {
    const stranger = await generateKeyPairSigner();
    const body = await craftBody(line, [...standardInstructions(parts), memo("co-signed", [stranger.address])], {
      signers: [buyer, stranger],
    });
    await expectInvalid(body, "invalid_exact_svm_payload_excessive_signers");
  });

  it("compute unit limit above the advertised cap", async () => {
    const ixs = standardInstructions(parts);
    ixs[0] = getSetComputeUnitLimitInstruction(1_000_000);
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction_too_high",
    );
  });

  it("two compute unit limit instructions", async () => {
    const ixs = [getSetComputeUnitLimitInstruction(10_000), ...standardInstructions(parts)];
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction",
    );
  });

  it("compute unit price above the cap", async () => {
    const ixs = standardInstructions(parts);
    ixs[1] = getSetComputeUnitPriceInstruction(10_000_000n);
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high",
    );
  });

  it("a compute unit price without a limit, whose implied limit exceeds the cap", async () => {
    const ixs = standardInstructions(parts).slice(1); // price, transfer, memo: 2 × 200,000 implied units > 200,000
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction",
      /implied limit 400000/,
    );
  });

  it("no transfer at all", async () => {
    await expectInvalid(
      await craftBody(line, [getSetComputeUnitLimitInstruction(20_000), memo("hello", [buyer.address])], {
        signers: [buyer],
      }),
      "invalid_exact_svm_payload_no_transfer_instruction",
    );
  });

  it("two transfers", async () => {
    const ixs = [...standardInstructions(parts), transferChecked(parts)];
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_multiple_transfers",
    );
  });

  it("amount other than the required amount (less, and more)", async () => {
    for (const amount of [parts.amount - 1n, parts.amount + 1n]) {
      const ixs = standardInstructions(parts);
      ixs[2] = transferChecked(parts, { amount });
      await expectInvalid(
        await craftBody(line, ixs, { signers: [buyer] }),
        "invalid_exact_svm_payload_amount_mismatch",
      );
    }
  });

  it("another mint", async () => {
    const { mint } = await chainRpc<{ mint: string }>("localnet_createMint", [{ decimals: 6 }]);
    const ixs = standardInstructions(parts);
    ixs[2] = transferChecked(parts, { mint: address(mint) });
    await expectInvalid(await craftBody(line, ixs, { signers: [buyer] }), "invalid_exact_svm_payload_mint_mismatch");
  });

  it("wrong decimals", async () => {
    const ixs = standardInstructions(parts);
    ixs[2] = transferChecked(parts, { decimals: 9 });
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_mint_mismatch",
      /decimals/,
    );
  });

  it("a destination other than the vault token account", async () => {
    const [elsewhere] = await findAssociatedTokenPda({
      owner: (await generateKeyPairSigner()).address,
      mint: USDC,
      tokenProgram: parts.tokenProgram,
    });
    const ixs = standardInstructions(parts);
    ixs[2] = transferChecked(parts, { destination: elsewhere });
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_recipient_mismatch",
    );
  });

  it(
    "an EXISTING token account of another owner (same mint) as destination → refused by our recipient rule on " +
      "verify and settle; nothing moves",
    async () => {
      // A real, initialized USDC account of a stranger: the chain itself would accept this transfer (issue 32), so only
      // the rule in schemes/exact/verify.ts stands between the buyer's money and the wrong account.
      const stranger = await fundedBuyer(1_000_000);
      const [strangerAta] = await findAssociatedTokenPda({
        owner: stranger.address,
        mint: USDC,
        tokenProgram: parts.tokenProgram,
      });
      const account = await chainRpc<{ value: { owner: string; data: [string, string] } | null }>("getAccountInfo", [
        strangerAta,
        { encoding: "base64" },
      ]);
      expect(account.value?.owner).toBe(parts.tokenProgram);
      const data = Uint8Array.from(atob(account.value!.data[0]), (c) => c.charCodeAt(0));
      expect([
        getAddressDecoder().decode(data.subarray(0, 32)),
        getAddressDecoder().decode(data.subarray(32, 64)),
      ]).toEqual([USDC, stranger.address]);
      expect(await tokenBalance(strangerAta)).toBe(1_000_000n);

      const ixs = standardInstructions(parts);
      ixs[2] = transferChecked(parts, { destination: strangerAta });
      const body = await craftBody(line, ixs, { signers: [buyer] });
      const ourRule = new RegExp(
        `The transfer goes to ${strangerAta}, not to the vault token account ${parts.vaultAta}`,
      );
      await expectInvalid(body, "invalid_exact_svm_payload_recipient_mismatch", ourRule);
      const settled = await call("/settle", { method: "POST", json: body });
      expect(settled.status, JSON.stringify(settled.body)).toBe(400);
      expect(settled.body).toMatchObject({
        success: false,
        errorReason: "invalid_exact_svm_payload_recipient_mismatch",
        transaction: "",
      });
      expect(settled.body.errorMessage).toMatch(ourRule);
      expect(await tokenBalance(strangerAta)).toBe(1_000_000n);
    },
  );

  it("an instruction of a program outside the allowlist", async () => {
    const foreign = {
      programAddress: address("Stake11111111111111111111111111111111111111"),
      accounts: [],
      data: new Uint8Array([1]),
    };
    await expectInvalid(
      await craftBody(line, [...standardInstructions(parts), foreign], { signers: [buyer] }),
      "invalid_exact_svm_payload_unknown_optional_instruction",
    );
  });

  it("a System transfer added to a token payment", async () => {
    const ixs = [...standardInstructions(parts), await solTransferToVault(buyer, line, 1000n)];
    await expectInvalid(
      await craftBody(line, ixs, { signers: [buyer] }),
      "invalid_exact_svm_payload_unknown_optional_instruction",
    );
  });

  it("the fee payer inside an instruction's accounts (e.g. as the payer of an account creation)", async () => {
    const createForFeePayer = getCreateAssociatedTokenIdempotentInstruction({
      payer: buyer,
      ata: parts.vaultAta,
      owner: FEE_PAYER,
      mint: USDC,
    });
    await expectInvalid(
      await craftBody(line, [...standardInstructions(parts), createForFeePayer], { signers: [buyer] }),
      "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds",
    );
  });

  it("a second memo", async () => {
    await expectInvalid(
      await craftBody(line, [...standardInstructions(parts), memo("again")], { signers: [buyer] }),
      "invalid_exact_svm_payload_memo_count",
    );
  });

  it("a Token-2022 mint with a transfer hook (and one with a permanent delegate)", async () => {
    for (const type of [14, 12]) {
      const mint = await placeToken2022Mint(type);
      // such a mint cannot be activated
      const hooked = await enrichedLine(mint, "10000", (await generateKeyPairSigner()).address);
      const p = await paymentParts(buyer, hooked, TOKEN_2022_PROGRAM);
      await expectInvalid(
        await craftBody(hooked, standardInstructions(p), { signers: [buyer] }),
        "invalid_exact_svm_payload_mint_extension_not_allowed",
        /TransferHook|PermanentDelegate/i,
      );
    }
  });

  it("a buyer without the funds → insufficient_funds", async () => {
    const poor = await fundedBuyer(10);
    const p = await paymentParts(poor, line);
    await expectInvalid(await craftBody(line, standardInstructions(p), { signers: [poor] }), "insufficient_funds");
  });

  it("an unknown or expired blockhash → blockhash_expired, and settle asks to retry build", async () => {
    const stale = { blockhash: "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi" as Blockhash, lastValidBlockHeight: 1n };
    const body = await craftBody(line, standardInstructions(parts), { signers: [buyer], blockhash: stale });
    await expectInvalid(body, "blockhash_expired");
    const settle = await call("/settle", { method: "POST", json: body });
    expect(settle.status).toBe(400);
    expect(settle.body).toMatchObject({
      success: false,
      errorReason: "blockhash_expired",
      code: "BLOCKHASH_EXPIRED",
      transaction: expect.any(String),
    });
    expect(settle.body.errorMessage).toContain("retry build");
  });

  it("a SOL payment to somewhere other than the vault SOL storage", async () => {
    const solLine = await enrichedLine(NATIVE_SOL, "1000000");
    const wrong = await solTransferToVault(buyer, line, 1_000_000n); // the USDC seller's storage, not this seller's
    await expectInvalid(
      await craftBody(solLine, [getSetComputeUnitLimitInstruction(20_000), wrong], { signers: [buyer] }),
      "invalid_exact_svm_payload_recipient_mismatch",
    );
  });
});

describe("exact: faults", () => {
  it(
    "RPC unreachable → 502 in the x402 shape for verify; settle, which cannot know whether its send arrived, " +
      "answers pending",
    async () => {
      const body = await craftBody(line, standardInstructions(parts), { signers: [buyer] });
      const init = { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } };
      const down = { SOLANA_RPC_URL: "http://127.0.0.1:9" };
      const verify = await callWithEnv(down, "/verify", init);
      expect(verify.status).toBe(502);
      expect(verify.body).toMatchObject({
        isValid: false,
        invalidReason: "facilitator_upstream_error",
        code: "FACILITATOR_UPSTREAM",
      });
      // The vault is known from earlier payments, so settle gets as far as sending; a failed send may still have
      // reached the cluster, so the answer is pending with the signature, never a failure (issue 8 item 4).
      const settle = await callWithEnv(down, "/settle", init);
      expect(settle.status).toBe(202);
      expect(settle.body).toMatchObject({
        success: false,
        errorReason: "settlement_pending",
        code: "SETTLEMENT_PENDING",
      });
      expect(settle.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    },
  );
});

async function placeToken2022Mint(extensionType: number): Promise<Address> {
  const mint = (await generateKeyPairSigner()).address;
  const data = new Uint8Array(166 + 4 + 64);
  data[44] = 6; // decimals
  data[45] = 1; // is_initialized
  data[165] = 1; // AccountType::Mint
  const view = new DataView(data.buffer);
  view.setUint16(166, extensionType, true);
  view.setUint16(168, 64, true);
  await chainRpc("localnet_setAccount", [
    mint,
    { lamports: 10_000_000, dataBase64: btoa(String.fromCharCode(...data)), owner: TOKEN_2022_PROGRAM },
  ]);
  return mint;
}

/** Rebuilds a signed v0 transaction with one address-lookup-table entry appended to its message. */
async function withLookupTable(
  base64: string,
  signer: KeyPairSigner,
): Promise<{ transaction: string; lookupBody: string }> {
  const {
    getTransactionDecoder,
    getBase64Encoder,
    getBase64EncodedWireTransaction,
    partiallySignTransaction,
    getAddressEncoder,
  } = await import("@solana/kit");
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const message = new Uint8Array(tx.messageBytes);
  // The v0 message ends with the lookup-table count (0); replace it with one table: key, 1 writable index, 0 readonly.
  const table = getAddressEncoder().encode((await generateKeyPairSigner()).address);
  const patched = new Uint8Array(message.length - 1 + 1 + 32 + 1 + 1 + 1);
  patched.set(message.subarray(0, message.length - 1), 0);
  let o = message.length - 1;
  patched[o++] = 1;
  patched.set(table, o);
  o += 32;
  patched[o++] = 1; // one writable index
  patched[o++] = 0; // index 0
  patched[o++] = 0; // no readonly indexes
  const rebuilt = {
    messageBytes: patched,
    signatures: Object.fromEntries(Object.keys(tx.signatures).map((k) => [k, null])),
  } as unknown as typeof tx;
  const signed = await partiallySignTransaction([signer.keyPair], rebuilt);
  return { transaction: getBase64EncodedWireTransaction(signed), lookupBody: base64 };
}
