import { type Address, address, createNoopSigner } from "@solana/kit";
import * as v from "valibot";
import { fetchAccounts } from "../../chain/accounts";
import { BLOCKHASH_LIFETIME_SECONDS, getLatestBlockhash } from "../../chain/blockhash";
import { compileUnsignedTransaction } from "../../chain/unsigned-transaction";
import type { Config } from "../../platform/config/load-config";
import { NATIVE_SOL_ALLOWLIST_ADDRESS } from "../../platform/config/networks";
import { badRequest, FacilitatorError } from "../../platform/errors/catalogue";
import { Base58Address } from "../../x402/schemas";
import { PaymentUidHex } from "./build-party-tx";
import { decodePayment, PAYMENT_STATE } from "./program/accounts";
import { parsePaymentUidHex } from "./program/payment-uid";
import { decidePayout } from "./program/payout-decision";
import { buildPayoutInstruction } from "./program/payout-instructions";
import { findBankPda, findPaymentPda } from "./program/pda";

const CLOCK_SYSVAR = address("SysvarC1ock11111111111111111111111111111111");

/**
 * `POST /build-sla-escrow-settle-tx` (pr402's "Settle now" helper for when no keeper runs): the ReleasePayment or
 * RefundPayment the program allows right now, decided by the keeper's own rule (decidePayout) on the chain clock.
 *
 * pr402 returns that transaction already signed by its facilitator as fee payer, to anyone who asks. We do not:
 * a stranger could collect such transactions over several blockhashes and land them after the first one settled,
 * each failing one costing the facilitator its fee. Here the fee payer and caller is `feePayer`, by default the
 * party the payout pays (the seller on release, the buyer on refund), and the transaction is returned unsigned.
 */
export const BuildEscrowSettleRequestSchema = v.object({
  paymentUidHex: PaymentUidHex,
  /** Who signs and pays the network fee; defaults to the payout's recipient. */
  feePayer: v.optional(Base58Address),
});

export interface EscrowSettleBuildResponse {
  x402Version: 2;
  action: "release_payment" | "refund_payment";
  unsignedTransaction: string;
  transaction: string;
  paymentUidHex: string;
  paymentPda: Address;
  programId: Address;
  feePayer: Address;
  payerSignatureIndex: number;
  signerPubkeys: Address[];
  recentBlockhash: string;
  recentBlockhashExpiresAt: number;
  notes: string[];
}

export async function buildEscrowSettle(
  config: Config,
  request: v.InferOutput<typeof BuildEscrowSettleRequestSchema>,
): Promise<EscrowSettleBuildResponse> {
  const programId = config.programs.slaEscrow;
  const uidHex = request.paymentUidHex.toLowerCase();
  const uid = parsePaymentUidHex(uidHex)!;
  const [bank] = await findBankPda(programId);
  const [paymentPda] = await findPaymentPda(programId, uid, bank);
  const [accounts, blockhash] = await Promise.all([
    fetchAccounts(config, [paymentPda, CLOCK_SYSVAR]),
    getLatestBlockhash(config),
  ]);
  const account = accounts.get(paymentPda);
  const payment = account && account.owner === programId ? decodePayment(account.data) : null;
  if (payment === null) throw badRequest(`no SLA-Escrow payment ${uidHex} (expected at ${paymentPda})`);
  const clock = accounts.get(CLOCK_SYSVAR);
  const chainNow =
    clock && clock.data.length >= 40
      ? new DataView(clock.data.buffer, clock.data.byteOffset).getBigInt64(32, true)
      : BigInt(Math.floor(Date.now() / 1000));

  if (payment.state === PAYMENT_STATE.RELEASED || payment.state === PAYMENT_STATE.REFUNDED) {
    throw badRequest(
      `payment ${uidHex} is already settled ` +
        `(${payment.state === PAYMENT_STATE.RELEASED ? "released" : "refunded"}); the keeper closes it`,
    );
  }
  const decision = decidePayout(payment, chainNow);
  if (decision.kind === "closed" || decision.kind === "close") throw badRequest(`payment ${uidHex} is already settled`);
  if (decision.kind === "wait") {
    const until = decision.untilUnixSeconds === null ? "" : ` (until unix time ${decision.untilUnixSeconds})`;
    throw badRequest(`payment ${uidHex} is not yet eligible for permissionless settlement: ${decision.why}${until}`);
  }

  const recipient = decision.kind === "release" ? payment.seller : payment.buyer;
  const caller = request.feePayer ?? recipient;
  let tokenProgram: Address | null = null;
  if (payment.mint !== NATIVE_SOL_ALLOWLIST_ADDRESS) {
    const mintAccount = (await fetchAccounts(config, [payment.mint])).get(payment.mint);
    if (!mintAccount)
      throw new FacilitatorError("NOT_IMPLEMENTED", `mint ${payment.mint} of payment ${uidHex} is not on this cluster`);
    tokenProgram = mintAccount.owner;
  }
  // The keeper's own payout builder (docs/sla-escrow-abi.md, ABI §5.3 / §5.4): exactly the accounts the program wants,
  // tips and PaymentExt included.
  const { instruction } = await buildPayoutInstruction(decision.kind, {
    programId,
    caller: createNoopSigner(caller),
    paymentAddress: paymentPda,
    payment,
    tokenProgram,
  });
  const built = compileUnsignedTransaction({ feePayer: caller, blockhash, instructions: [instruction] });
  const action = decision.kind === "release" ? "release_payment" : "refund_payment";
  return {
    x402Version: 2,
    action,
    unsignedTransaction: built.transaction,
    transaction: built.transaction,
    paymentUidHex: uidHex,
    paymentPda,
    programId,
    feePayer: caller,
    payerSignatureIndex: built.signerPubkeys.indexOf(caller),
    signerPubkeys: built.signerPubkeys,
    recentBlockhash: blockhash.blockhash,
    recentBlockhashExpiresAt: Math.floor(Date.now() / 1000) + BLOCKHASH_LIFETIME_SECONDS,
    notes: [
      `${
        decision.kind === "release"
          ? "ReleasePayment pays the " + "seller"
          : "RefundPayment returns the escrow to the buyer"
      } ${recipient}.`,
      `Sign ` +
        `as ${caller} (the fee payer) and send it yourself; this facilitator does not sign or pay for it. The keeper ` +
        `does the same on its own schedule.`,
    ],
  };
}
