import { EXTENSION_DEFAULT_ACCOUNT_STATE, EXTENSION_MINT_CLOSE_AUTHORITY, type MintInfo } from "./mint";

/**
 * Which Token-2022 mints each rail accepts, decided from the mint's extension list alone (the mint account is read
 * anyway, so screening costs no RPC). Keys are Token-2022 `ExtensionType` ids.
 */

/** Names of Token-2022 `ExtensionType` ids, for messages. */
const EXTENSION_NAMES: ReadonlyMap<number, string> = new Map([
  [1, "TransferFeeConfig"],
  [2, "TransferFeeAmount"],
  [3, "MintCloseAuthority"],
  [4, "ConfidentialTransferMint"],
  [5, "ConfidentialTransferAccount"],
  [6, "DefaultAccountState"],
  [7, "ImmutableOwner"],
  [8, "MemoTransfer"],
  [9, "NonTransferable"],
  [10, "InterestBearingConfig"],
  [11, "CpiGuard"],
  [12, "PermanentDelegate"],
  [13, "NonTransferableAccount"],
  [14, "TransferHook"],
  [15, "TransferHookAccount"],
  [16, "ConfidentialTransferFeeConfig"],
  [17, "ConfidentialTransferFeeAmount"],
  [18, "MetadataPointer"],
  [19, "TokenMetadata"],
  [20, "GroupPointer"],
  [21, "TokenGroup"],
  [22, "GroupMemberPointer"],
  [23, "TokenGroupMember"],
  [24, "ConfidentialMintBurn"],
  [25, "ScaledUiAmount"],
  [26, "Pausable"],
  [27, "PausableAccount"],
]);

/** The Token-2022 name of an `ExtensionType` id (mint or token account), for messages. */
export const token2022ExtensionName = (type: number): string => EXTENSION_NAMES.get(type) ?? `extension type ${type}`;

/**
 * `exact`: the extensions that make a mint unsafe as a payment asset (deny-list), shared by the builder (refuses to
 * build), the verifier (refuses to verify or settle) and seller provisioning, so all of them agree. Each value says
 * why the facilitator cannot accept the mint.
 */
const REFUSED_MINT_EXTENSIONS: ReadonlyMap<number, string> = new Map([
  [1, "a transfer fee is withheld, so the vault would receive less than the required amount"],
  [4, "confidential transfers hide amounts that the facilitator must check"],
  [6, "new token accounts start frozen, so the vault's token account could not receive the payment"],
  [9, "the tokens cannot be transferred"],
  [12, "a permanent delegate can move tokens out of the vault at any time"],
  [14, "every transfer runs a third-party program the facilitator does not vet"],
  [16, "confidential transfer fees hide amounts that the facilitator must check"],
  [26, "the mint authority can pause every transfer"],
]);

/** `AccountState::Frozen` in the DefaultAccountState extension (0 uninitialized, 1 initialized, 2 frozen). */
const ACCOUNT_STATE_FROZEN = 2;

/**
 * A human reason why `mint` cannot be used for an `exact` payment, or null when it can.
 * DefaultAccountState only counts when its default is Frozen: an "initialized" default is harmless.
 */
export function refusedMintExtension(mint: MintInfo): string | null {
  for (const type of mint.extensionTypes) {
    const why = REFUSED_MINT_EXTENSIONS.get(type);
    if (!why) continue;
    if (type === EXTENSION_DEFAULT_ACCOUNT_STATE && mint.defaultAccountState !== ACCOUNT_STATE_FROZEN) continue;
    return (
      `Token-2022 ` +
      `mint ${mint.address} has ` +
      `the ${token2022ExtensionName(type)} extension (${why}); such mints are not accepted for exact payments`
    );
  }
  return null;
}

/**
 * Why a mint that can be closed is refused, by both rails: once its supply is 0, its close authority can close it and
 * create a mint again under the same address with other decimals and extensions, so nothing read of it (the exact rail
 * caches its mint facts for minutes; a channel holds a deposit for days) stays true.
 */
const CLOSABLE_MINT_WHY = "it could be closed and created again under the same address with other extensions";

/**
 * `exact`: a mint whose close authority is set, or null when it has none (no extension, or the authority revoked:
 * then nobody can ever close it). Kept apart from the deny-list because its refusal has its own reason.
 */
export function refusedClosableMint(mint: MintInfo): string | null {
  if (mint.closeAuthority === null) return null;
  return (
    `Token-2022 ` +
    `mint ${mint.address} has a close authority ` +
    `(${mint.closeAuthority}): ${CLOSABLE_MINT_WHY}; such mints are not accepted for exact payments`
  );
}

/**
 * `upto`: the payment-channels program's own allow-list. Its Open refuses a Token-2022 mint carrying any extension
 * but the metadata and group ones (MetadataPointer, TokenMetadata, GroupPointer, TokenGroup, GroupMemberPointer,
 * TokenGroupMember), whatever the extension's state, and its Distribute re-checks the mint before every payout
 * (solana-foundation/payment-channels docs/001 "Token Program Support"). Refusing the same set here keeps the fee
 * payer from co-signing an Open that cannot run, and a channel from holding a deposit its payout could not move.
 */
const CHANNEL_ALLOWED_MINT_EXTENSIONS: ReadonlySet<number> = new Set([18, 19, 20, 21, 22, 23]);

/** Why the program refuses the extensions a payment's safety depends on most; the rest are outside its allow-list. */
const CHANNEL_REFUSAL_WHY: ReadonlyMap<number, string> = new Map([
  [1, "a withheld transfer fee would leave the escrow holding less than the deposit the channel accounts for"],
  [EXTENSION_MINT_CLOSE_AUTHORITY, `${CLOSABLE_MINT_WHY} while channels hold it`],
  [4, "the program cannot produce confidential-transfer proofs"],
  [6, "payout accounts could be born frozen, so Distribute could not pay the seller"],
  [9, "no transfer out of the escrow could ever succeed"],
  [10, "the displayed amount drifts from the raw units the channel accounts in"],
  [12, "a permanent delegate could move the escrowed deposit at any time"],
  [14, "a third-party hook program could refuse every payout and trap the deposit"],
  [16, "the program cannot produce confidential-transfer proofs"],
  [25, "the displayed amount differs from the raw units the channel accounts in"],
  [26, "the mint authority could pause the escrow's payouts"],
]);

/** A human reason why `mint` cannot fund a payment channel (`upto`), or null when it can. */
export function refusedChannelMintExtension(mint: MintInfo): string | null {
  const type = mint.extensionTypes.find((t) => !CHANNEL_ALLOWED_MINT_EXTENSIONS.has(t));
  if (type === undefined) return null;
  const why =
    CHANNEL_REFUSAL_WHY.get(type) ?? "the payment-channels program accepts only the metadata and group extensions";
  return (
    `Token-2022 ` +
    `mint ${mint.address} has ` +
    `the ${token2022ExtensionName(type)} extension ` +
    `(${why}); the payment-channels program refuses such mints, so they are not accepted for upto payments`
  );
}
