import { describe, expect, it } from "vitest";
import { constantTimeEqual } from "../../../../src/http/middleware/operator-auth";

describe("constantTimeEqual", () => {
  it("is true only for identical strings", () => {
    expect(constantTimeEqual("token-abc", "token-abc")).toBe(true);
    expect(constantTimeEqual("token-abd", "token-abc")).toBe(false);
    expect(constantTimeEqual("token-ab", "token-abc")).toBe(false);
    expect(constantTimeEqual("token-abcd", "token-abc")).toBe(false);
    expect(constantTimeEqual("", "token-abc")).toBe(false);
  });
});
