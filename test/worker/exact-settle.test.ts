import { describe, expect, it } from "vitest";
import { findAssociatedTokenPda } from "@solana-program/token";
import { address } from "@solana/kit";
import { call } from "./helpers";
import { TEST_FEE_PAYER } from "../fixtures/keys";
import { DEVNET, NATIVE_SOL, USDC, enrichedLine, fundedBuyer, lamportsOf, signedPaymentBody, tokenBalance, chainRpc } from "./payment-fixtures";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");

describe("exact: verify then settle on the local chain", () => {
  it("settles a USDC payment into a seller vault that did not exist yet (just-in-time provisioning)", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const line = await enrichedLine(USDC, "1250000");
    const body = await signedPaymentBody(buyer, line);

    const verified = await call("/verify", { method: "POST", json: body });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toMatchObject({ isValid: true, valid: true, payer: buyer.address });

    const settled = await call("/settle", { method: "POST", json: body });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: DEVNET });
    expect(settled.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);

    const [vaultAta] = await findAssociatedTokenPda({ owner: address(line.payTo), mint: USDC, tokenProgram: TOKEN_PROGRAM });
    expect(await tokenBalance(vaultAta)).toBe(1_250_000n);
    const status = await chainRpc<{ value: [{ confirmationStatus: string; err: unknown } | null] }>("getSignatureStatuses", [[settled.body.transaction], { searchTransactionHistory: true }]);
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
