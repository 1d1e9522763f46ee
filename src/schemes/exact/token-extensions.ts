import type { MintInfo } from "../../solana/mint";

/**
 * Token-2022 mint extensions that make a mint unsafe as an `exact` payment asset, shared by the builder
 * (refuses to build) and the verifier (refuses to verify or settle), so both always agree.
 * Keys are Token-2022 `ExtensionType` ids; each value says why the facilitator cannot accept the mint.
 */
export const REFUSED_MINT_EXTENSIONS: ReadonlyMap<number, { name: string; why: string }> = new Map([
  [1, { name: "TransferFeeConfig", why: "a transfer fee is withheld, so the vault would receive less than the required amount" }],
  [4, { name: "ConfidentialTransferMint", why: "confidential transfers hide amounts that the facilitator must check" }],
  [6, { name: "DefaultAccountState", why: "new token accounts start frozen, so the vault's token account could not receive the payment" }],
  [9, { name: "NonTransferable", why: "the tokens cannot be transferred" }],
  [12, { name: "PermanentDelegate", why: "a permanent delegate can move tokens out of the vault at any time" }],
  [14, { name: "TransferHook", why: "every transfer runs a third-party program the facilitator does not vet" }],
  [16, { name: "ConfidentialTransferFeeConfig", why: "confidential transfer fees hide amounts that the facilitator must check" }],
  [26, { name: "Pausable", why: "the mint authority can pause every transfer" }],
]);

const EXTENSION_DEFAULT_ACCOUNT_STATE = 6;
/** `AccountState::Frozen` in the DefaultAccountState extension (0 uninitialized, 1 initialized, 2 frozen). */
const ACCOUNT_STATE_FROZEN = 2;

/**
 * A human reason why `mint` cannot be used for an `exact` payment, or null when it can.
 * DefaultAccountState only counts when its default is Frozen: an "initialized" default is harmless.
 */
export function refusedMintExtension(mint: MintInfo): string | null {
  for (const type of mint.extensionTypes) {
    const refused = REFUSED_MINT_EXTENSIONS.get(type);
    if (!refused) continue;
    if (type === EXTENSION_DEFAULT_ACCOUNT_STATE && mint.defaultAccountState !== ACCOUNT_STATE_FROZEN) continue;
    return `Token-2022 mint ${mint.address} has the ${refused.name} extension (${refused.why}); such mints are not accepted for exact payments`;
  }
  return null;
}
