import type { Address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { type AccountSnapshot, fetchAccounts } from "../../chain/accounts";
import { ledgerKeyOf } from "../../chain/ledger-key";
import { verifyAllSignatures, verifyNonFeePayerSignatures } from "../../chain/signatures";
import { simulateSignedPayment } from "../../chain/simulate";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../chain/token-programs";
import type { PaymentFunds } from "../../chain/transaction-rejection";
import { type DecodedTransaction, decodeWireTransaction } from "../../chain/wire-transaction";
import type { Config } from "../../platform/config/load-config";
import { explainChainRefusal } from "../../settlement/already-settled";
import {
  type AcceptedRequirements,
  type PaymentRejection,
  type Refusal,
  rejection,
  selfPaymentRefusal,
} from "../../x402/payment-verdict";
import type { VerifySettleBody } from "../../x402/schemas";
import { ESCROW_FUND_COMPUTE_UNIT_LIMIT } from "./build-payment";
import { checkEscrowTerms } from "./escrow-terms";
import { getFundPaymentInstruction } from "./program/instructions";
import { findEscrowSolStoragePda, findPaymentPda } from "./program/pda";
import { countSponsoredFundingFailures, SPONSORED_FAILURE_WINDOW_MS } from "./store/sponsored-funding-failures";
import { checkEscrowFundingTransaction } from "./verify-rules";

/** A funding transaction that passed every rule; settle sends exactly these bytes (co-signed when sponsored). */
export interface VerifiedEscrowPayment {
  ok: true;
  accepted: AcceptedRequirements;
  tx: DecodedTransaction;
  messageHash: string;
  payer: Address;
  merchantWallet: Address;
  sponsored: boolean;
  paymentPda: Address;
}

/** Size of a plain SPL Token / Token-2022 mint account (docs/facilitator-spec.md §4.2 rule 5). */
const PLAIN_MINT_ACCOUNT_SIZE = 82;

/**
 * Verifies an `sla-escrow` payment (docs/facilitator-spec.md §2.1, docs/sla-escrow-abi.md "Verification"): the line's
 * terms, the transaction's shape, the FundPayment's fields and accounts against what our builder would produce,
 * signatures, then one batched chain read, and (verify only) a simulation in parallel; the ledger is read only when the
 * chain refuses (explainChainRefusal), and for a sponsored funding, in parallel too, to count its payer's failed
 * sponsored fundings (sponsorshipRefusal).
 */
export async function verifyEscrowPayment(
  config: Config,
  body: VerifySettleBody,
  accepted: AcceptedRequirements,
  options: { simulate: boolean; db?: D1Database },
): Promise<VerifiedEscrowPayment | PaymentRejection> {
  const { requirements, amount } = accepted;
  const checked = await checkEscrowTerms(config, requirements, amount);
  if (!checked.ok) return rejection(checked.reason, checked.message);
  const { terms } = checked;
  const { programId, bank, configAddress, escrow } = terms.facts;

  const decoded = decodeWireTransaction(body.paymentPayload.payload.transaction);
  if (!decoded.ok) return rejection("invalid_sla_escrow_payload_transaction_could_not_be_decoded", decoded.message);
  const tx = decoded.tx;
  const shape = checkEscrowFundingTransaction(tx, {
    programId,
    facilitator: config.feePayer.address,
    sponsorshipAllowed: config.slaEscrow.allowFacilitatorFeeSponsorship,
    maxComputeUnitLimit: Math.min(ESCROW_FUND_COMPUTE_UNIT_LIMIT, config.compute.maxUnitLimit),
    maxComputeUnitPriceMicroLamports: config.compute.maxUnitPriceMicroLamports,
  });
  if (!shape.ok) return rejection(shape.reason, shape.message);
  const { data, buyer, sponsored, instruction } = shape.funding;
  const payer = buyer;

  const mismatch = fundingFieldMismatch(data, {
    seller: terms.seller,
    mint: requirements.asset as Address,
    amount,
    ttlSeconds: terms.ttlSeconds,
    oracles: terms.oracleAuthorities,
  });
  if (mismatch) return rejection(mismatch.reason, mismatch.message, { payer });
  // The seller's own wallet funding its escrow: refused as on every rail, before anything is read or signed.
  const self = selfPaymentRefusal(payer, terms.seller);
  if (self) return self;

  // The FundPayment's accounts must be exactly the ones our builder derives (token program: Token or Token-2022).
  const [payment] = await findPaymentPda(programId, data.paymentUid, bank);
  const common = { programId, bank, config: configAddress, escrow, payment, buyer, ...data };
  let expected: readonly Address[];
  let tokenProgram: Address | null = null;
  if (terms.kind === "sol") {
    const [solStorage] = await findEscrowSolStoragePda(programId, data.mint, bank, escrow);
    expected = accountsOf(getFundPaymentInstruction({ ...common, kind: "sol", solStorage }));
  } else {
    tokenProgram = instruction.accounts[8] ?? null;
    if (tokenProgram !== TOKEN_PROGRAM_ADDRESS && tokenProgram !== TOKEN_2022_PROGRAM_ADDRESS) {
      return rejection(
        "invalid_sla_escrow_payload_accounts",
        "The FundPayment's token program must be SPL Token or Token-2022",
        { payer },
      );
    }
    const [[escrowAta], [buyerAta]] = await Promise.all([
      findAssociatedTokenPda({ owner: escrow, mint: data.mint, tokenProgram }),
      findAssociatedTokenPda({ owner: buyer, mint: data.mint, tokenProgram }),
    ]);
    expected = accountsOf(
      getFundPaymentInstruction({ ...common, kind: "spl", mint: data.mint, escrowAta, buyerAta, tokenProgram }),
    );
  }
  if (expected.length !== instruction.accounts.length || expected.some((key, i) => instruction.accounts[i] !== key)) {
    return rejection(
      "invalid_sla_escrow_payload_accounts",
      `The FundPayment's accounts are not the ` +
        `escrow ${escrow}, bank ${bank}, payment ${payment} and token accounts this payment requires`,
      { payer },
    );
  }

  const signatures = sponsored ? await verifyNonFeePayerSignatures(tx) : await verifyAllSignatures(tx);
  if (!signatures.ok) {
    return rejection(
      signatures.missing
        ? "invalid_sla_escrow_payload_missing_signature"
        : "invalid_sla_escrow_payload_signature_invalid",
      signatures.missing
        ? `The transaction is missing the signature of ${signatures.signer}`
        : `The signature of ${signatures.signer} does not verify`,
      { payer },
    );
  }

  const messageHash = await ledgerKeyOf(tx.messageBytes);
  const [accounts, simulation, capped] = await Promise.all([
    tokenProgram ? fetchAccounts(config, [data.mint]) : Promise.resolve(new Map<Address, AccountSnapshot | null>()),
    options.simulate
      ? simulateFunding(config, tx, sponsored, terms.kind === "sol" ? "sol" : "token")
      : Promise.resolve(null),
    sponsored && options.db ? sponsorshipRefusal(config, options.db, payer) : Promise.resolve(null),
  ]);
  if (capped) return capped;
  if (tokenProgram) {
    const mint = accounts.get(data.mint);
    if (!mint || mint.owner !== tokenProgram || mint.data.length !== PLAIN_MINT_ACCOUNT_SIZE) {
      return rejection(
        "invalid_sla_escrow_payload_mint",
        `Asset ${data.mint} is not a plain (82-byte) mint of token program ${tokenProgram}`,
        { payer },
      );
    }
  }
  if (simulation && !simulation.ok) return explainChainRefusal(options.db, messageHash, { ...simulation, payer });
  return { ok: true, accepted, tx, messageHash, payer, merchantWallet: terms.seller, sponsored, paymentPda: payment };
}

function accountsOf(instruction: { accounts?: readonly { address: Address }[] }): Address[] {
  return (instruction.accounts ?? []).map((meta) => meta.address);
}

function fundingFieldMismatch(
  data: { seller: Address; mint: Address; amount: bigint; ttlSeconds: bigint; oracleAuthority: Address },
  expected: { seller: Address; mint: Address; amount: bigint; ttlSeconds: bigint; oracles: readonly Address[] },
): Refusal | null {
  if (data.seller !== expected.seller) {
    return {
      reason: "invalid_sla_escrow_payload_seller_mismatch",
      message:
        `FundPayment.seller ${data.seller} is not the line's ` +
        `seller ${expected.seller} (extra.beneficiary / extra.merchantWallet)`,
    };
  }
  if (data.mint !== expected.mint)
    return {
      reason: "invalid_sla_escrow_payload_mint_mismatch",
      message: `FundPayment.mint ${data.mint} is not the asset ${expected.mint}`,
    };
  if (data.amount !== expected.amount) {
    return {
      reason: "invalid_sla_escrow_payload_amount_mismatch",
      message: `FundPayment.amount ${data.amount} is not the required amount ${expected.amount}`,
    };
  }
  if (data.ttlSeconds !== expected.ttlSeconds) {
    return {
      reason: "invalid_sla_escrow_payload_ttl_mismatch",
      message: `FundPayment.ttl_seconds ${data.ttlSeconds} must equal maxTimeoutSeconds ${expected.ttlSeconds}`,
    };
  }
  if (!expected.oracles.includes(data.oracleAuthority)) {
    return {
      reason: "invalid_sla_escrow_payload_oracle",
      message:
        `FundPayment.oracle_authority ${data.oracleAuthority} is not one of the oracle ` +
        `authorities ${expected.oracles.join(", ")}`,
    };
  }
  return null;
}

/**
 * The fee payer pays for a sponsored funding that executes and fails. Every send's preflight already simulates it, so
 * one more simulation at settle would not help: the failure that costs the fee payer comes from the buyer's account
 * changing between the RPC node's preflight and execution, a race the buyer controls. Only a cap bounds that: failed
 * sponsored fundings are counted per payer (settle records them) and sponsorship is refused once the cap is reached.
 */
async function sponsorshipRefusal(config: Config, db: D1Database, payer: Address): Promise<PaymentRejection | null> {
  const cap = config.slaEscrow.sponsoredFailuresPerPayer;
  const failures = await countSponsoredFundingFailures(db, payer, Date.now() - SPONSORED_FAILURE_WINDOW_MS);
  if (failures < cap) return null;
  return rejection(
    "invalid_sla_escrow_payload_sponsorship_refused",
    `${failures} sponsored fundings ` +
      `of ${payer} failed on chain in the last 24 hours ` +
      `(cap ${cap}); this facilitator pays no more network fees for it for now: build the funding without ` +
      `facilitatorPaysTransactionFees and pay the fee as the buyer`,
    { payer },
  );
}

/**
 * Simulates the funding at confirmed commitment without signature checks (the facilitator's slot may be empty).
 * A fee-payer shortfall of a buyer-paid funding is the buyer's, not the facilitator's.
 */
async function simulateFunding(
  config: Config,
  tx: DecodedTransaction,
  sponsored: boolean,
  funds: PaymentFunds,
): Promise<{ ok: true } | PaymentRejection> {
  const refused = await simulateSignedPayment(config, tx, funds);
  if (refused.ok) return refused;
  if (!sponsored && refused.reason === "facilitator_insufficient_funds") {
    return rejection("insufficient_funds", "The buyer cannot pay the network fee of its own funding transaction");
  }
  return refused;
}
