import { address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import type { MintInfo } from "../../../src/chain/mint";
import {
  refusedChannelMintExtension,
  refusedClosableMint,
  refusedMintExtension,
} from "../../../src/chain/token-extensions";

/**
 * The two rails' Token-2022 rules over a mint's extension list (real mints on the chain:
 * test/worker/rails/upto/token-2022, rails/exact/verify-rules).
 */
const mint = (extensionTypes: number[], defaultAccountState: number | null = null): MintInfo => ({
  address: address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"),
  tokenProgram: address("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"),
  decimals: 6,
  extensionTypes,
  defaultAccountState,
  freezeAuthority: null,
  closeAuthority: null,
});

describe("refusedChannelMintExtension (upto: the payment-channels program's allow-list)", () => {
  it("accepts no extensions and the metadata and group ones (18..23)", () => {
    expect(refusedChannelMintExtension(mint([]))).toBeNull();
    expect(refusedChannelMintExtension(mint([18, 19, 20, 21, 22, 23]))).toBeNull();
  });

  it("refuses every other extension by name, whatever its state, and unknown future ones", () => {
    expect(refusedChannelMintExtension(mint([18, 1]))).toMatch(/TransferFeeConfig extension .*upto/);
    expect(refusedChannelMintExtension(mint([3]))).toMatch(/MintCloseAuthority/);
    expect(refusedChannelMintExtension(mint([10]))).toMatch(/InterestBearingConfig/);
    expect(refusedChannelMintExtension(mint([25]))).toMatch(/ScaledUiAmount/);
    expect(refusedChannelMintExtension(mint([26]))).toMatch(/Pausable/);
    // An "initialized" default is harmless to exact, but the program refuses the extension's presence.
    expect(refusedChannelMintExtension(mint([6], 1))).toMatch(/DefaultAccountState/);
    expect(refusedMintExtension(mint([6], 1))).toBeNull();
    expect(refusedChannelMintExtension(mint([99]))).toMatch(/extension type 99/);
  });
});

describe("refusedMintExtension (exact: the deny-list)", () => {
  it("refuses the extensions that move, freeze, tax or hide the payment, and accepts the rest", () => {
    expect(refusedMintExtension(mint([14]))).toMatch(/TransferHook extension .*exact/);
    expect(refusedMintExtension(mint([6], 2))).toMatch(/DefaultAccountState/);
    expect(refusedMintExtension(mint([3, 10, 18]))).toBeNull();
  });
});

describe("refusedClosableMint (exact: a mint its close authority could close and create again)", () => {
  it(
    "refuses a set close authority by name, and accepts a mint without one (no extension, or the authority " +
      "revoked)",
    () => {
      const authority = address("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
      expect(refusedClosableMint({ ...mint([3]), closeAuthority: authority })).toMatch(
        new RegExp(`close authority \\(${authority}\\).*exact payments`),
      );
      expect(refusedClosableMint(mint([3]))).toBeNull();
      expect(refusedClosableMint(mint([]))).toBeNull();
    },
  );
});
