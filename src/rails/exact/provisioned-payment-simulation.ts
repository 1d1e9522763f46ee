import {
  AccountRole,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { rpcCall } from "../../chain/rpc";
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { rejectionForTransactionError } from "../../chain/transaction-rejection";
import { accountRoles, type DecodedTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { type PaymentRejection, rejection } from "../../x402/payment-verdict";
import type { PaymentTransfer } from "./verify-rules";
import { fundsOf } from "./verify-rules";

/**
 * Before the facilitator spends rent on a seller's vault, it simulates the vault creation and the buyer's payment
 * together, in one unsigned transaction (signature checks off, blockhash replaced): a payment that could not land
 * afterwards (a memo that is not UTF-8, a delegate without allowance, missing funds) is refused while nothing has
 * been spent. The payment's own compute-budget instructions are left out, since they size the payment alone.
 */
export async function simulateProvisionedPayment(
  config: Config,
  createInstructions: Instruction[],
  payment: { tx: DecodedTransaction; transfer: PaymentTransfer },
): Promise<{ ok: true } | PaymentRejection> {
  const paymentInstructions: Instruction[] = payment.tx.instructions
    .filter((ix) => ix.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS)
    .map((ix) => ({
      programAddress: ix.programAddress,
      accounts: ix.accounts.map((account) => ({ address: account, role: roleOf(payment.tx, account) })),
      data: ix.data,
    }));
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(config.feePayer.address, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: payment.tx.recentBlockhash as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) => appendTransactionMessageInstructions([...createInstructions, ...paymentInstructions], m),
  );
  const wire = getBase64EncodedWireTransaction(compileTransaction(message));
  const result = await rpcCall<{ value: { err: unknown; logs?: string[] | null } }>(config, "simulateTransaction", [
    wire,
    { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: "confirmed" },
  ]);
  if (result.value.err === null) return { ok: true };
  const refused = rejectionForTransactionError(result.value.err, result.value.logs ?? [], fundsOf(payment.transfer));
  return rejection(
    refused.reason,
    `The payment would not land once the seller's vault exists, so no vault was created for it: ${refused.message}`,
    refused.code ? { code: refused.code } : {},
  );
}

function roleOf(tx: DecodedTransaction, account: string): AccountRole {
  const { signer, writable } = accountRoles(
    tx,
    tx.staticAccounts.indexOf(account as DecodedTransaction["staticAccounts"][number]),
  );
  if (signer) return writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  return writable ? AccountRole.WRITABLE : AccountRole.READONLY;
}
