import { describe, expect, it } from "vitest";
import { redactRpcUrl } from "../../../src/chain/rpc";

describe("redactRpcUrl (what /health may show of the wallet RPC URL)", () => {
  it("hides userinfo", () => {
    expect(redactRpcUrl("https://alice:s3cret@rpc.example.com/")).toBe("https://redacted@rpc.example.com/");
  });

  it("hides key-like query values and keeps the rest", () => {
    const shown = redactRpcUrl("https://mainnet.helius-rpc.com/?api-key=0123456789abcdef&cluster=mainnet");
    expect(shown).not.toContain("0123456789abcdef");
    expect(shown).toContain("api-key=redacted");
    expect(shown).toContain("cluster=mainnet");
  });

  it("hides opaque tokens in the path", () => {
    const shown = redactRpcUrl("https://solana-mainnet.g.alchemy.com/v2/AbCdEf0123456789GhIjKl");
    expect(shown).toBe("https://solana-mainnet.g.alchemy.com/v2/redacted");
  });

  it("leaves a plain local URL alone and never throws on garbage", () => {
    expect(redactRpcUrl("http://127.0.0.1:8899")).toBe("http://127.0.0.1:8899/");
    expect(redactRpcUrl("not a url")).toBe("<invalid url>");
  });
});
