import { type Address, address, getAddressEncoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import type { AccountSnapshot } from "../../../../src/chain/accounts";
import { payoutAccountProblem } from "../../../../src/rails/upto/payout-account";

/**
 * The claim's check of payTo's token account against the program's Distribute rule (on-chain:
 * test/worker/rails/upto/attacks).
 */
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const TOKEN_2022 = address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
const MINT = address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU");
const OWNER = address("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX");
const OTHER = address("Cs2zdfUNonRdRGsiZUQQLdTxzxVvJZmgiX2mpLYKuEqP");

function tokenAccount(
  options: { program?: Address; owner?: Address; state?: number; extensions?: number[] } = {},
): AccountSnapshot {
  const extensions = options.extensions ?? [];
  const data = new Uint8Array(extensions.length ? 166 + extensions.length * 4 : 165);
  data.set(getAddressEncoder().encode(MINT), 0);
  data.set(getAddressEncoder().encode(options.owner ?? OWNER), 32);
  data[108] = options.state ?? 1;
  if (extensions.length) {
    data[165] = 2; // AccountType::Account
    // zero-length values
    for (const [i, type] of extensions.entries()) new DataView(data.buffer).setUint16(166 + i * 4, type, true);
  }
  return { address: OTHER, owner: options.program ?? TOKEN, lamports: 2_039_280n, data, executable: false };
}

const expected = (tokenProgram: Address = TOKEN) => ({ owner: OWNER, mint: MINT, tokenProgram });

describe("payoutAccountProblem", () => {
  it("an initialized account of the mint owned by payTo is fine (Token-2022: with ImmutableOwner only)", () => {
    expect(payoutAccountProblem(tokenAccount(), expected())).toBeNull();
    expect(
      payoutAccountProblem(tokenAccount({ program: TOKEN_2022, extensions: [7] }), expected(TOKEN_2022)),
    ).toBeNull();
  });

  it("names what would send the share to the treasury", () => {
    expect(payoutAccountProblem(null, expected())).toBe("does not exist");
    expect(payoutAccountProblem(tokenAccount({ state: 2 }), expected())).toBe("is frozen");
    expect(payoutAccountProblem(tokenAccount({ state: 0 }), expected())).toBe("is not initialized");
    expect(payoutAccountProblem(tokenAccount({ owner: OTHER }), expected())).toMatch(/owner was reassigned/);
    expect(payoutAccountProblem(tokenAccount(), expected(TOKEN_2022))).toMatch(/not a token account of/);
    expect(
      payoutAccountProblem(tokenAccount({ program: TOKEN_2022, extensions: [7, 8] }), expected(TOKEN_2022)),
    ).toMatch(/MemoTransfer extension/);
    expect(payoutAccountProblem(tokenAccount({ program: TOKEN_2022, extensions: [11] }), expected(TOKEN_2022))).toMatch(
      /CpiGuard extension/,
    );
  });
});
