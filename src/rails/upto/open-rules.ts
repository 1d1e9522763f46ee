import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { parseComputeBudgetData } from "../../chain/compute-budget";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  MEMO_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from "../../chain/token-programs";
import { accountRoles, type DecodedInstruction, type DecodedTransaction } from "../../chain/wire-transaction";
import {
  BPS_DENOMINATOR,
  type DistributionEntry,
  getOpenInstructionDataCodec,
  type OpenInstructionData,
  PAYMENT_CHANNELS_INSTRUCTION,
  RENT_SYSVAR_ADDRESS,
} from "./program/instructions";
import { findChannelPda, findEventAuthorityPda } from "./program/pda";

/**
 * The fee-payer acceptance policy of the `upto` deposit as pure rules over the decoded open transaction. The official
 * client (`buildOpenPaymentChannelTransaction`) emits exactly [SetComputeUnitLimit, SetComputeUnitPrice, Open, Memo]
 * with the facilitator key as fee payer and, inside Open, as rent payer and payee. Those are the only places the key
 * may appear; nothing else is accepted (deny by default). A failure has the official facilitator's reason for it:
 * `invalid_upto_svm_payload_open_transaction` with a message naming the rule, except where the open is sound but does
 * not match the payload (`…_channel_id`, `…_nonce`, `…_payer_mismatch`), checked last as the official verifier does.
 */
export interface OpenPolicy {
  programId: Address;
  feePayer: Address;
  /** payload.from: the buyer, who signs and funds the deposit. */
  payer: Address;
  authorizedSigner: Address;
  mint: Address;
  /** The ceiling: requirement amount = payload.maxAmount = payload.deposit. */
  deposit: bigint;
  withdrawDelay: number;
  openSlot: bigint;
  salt: bigint;
  channelId: Address;
  splits: readonly DistributionEntry[];
  memo: string | undefined;
  tokenProgramHint: Address | undefined;
  maxComputeUnitLimit: number;
  maxComputeUnitPriceMicroLamports: bigint;
}

/** What the open commits to, once it passed. */
export interface VerifiedOpen {
  data: OpenInstructionData;
  tokenProgram: Address;
  /** Compute unit limit and price the transaction pays for (the fee payer's cost beyond the signatures). */
  computeUnitLimit: number | null;
  computeUnitPriceMicroLamports: bigint;
}

export const OPEN_TRANSACTION_REASON = "invalid_upto_svm_payload_open_transaction";
/** Fee payer + buyer: every other signer would cost the fee payer 5,000 lamports. */
export const OPEN_REQUIRED_SIGNATURES = 2;
/** The official verifier's ceiling for the open's compute limit (its client asks for 90,000). */
export const OPEN_MAX_COMPUTE_UNIT_LIMIT = 400_000;
const OPEN_ACCOUNT_COUNT = 14;
const MAX_MEMO_BYTES = 256;
/** Without a SetComputeUnitLimit the runtime grants 200,000 units per instruction (capped per transaction). */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_TRANSACTION_COMPUTE_UNITS = 1_400_000;

/** The official reasons for an open that does not match its payload (`validateOpenAuthorization`). */
export type OpenMismatchReason =
  | "invalid_upto_svm_payload_channel_id"
  | "invalid_upto_svm_payload_nonce"
  | "invalid_upto_svm_payload_payer_mismatch";

type Outcome = { ok: true; open: VerifiedOpen } | { ok: false; message: string; reason?: OpenMismatchReason };
const fail = (message: string, reason?: OpenMismatchReason): Outcome => ({
  ok: false,
  message,
  ...(reason ? { reason } : {}),
});

export async function checkOpenTransaction(tx: DecodedTransaction, policy: OpenPolicy): Promise<Outcome> {
  if (tx.usesAddressLookupTables)
    return fail("address lookup tables are not accepted in an open transaction; use static account keys only");
  if (tx.feePayer !== policy.feePayer)
    return fail(`the fee payer ${tx.feePayer} is not this facilitator's fee payer ${policy.feePayer}`);
  if (policy.payer === policy.feePayer) return fail("the buyer (payload.from) must not be the facilitator's fee payer");
  if (tx.numRequiredSignatures !== OPEN_REQUIRED_SIGNATURES || tx.numReadonlySignedAccounts !== 0) {
    return fail(
      `the transaction ` +
        `requires ${tx.numRequiredSignatures} signatures; an upto deposit has ` +
        `exactly ${OPEN_REQUIRED_SIGNATURES} writable signers (fee payer and buyer)`,
    );
  }
  if (tx.staticAccounts[1] !== policy.payer)
    return fail(
      `the second signer ${tx.staticAccounts[1]} is not payload.from ${policy.payer}`,
      "invalid_upto_svm_payload_payer_mismatch",
    );

  // Shape: ComputeBudget prefix (limit, then price), Open, at most one Memo. Nothing else.
  const instructions = tx.instructions;
  let index = 0;
  let limit: number | null = null;
  let price: bigint | null = null;
  while (index < instructions.length && instructions[index]!.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS) {
    const ix = instructions[index]!;
    if (ix.accounts.length !== 0) return fail(`ComputeBudget instruction ${index} lists accounts`);
    const parsed = parseComputeBudgetData(ix.data);
    if (parsed.kind === "setComputeUnitLimit" && limit === null && price === null) limit = parsed.units;
    else if (parsed.kind === "setComputeUnitPrice" && price === null) price = parsed.microLamports;
    else
      return fail(
        `ComputeBudget instruction ${index} is not one SetComputeUnitLimit followed by one SetComputeUnitPrice`,
      );
    index++;
  }
  const maxLimit = Math.min(policy.maxComputeUnitLimit, OPEN_MAX_COMPUTE_UNIT_LIMIT);
  if (limit !== null && limit > maxLimit) return fail(`compute unit limit ${limit} exceeds the maximum ${maxLimit}`);
  if (price !== null && price > policy.maxComputeUnitPriceMicroLamports) {
    return fail(
      `compute unit price ${price} micro-lamports exceeds the maximum ${policy.maxComputeUnitPriceMicroLamports}`,
    );
  }
  const open = instructions[index];
  if (!open || open.programAddress !== policy.programId || open.data[0] !== PAYMENT_CHANNELS_INSTRUCTION.OPEN) {
    return fail(
      `instruction ${index} must be the payment-channels Open ` +
        `(program ${policy.programId}) after the ComputeBudget prefix`,
    );
  }
  // The fee payer: account 0 (the fee), and inside Open only as rent payer and payee. Nowhere else.
  for (const [i, ix] of instructions.entries()) {
    if (ix.programAddress === policy.feePayer) return fail(`instruction ${i} invokes the fee payer as a program`);
    for (const [slot, account] of ix.accounts.entries()) {
      if (account === policy.feePayer && !(ix === open && (slot === 1 || slot === 2))) {
        return fail(
          `the facilitator fee payer appears in ` +
            `instruction ${i} (account ${slot}); it may only pay the fee and be the channel's rent payer and payee`,
        );
      }
    }
  }
  const rest = instructions.slice(index + 1);
  if (rest.length > 1) return fail(`at most one instruction (a Memo) may follow Open; found ${rest.length}`);
  const memo = rest[0];
  if (
    memo &&
    (memo.programAddress !== MEMO_PROGRAM_ADDRESS || memo.accounts.length !== 0 || memo.data.length > MAX_MEMO_BYTES)
  ) {
    return fail(`the instruction after Open must be a Memo without accounts of at most ${MAX_MEMO_BYTES} bytes`);
  }
  if (policy.memo !== undefined && (!memo || new TextDecoder().decode(memo.data) !== policy.memo)) {
    return fail("extra.memo is set, so the open must carry exactly one Memo with that text");
  }
  if (limit === null && price !== null && price > 0n) {
    const implied = Math.min(
      MAX_TRANSACTION_COMPUTE_UNITS,
      DEFAULT_UNITS_PER_INSTRUCTION * (instructions.length - index),
    );
    if (implied > maxLimit)
      return fail(
        `a compute unit price is set without a SetComputeUnitLimit; the implied ` +
          `limit ${implied} exceeds the maximum ${maxLimit}`,
      );
  }

  return checkOpenInstruction(tx, open, policy, limit, price ?? 0n);
}

async function checkOpenInstruction(
  tx: DecodedTransaction,
  open: DecodedInstruction,
  policy: OpenPolicy,
  limit: number | null,
  price: bigint,
): Promise<Outcome> {
  if (open.accounts.length !== OPEN_ACCOUNT_COUNT)
    return fail(`Open must have exactly ${OPEN_ACCOUNT_COUNT} accounts; it has ${open.accounts.length}`);
  const data = getOpenInstructionDataCodec().safeDecode(open.data);
  if (!data) return fail("the Open instruction data does not decode");
  const [
    payer,
    rentPayer,
    payee,
    mint,
    authorizedSigner,
    channel,
    payerAta,
    channelAta,
    tokenProgram,
    system,
    rent,
    ataProgram,
    eventAuthority,
    self,
  ] = open.accounts as [
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
  ];
  if (payer !== policy.payer)
    return fail(
      `the Open payer ${payer} is not payload.from ${policy.payer}`,
      "invalid_upto_svm_payload_payer_mismatch",
    );
  if (rentPayer !== policy.feePayer || payee !== policy.feePayer)
    return fail("the Open rent payer and payee must both be this facilitator's fee payer");
  if (mint !== policy.mint) return fail(`the Open mint ${mint} is not the requirement's asset ${policy.mint}`);
  if (authorizedSigner !== policy.authorizedSigner)
    return fail(
      `the Open authorized signer ${authorizedSigner} is not extra.receiverAuthorizer ${policy.authorizedSigner}`,
    );
  if (tokenProgram !== TOKEN_PROGRAM_ADDRESS && tokenProgram !== TOKEN_2022_PROGRAM_ADDRESS)
    return fail(`the Open token program ${tokenProgram} is not SPL Token or Token-2022`);
  if (policy.tokenProgramHint !== undefined && tokenProgram !== policy.tokenProgramHint)
    return fail(`the Open token program ${tokenProgram} is not extra.tokenProgram ${policy.tokenProgramHint}`);

  const [[expectedPayerAta], [expectedChannelAta], [expectedEventAuthority], [expectedChannel]] = await Promise.all([
    findAssociatedTokenPda({ owner: payer, mint, tokenProgram }),
    findAssociatedTokenPda({ owner: channel, mint, tokenProgram }),
    findEventAuthorityPda(policy.programId),
    findChannelPda(
      { payer, payee, mint, authorizedSigner, salt: data.salt, openSlot: data.openSlot },
      policy.programId,
    ),
  ]);
  const fixed: [string, Address, Address][] = [
    ["payer token account", payerAta, expectedPayerAta],
    ["channel token account", channelAta, expectedChannelAta],
    ["System program", system, SYSTEM_PROGRAM_ADDRESS],
    ["Rent sysvar", rent, RENT_SYSVAR_ADDRESS],
    ["Associated Token program", ataProgram, ASSOCIATED_TOKEN_PROGRAM_ADDRESS],
    ["event authority", eventAuthority, expectedEventAuthority],
    ["program", self, policy.programId],
    ["channel (derived from the Open's seeds)", channel, expectedChannel],
  ];
  for (const [label, actual, wanted] of fixed)
    if (actual !== wanted) return fail(`the Open ${label} ${actual} is not ${wanted}`);

  // Writable accounts: exactly the Open's writable roles (so no other account of anyone's is put at risk).
  const writable = new Set<Address>([payer, rentPayer, channel, payerAta, channelAta]);
  for (let i = 0; i < tx.staticAccounts.length; i++) {
    const account = tx.staticAccounts[i]!;
    if (accountRoles(tx, i).writable && !writable.has(account))
      return fail(`account ${account} is writable but is none of the Open's writable accounts`);
  }
  for (const slot of [0, 1, 5, 6, 7]) {
    const role = accountRoles(tx, tx.staticAccounts.indexOf(open.accounts[slot]!));
    if (!role.writable || (slot <= 1 && !role.signer))
      return fail(`Open account ${slot} has the wrong signer/writable role`);
  }

  if (data.deposit === 0n || data.deposit !== policy.deposit)
    return fail(`the Open deposit ${data.deposit} is not the authorized ceiling ${policy.deposit}`);
  if (data.gracePeriod !== policy.withdrawDelay)
    return fail(`the Open grace period ${data.gracePeriod} is not extra.withdrawDelay ${policy.withdrawDelay}`);
  if (data.openSlot !== policy.openSlot)
    return fail(`the Open slot ${data.openSlot} is not payload.openSlot ${policy.openSlot}`);
  const splitsMatch =
    data.recipients.length === policy.splits.length &&
    data.recipients.every(
      (entry, i) => entry.recipient === policy.splits[i]!.recipient && entry.bps === policy.splits[i]!.bps,
    );
  if (!splitsMatch)
    return fail(
      `the Open split must pay all ` +
        `(${BPS_DENOMINATOR} bps) of the settled amount to payTo ${policy.splits[0]?.recipient}`,
    );
  // A sound open that is not the payload's: the official facilitator's own reasons.
  if (channel !== policy.channelId)
    return fail(
      `the Open channel ${channel} is not payload.channelId ${policy.channelId}`,
      "invalid_upto_svm_payload_channel_id",
    );
  if (data.salt !== policy.salt)
    return fail(`the Open salt ${data.salt} is not payload.nonce ${policy.salt}`, "invalid_upto_svm_payload_nonce");
  return { ok: true, open: { data, tokenProgram, computeUnitLimit: limit, computeUnitPriceMicroLamports: price } };
}
