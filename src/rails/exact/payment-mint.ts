import type { MintInfo } from "../../chain/mint";
import { refusedMintExtension } from "../../chain/token-extensions";
import { type ErrorReason, type FacilitatorError, refused } from "../../platform/errors/catalogue";
import type { Refusal } from "../../x402/payment-verdict";
import type { PaymentTransfer } from "./verify-rules";

/**
 * The mint rules of an `exact` token transfer, whatever its `payTo` form: the transfer names the mint's own token
 * program and decimals, and the mint has no Token-2022 extension that could change what arrives (a transfer fee) or
 * who controls it.
 */
export function mintRefusal(mint: MintInfo, transfer: PaymentTransfer): Refusal | null {
  if (mint.tokenProgram !== transfer.tokenProgram) {
    return {
      reason: "invalid_exact_svm_payload_mint_mismatch",
      message: `The transfer uses token program ${transfer.tokenProgram}, but mint ${mint.address} belongs to ${mint.tokenProgram}`,
    };
  }
  if (mint.decimals !== transfer.decimals) {
    return {
      reason: "invalid_exact_svm_payload_mint_mismatch",
      message: `The transfer states ${transfer.decimals} decimals; mint ${mint.address} has ${mint.decimals}`,
    };
  }
  const refused = refusedMintExtension(mint);
  return refused ? { reason: "invalid_exact_svm_payload_mint_extension_not_allowed", message: refused } : null;
}

export const EXACT_MINT_SCREEN_REASONS = [
  "invalid_exact_svm_payload_mint_extension_not_allowed",
] as const satisfies readonly ErrorReason[];

/** The exact builder's mint screen (src/chain/buyer-source.ts): a mint /verify would refuse for its extensions, refused with the same reason. */
export function exactMintScreen(mint: MintInfo): FacilitatorError | null {
  const extension = refusedMintExtension(mint);
  return extension === null ? null : refused("invalid_exact_svm_payload_mint_extension_not_allowed", extension);
}
