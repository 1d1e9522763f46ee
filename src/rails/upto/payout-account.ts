import type { Address } from "@solana/kit";
import type { AccountSnapshot } from "../../chain/accounts";
import { readTokenAccount, TOKEN_ACCOUNT_SIZE } from "../../chain/token-account";
import { token2022ExtensionName } from "../../chain/token-extensions";
import { TOKEN_2022_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { Channel } from "./program/accounts";

/**
 * Would the payment-channels program pay a share into this token account? Its Distribute sends a non-zero share only
 * to the beneficiary's canonical token account when that account is an initialized (not frozen) token account of the
 * channel's mint, still owned by the beneficiary, with no Token-2022 extension but ImmutableOwner; otherwise it pays
 * the share to its treasury for good (`validate_ata_checked` / `payout_destination`, docs/001 "Distribute"). The claim
 * checks the seller's account before it signs, so a seller hears why instead of losing the charge; the claim and the
 * keeper check the buyer's before a Distribute that refunds it (`refundRedirect`).
 */

/** Token-2022: the account-type byte after the base account, then the TLV extensions. */
const ACCOUNT_TYPE_OFFSET = TOKEN_ACCOUNT_SIZE;
const ACCOUNT_TYPE_ACCOUNT = 2;
const EXTENSION_IMMUTABLE_OWNER = 7;

/** What keeps `account` from receiving `owner`'s share, in words ("does not exist", "is frozen", …), or null. */
export function payoutAccountProblem(
  account: AccountSnapshot | null,
  expected: { owner: Address; mint: Address; tokenProgram: Address },
): string | null {
  if (account === null) return "does not exist";
  const data = account.data;
  const is2022 = expected.tokenProgram === TOKEN_2022_PROGRAM_ADDRESS;
  if (
    account.owner !== expected.tokenProgram ||
    (is2022 ? data.length < TOKEN_ACCOUNT_SIZE : data.length !== TOKEN_ACCOUNT_SIZE)
  ) {
    return `is not a token account of ${expected.tokenProgram}`;
  }
  const token = readTokenAccount(data);
  if (token === null) return `is not a token account of ${expected.tokenProgram}`;
  if (token.state === "frozen") return "is frozen";
  if (token.state !== "initialized") return "is not initialized";
  if (token.mint !== expected.mint) return `is not an account of mint ${expected.mint}`;
  if (token.owner !== expected.owner) return `is no longer owned by ${expected.owner} (its owner was reassigned)`;
  if (is2022 && data.length > TOKEN_ACCOUNT_SIZE) return extensionProblem(data);
  return null;
}

function extensionProblem(data: Uint8Array): string | null {
  if (data[ACCOUNT_TYPE_OFFSET] !== ACCOUNT_TYPE_ACCOUNT) return "is not a Token-2022 token account";
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let offset = ACCOUNT_TYPE_OFFSET + 1; offset + 4 <= data.length; ) {
    const type = view.getUint16(offset, true);
    const length = view.getUint16(offset + 2, true);
    if (type === 0) break; // padding
    if (offset + 4 + length > data.length) return "has a malformed extension list";
    if (type !== EXTENSION_IMMUTABLE_OWNER)
      return `has the ${token2022ExtensionName(type)} extension, which the program does not pay into`;
    offset += 4 + length;
  }
  return null;
}

/**
 * Why an upto deposit to `payTo` is refused before it is built or verified: no claim could pay `payTo` through an
 * account with this problem (the program pays such a share to its treasury, and the claim rules refuse that), so the
 * buyer's money would only sit in the channel until the keeper refunds it, on the fee payer's rent.
 */
export function unpayablePayToMessage(payTo: Address, payToAccount: Address, mint: Address, problem: string): string {
  return (
    `payTo's token account ${payToAccount} for ${mint} ${problem}, so no claim could pay ${payTo}: the seller ` +
    "creates it (e.g. spl-token create-account, or by receiving the token once) before selling with upto"
  );
}

/**
 * The buyer's refund when a Distribute runs from SEALED at `settled` (the watermark after the seal):
 * `deposit − settled`, unless the buyer already withdrew it (`distribute.rs`).
 */
export function refundAtDistribute(channel: Pick<Channel, "deposit" | "payerWithdrawnAt">, settled: bigint): bigint {
  return channel.payerWithdrawnAt === 0n && channel.deposit > settled ? channel.deposit - settled : 0n;
}

/**
 * Why a sealing Distribute would send the buyer's refund to the program's treasury (its token account cannot receive
 * it), in words naming the account and the amount, or null when the refund is 0 or the account can receive it.
 */
export function refundRedirect(
  channel: Pick<Channel, "deposit" | "payerWithdrawnAt" | "payer" | "mint">,
  settled: bigint,
  buyerAccount: { address: Address; snapshot: AccountSnapshot | null },
  tokenProgram: Address,
): string | null {
  const refund = refundAtDistribute(channel, settled);
  if (refund === 0n) return null;
  const problem = payoutAccountProblem(buyerAccount.snapshot, {
    owner: channel.payer,
    mint: channel.mint,
    tokenProgram,
  });
  return problem
    ? `the buyer's token ` +
        `account ${buyerAccount.address} ${problem}, so Distribute would send the buyer's refund ` +
        `of ${refund} to the program's treasury`
    : null;
}
