import { describe, expect, it } from "vitest";
import { effectivePercent, formatUnits, percentFromBps } from "../../../src/page/browser/amounts";
import { salesSummary } from "../../../src/page/browser/console/sales";
import { REGISTER_LABEL, stepStates, UPDATE_REGISTRATION_LABEL } from "../../../src/page/browser/console/step-states";
import { isLoopbackUrl, transactionHref } from "../../../src/page/browser/explorer";
import { sweepPaysText } from "../../../src/page/browser/fee-quote-text";
import { formatTime } from "../../../src/page/browser/time-format";

/** The pure rules behind the seller console: step states, fee wording, explorer links and the one time format. */
describe("console step states", () => {
  it("before activation: activate open, registering closed (the API answers 409), nothing to retire", () => {
    expect(stepStates({ activated: false, verified: false, nextStep: "activate" })).toEqual({
      activateDisabled: false,
      registerDisabled: true,
      registerLabel: REGISTER_LABEL,
      retireDisabled: true,
      activateDone: null,
      registerDone: null,
    });
  });

  it("after activation: activate done and disabled, registering open", () => {
    expect(stepStates({ activated: true, verified: false, nextStep: "verify" })).toMatchObject({
      activateDisabled: true,
      registerDisabled: false,
      registerLabel: REGISTER_LABEL,
      retireDisabled: true,
      activateDone: expect.stringMatching(/^Done:/),
      registerDone: null,
    });
  });

  it("verified: registering again is an update, retiring is possible", () => {
    expect(stepStates({ activated: true, verified: true })).toMatchObject({
      activateDisabled: true,
      registerDisabled: false,
      registerLabel: UPDATE_REGISTRATION_LABEL,
      retireDisabled: false,
      registerDone: expect.stringMatching(/^Done:/),
    });
  });

  it(
    "the wallet payTo form needs no vault: registering stays open before activation (the API answers 409 until its " +
      "token account exists)",
    () => {
      expect(stepStates({ activated: false, verified: false, nextStep: "activate" }, "wallet")).toMatchObject({
        activateDisabled: false,
        registerDisabled: false,
        registerLabel: REGISTER_LABEL,
        retireDisabled: true,
      });
      expect(stepStates({ activated: false, verified: false, nextStep: "activate" }, "vault")).toMatchObject({
        registerDisabled: true,
      });
    },
  );

  it("without a preview every step stays available (the API says what is missing)", () => {
    expect(stepStates(undefined)).toMatchObject({
      activateDisabled: false,
      registerDisabled: false,
      retireDisabled: false,
    });
  });
});

describe("what the next sweep pays, with the effective rate", () => {
  const quote = {
    amount: "500000",
    feeBps: 90,
    protocolFee: "10000",
    sellerNets: "490000",
    tier: "sovereign",
    provisioningRecoveryWithheld: "0",
  };
  it("a fee at the rate is said at the rate", () => {
    expect(
      sweepPaysText({ ...quote, amount: "10000000", protocolFee: "90000", sellerNets: "9910000" }, 6, "USDC"),
    ).toBe("9.91 USDC (fee 0.09 USDC at 0.9%, sovereign)");
  });

  it("the minimum fee of a small amount is said with its effective rate (0.01 of 0.5 USDC is 2%, not 0.9%)", () => {
    expect(sweepPaysText(quote, 6, "USDC")).toBe(
      "0.49 USDC (fee 0.01 USDC, 2% of 0.5 USDC: the minimum fee, above the 0.9% rate, sovereign)",
    );
  });

  it("a fee that takes the whole amount, and what is withheld toward a provisioned vault's setup cost", () => {
    expect(
      sweepPaysText(
        { ...quote, amount: "5000", protocolFee: "5000", sellerNets: "0", tier: "standard", feeBps: "100" },
        6,
        "USDC",
      ),
    ).toBe("0 USDC (fee 0.005 USDC, 100% of 0.005 USDC: the minimum fee takes it all, standard)");
    expect(
      sweepPaysText(
        {
          ...quote,
          protocolFee: "10000",
          provisioningRecoveryWithheld: "490000",
          sellerNets: "0",
          tier: "not_activated",
          feeBps: "100",
        },
        6,
        "USDC",
      ),
    ).toBe(
      "0 USDC (fee 0.01 USDC, 2% of 0.5 USDC: the minimum fee, above the 1% rate; 0.49 USDC withheld toward the " +
        "vault's setup cost, not_activated)",
    );
  });

  it("percentages", () => {
    expect(effectivePercent(1n, 3n)).toBe("33.33%");
    expect(effectivePercent(2n, 3n)).toBe("66.67%");
    expect(effectivePercent(0n, 0n)).toBe("unknown");
    expect(percentFromBps("90")).toBe("0.9%");
    expect(percentFromBps(undefined)).toBe("unknown");
    expect(formatUnits("-1500", 3, "X")).toBe("-1.5 X");
    expect(formatUnits("abc", 6)).toBe("unknown");
  });
});

describe("transaction links", () => {
  const sig = "5".repeat(88);
  it("devnet and testnet: the Solana Explorer with the cluster selected; mainnet: its default cluster", () => {
    expect(transactionHref(sig, { cluster: "devnet", walletRpcUrl: "https://api.devnet.solana.com/" })).toBe(
      `https://explorer.solana.com/tx/${sig}?cluster=devnet`,
    );
    expect(transactionHref(sig, { cluster: "testnet", walletRpcUrl: null })).toBe(
      `https://explorer.solana.com/tx/${sig}?cluster=testnet`,
    );
    expect(transactionHref(sig, { cluster: "mainnet", walletRpcUrl: "https://rpc.example.com/" })).toBe(
      `https://explorer.solana.com/tx/${sig}`,
    );
  });

  it("the local chain (wallet RPC on loopback, presenting itself as devnet): our own view", () => {
    expect(transactionHref(sig, { cluster: "devnet", walletRpcUrl: "http://127.0.0.1:8899/" })).toBe(
      `/console/tx?signature=${sig}`,
    );
    for (const url of ["http://localhost:8899", "http://[::1]:8899/", "http://127.1.2.3/", "http://rpc.localhost/"])
      expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of [
      "https://api.devnet.solana.com",
      "http://10.0.0.1/",
      "http://127.0.0.1.example.com/",
      "not a url",
      null,
    ])
      expect(isLoopbackUrl(url), String(url)).toBe(false);
  });
});

describe("one time format", () => {
  it("RFC 3339 with milliseconds or microseconds, epoch milliseconds and dates all read the same", () => {
    for (const value of [
      "2026-11-28T17:30:05.123Z",
      "2026-11-28T17:30:05.123000Z",
      Date.parse("2026-11-28T17:30:05.123Z"),
      new Date("2026-11-28T17:30:05.123Z"),
    ]) {
      expect(formatTime(value)).toBe("2026-11-28 17:30:05 UTC");
    }
    expect(formatTime(undefined)).toBe("unknown time");
    expect(formatTime(Number.NaN)).toBe("unknown time");
    expect(formatTime("yesterday")).toBe("yesterday");
  });
});

describe("the console's sales", () => {
  it("counts each sale once: an upto deposit, a cancel and a failed attempt are no sale", () => {
    const usdc = (_mint: string, raw: bigint) => formatUnits(raw, 6, "USDC");
    const history = [
      { outcome: "settled", role: "sale" as const, amount: "512345", asset: "USDC-mint" },
      { outcome: "settled", role: "deposit" as const, amount: "800000", asset: "USDC-mint" },
      { outcome: "settled", role: "sale" as const, amount: "0", asset: "USDC-mint" },
      { outcome: "failed", role: "sale" as const, amount: "250000", asset: "USDC-mint" },
      { outcome: "settled", role: null, amount: "250000", asset: "USDC-mint" },
    ];
    expect(salesSummary(history, usdc)).toBe("2 sales: 0.762345 USDC");
    expect(salesSummary([], usdc)).toBe("0 sales");
  });
});
