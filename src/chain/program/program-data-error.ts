/**
 * Thrown when bytes read from chain (account data) or from a transaction (instruction data) do not
 * have the layout a program's ABI documents. Decoders throw it; the `decodeX` safe variants return
 * `null` instead, so RPC data never crashes a request path.
 */
type ProgramDataErrorReason = "wrong_length" | "wrong_discriminator";

export class ProgramDataError extends Error {
  override readonly name = "ProgramDataError";

  constructor(
    /** What was being decoded, e.g. "SplitVault account" or "FundPayment instruction data". */
    readonly subject: string,
    readonly reason: ProgramDataErrorReason,
    readonly expected: number,
    readonly actual: number,
    lengthRule: "exactly" | "at_least" = "exactly",
  ) {
    super(
      reason === "wrong_length"
        ? `${subject}: expected ${lengthRule === "exactly" ? "exactly" : "at least"} ${expected} bytes, got ${actual}`
        : `${subject}: expected discriminator ${expected}, got ${actual}`,
    );
  }
}
