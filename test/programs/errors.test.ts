/**
 * The TypeScript mirror of the stand-ins' error codes (localnet/programs/errors.ts) equals the C
 * enums the programs return (universal-settle/errors.h, sla-escrow/errors.h, payment-channels/errors.h).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  PAYMENT_CHANNELS_ERROR,
  SLA_ESCROW_STANDIN_ERROR,
  UNIVERSAL_SETTLE_STANDIN_ERROR,
} from "../../localnet/programs/errors";

function enumOf(headerPath: string, prefix: string): Record<string, number> {
  const text = readFileSync(fileURLToPath(new URL(headerPath, import.meta.url)), "utf8");
  const entries: Record<string, number> = {};
  for (const match of text.matchAll(new RegExp(`${prefix}([A-Z0-9_]+) = (\\d+)`, "g"))) {
    const camel = match[1]!.toLowerCase().replace(/(^|_)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
    entries[camel] = Number(match[2]);
  }
  return entries;
}

describe("stand-in error codes", () => {
  it("mirror universal-settle/errors.h", () => {
    expect({ ...UNIVERSAL_SETTLE_STANDIN_ERROR }).toEqual(
      enumOf("../../localnet/programs/universal-settle/errors.h", "US_ERR_"),
    );
  });
  it("mirror sla-escrow/errors.h", () => {
    expect({ ...SLA_ESCROW_STANDIN_ERROR }).toEqual(enumOf("../../localnet/programs/sla-escrow/errors.h", "SLA_ERR_"));
  });
  it("mirror payment-channels/errors.h", () => {
    expect({ ...PAYMENT_CHANNELS_ERROR }).toEqual(
      enumOf("../../localnet/programs/payment-channels/errors.h", "PC_ERR_"),
    );
  });
});
