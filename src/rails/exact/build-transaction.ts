import {
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  createNoopSigner,
  type Instruction,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from "../../chain/compute-budget";
import { MEMO_PROGRAM_ADDRESS } from "../../chain/token-programs";
import { compileUnsignedTransaction } from "../../chain/unsigned-transaction";

/**
 * The unsigned `exact` payment transaction, as a pure function of its inputs (no I/O), in exactly the shape
 * the verifier accepts (docs/universal-settle-abi.md "The exact payment transaction"):
 *
 *   fee payer = facilitator (account 0, signature left empty), buyer = second signer,
 *   [SetComputeUnitLimit, SetComputeUnitPrice, transfer, Memo(random hex nonce)], v0, no lookup tables.
 */

/**
 * Compute unit limits per payment kind. Measured once by simulating the full transaction (both compute-budget
 * instructions, the transfer and a 32-character memo) on litesvm 1.5, the runtime of the local chain:
 * SPL Token 692 CU, Token-2022 2,618 CU, System transfer 737 CU (the Memo alone is 287 CU). litesvm runs the
 * newer builds of these programs; mainnet's SPL Token TransferChecked costs ~6,200 CU and Token-2022 more (it
 * walks the mint's extensions), so the limits keep wide headroom over the cluster figures, not the local ones:
 * - SPL Token 20,000: the official x402 client's limit for the same instruction list, so budgets match.
 * - Token-2022 30,000: extension parsing (metadata, pointers, immutable-owner accounts) costs extra.
 * - native SOL 10,000: a System transfer is ~150 CU; the rest is the Memo.
 * The fee payer pays for the limit only through the priority fee (limit × price), a few lamports at most.
 * Always capped by the deployment's advertised `maxComputeUnitLimit`, which the verifier enforces.
 */
export const EXACT_COMPUTE_UNIT_LIMIT = {
  splToken: 20_000,
  token2022: 30_000,
  nativeSol: 10_000,
} as const;

export type ExactTransfer =
  | {
      kind: "token";
      tokenProgram: Address;
      mint: Address;
      decimals: number;
      /** The buyer's associated token account. */
      source: Address;
      /** ATA(owner = vault PDA, mint, token program). */
      destination: Address;
      amount: bigint;
    }
  | {
      kind: "sol";
      /** The vault's SOL storage PDA. */
      destination: Address;
      amount: bigint;
    };

export interface ExactPaymentTransactionInput {
  feePayer: Address;
  /** The buyer: transfer authority (token) or sender (SOL). */
  payer: Address;
  transfer: ExactTransfer;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
  blockhash: { blockhash: Blockhash; lastValidBlockHeight: bigint };
  /** Memo text; a fresh random nonce makes two identical purchases distinct transactions. */
  memo: string;
}

export interface BuiltExactPaymentTransaction {
  /** Unsigned wire transaction (both signature slots zeroed), base64. */
  transaction: Base64EncodedWireTransaction;
  /** Index of the buyer's signature slot (always 1: the fee payer is account 0). */
  payerSignatureIndex: number;
  /** Signers in signature order: [fee payer, buyer]. */
  signerPubkeys: Address[];
}

export function buildExactPaymentTransaction(input: ExactPaymentTransactionInput): BuiltExactPaymentTransaction {
  const instructions: Instruction[] = [
    getSetComputeUnitLimitInstruction(input.computeUnitLimit),
    getSetComputeUnitPriceInstruction(input.computeUnitPriceMicroLamports),
    transferInstruction(input.payer, input.transfer),
    memoInstruction(input.memo),
  ];
  const { transaction, signerPubkeys } = compileUnsignedTransaction({
    feePayer: input.feePayer,
    blockhash: input.blockhash,
    instructions,
  });
  return {
    transaction,
    payerSignatureIndex: signerPubkeys.indexOf(input.payer),
    signerPubkeys,
  };
}

function transferInstruction(payer: Address, transfer: ExactTransfer): Instruction {
  // A no-op signer marks the buyer as a required signer without holding any key: the buyer signs later.
  const buyer = createNoopSigner(payer);
  if (transfer.kind === "sol") {
    return getTransferSolInstruction({ source: buyer, destination: transfer.destination, amount: transfer.amount });
  }
  return getTransferCheckedInstruction(
    {
      source: transfer.source,
      mint: transfer.mint,
      destination: transfer.destination,
      authority: buyer,
      amount: transfer.amount,
      decimals: transfer.decimals,
    },
    // Plain transfers are the same instruction in Token-2022: only the program address differs.
    { programAddress: transfer.tokenProgram },
  );
}

/** Memo v2 with no signer accounts: it only carries the nonce, so it adds no signature or account rules. */
function memoInstruction(text: string): Instruction {
  return { programAddress: MEMO_PROGRAM_ADDRESS, accounts: [], data: new TextEncoder().encode(text) };
}
