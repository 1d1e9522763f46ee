import type { MintInfo } from "../../chain/mint";
import { refusedClosableMint, refusedMintExtension } from "../../chain/token-extensions";
import { type ErrorReason, type FacilitatorError, refused } from "../../platform/errors/catalogue";
import type { Refusal } from "../../x402/payment-verdict";
import type { PaymentTransfer } from "./verify-rules";

/**
 * The mint rules of an `exact` token transfer, whatever its `payTo` form: the transfer names the mint's own token
 * program and decimals, the mint has no Token-2022 extension that could change what arrives (a transfer fee) or
 * who controls it, and nobody can close it (and create it again under the same address while its facts are cached).
 */
export function mintRefusal(mint: MintInfo, transfer: PaymentTransfer): Refusal | null {
  if (mint.tokenProgram !== transfer.tokenProgram) {
    return {
      reason: "invalid_exact_svm_payload_mint_mismatch",
      message:
        `The transfer uses token ` +
        `program ${transfer.tokenProgram}, but mint ${mint.address} belongs to ${mint.tokenProgram}`,
    };
  }
  if (mint.decimals !== transfer.decimals) {
    return {
      reason: "invalid_exact_svm_payload_mint_mismatch",
      message: `The transfer states ${transfer.decimals} decimals; mint ${mint.address} has ${mint.decimals}`,
    };
  }
  return mintExtensionRefusal(mint);
}

/** The Token-2022 part of the mint rules: the builder screens what /verify and /settle refuse, with their reasons. */
function mintExtensionRefusal(
  mint: MintInfo,
): (Refusal & { reason: (typeof EXACT_MINT_SCREEN_REASONS)[number] }) | null {
  const extension = refusedMintExtension(mint);
  if (extension !== null) return { reason: "invalid_exact_svm_payload_mint_extension_not_allowed", message: extension };
  const closable = refusedClosableMint(mint);
  return closable === null ? null : { reason: "invalid_exact_svm_payload_mint_close_authority", message: closable };
}

export const EXACT_MINT_SCREEN_REASONS = [
  "invalid_exact_svm_payload_mint_extension_not_allowed",
  "invalid_exact_svm_payload_mint_close_authority",
] as const satisfies readonly ErrorReason[];

/** The exact builder's mint screen (src/chain/buyer-source.ts): a mint /verify would refuse, with the same reason. */
export function exactMintScreen(mint: MintInfo): FacilitatorError | null {
  const refusal = mintExtensionRefusal(mint);
  return refusal === null ? null : refused(refusal.reason, refusal.message);
}
