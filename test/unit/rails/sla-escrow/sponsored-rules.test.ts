import {
  AccountRole,
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from "../../../../src/chain/compute-budget";
import { decodeWireTransaction } from "../../../../src/chain/wire-transaction";
import { ESCROW_FUND_COMPUTE_UNIT_LIMIT } from "../../../../src/rails/sla-escrow/build-payment";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../../src/rails/sla-escrow/cluster-defaults";
import { getFundPaymentInstruction } from "../../../../src/rails/sla-escrow/program/instructions";
import { checkEscrowFundingTransaction, type EscrowPolicy } from "../../../../src/rails/sla-escrow/verify-rules";

/**
 * Issue 20 §2: each guard of a sponsored sla-escrow funding (the facilitator pays its fee) has a case that only that
 * guard refuses — delete the guard from verify-rules.ts and its case here fails. The transactions are real ones,
 * compiled by kit and decoded by the same wire decoder /verify and /settle use; only signatures are left empty
 * (the rules do not read them).
 */
const PROGRAM = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
const PRICE_CAP = 50_000n;
const BLOCKHASH = "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k" as Blockhash;

async function keys() {
  const [facilitator, buyer, extra, seller, oracle, a, b, c, d, e, f, g] = await Promise.all(
    Array.from({ length: 12 }, () => generateKeyPairSigner()),
  );
  return {
    facilitator: facilitator!.address,
    buyer: buyer!.address,
    extra: extra!.address,
    seller: seller!.address,
    oracle: oracle!.address,
    accounts: [a, b, c, d, e, f, g].map((k) => k!.address),
  };
}

type Keys = Awaited<ReturnType<typeof keys>>;

function fundPayment(k: Keys): Instruction {
  const [bank, config, escrow, payment, escrowAta, buyerAta, mint] = k.accounts as [
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
    Address,
  ];
  return getFundPaymentInstruction({
    programId: PROGRAM,
    bank,
    config,
    escrow,
    payment,
    kind: "spl",
    buyer: k.buyer,
    seller: k.seller,
    mint,
    escrowAta,
    buyerAta,
    tokenProgram: address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"),
    oracleAuthority: k.oracle,
    paymentUid: new Uint8Array(32).fill(7),
    slaHash: new Uint8Array(32).fill(9),
    amount: 1_000_000n,
    ttlSeconds: 3_600n,
  });
}

/**
 * A sponsored funding (fee payer: the facilitator) with the given ComputeBudget instructions before the FundPayment.
 */
function sponsored(k: Keys, budget: Instruction[]) {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(k.facilitator, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 1_000n }, m),
    (m) => appendTransactionMessageInstructions([...budget, fundPayment(k)], m),
  );
  const decoded = decodeWireTransaction(getBase64EncodedWireTransaction(compileTransaction(message)));
  if (!decoded.ok) throw new Error(decoded.message);
  const policy: EscrowPolicy = {
    programId: PROGRAM,
    facilitator: k.facilitator,
    sponsorshipAllowed: true,
    maxComputeUnitLimit: ESCROW_FUND_COMPUTE_UNIT_LIMIT,
    maxComputeUnitPriceMicroLamports: PRICE_CAP,
  };
  return checkEscrowFundingTransaction(decoded.tx, policy);
}

const limit = (units: number) => getSetComputeUnitLimitInstruction(units);
const price = (microLamports: bigint) => getSetComputeUnitPriceInstruction(microLamports);
const reasonOf = (result: ReturnType<typeof sponsored>) => (result.ok ? "accepted" : result.reason);

describe("sponsored sla-escrow funding: one case per guard", () => {
  it(
    "at the caps exactly, with two signers and the facilitator in no instruction, a sponsored funding " + "passes",
    async () => {
      const k = await keys();
      const result = sponsored(k, [limit(ESCROW_FUND_COMPUTE_UNIT_LIMIT), price(PRICE_CAP)]);
      expect(result).toMatchObject({ ok: true, funding: { sponsored: true, buyer: k.buyer } });
    },
  );

  it("compute-unit limit: one is required", async () => {
    expect(reasonOf(sponsored(await keys(), [price(1n)]))).toBe("invalid_sla_escrow_payload_compute_budget");
  });

  it("compute-unit limit: above the cap is refused", async () => {
    expect(reasonOf(sponsored(await keys(), [limit(ESCROW_FUND_COMPUTE_UNIT_LIMIT + 1), price(1n)]))).toBe(
      "invalid_sla_escrow_payload_compute_budget",
    );
  });

  it("compute-unit price: above the cap is refused", async () => {
    expect(reasonOf(sponsored(await keys(), [limit(ESCROW_FUND_COMPUTE_UNIT_LIMIT), price(PRICE_CAP + 1n)]))).toBe(
      "invalid_sla_escrow_payload_compute_budget",
    );
  });

  it("signers: a third required signer is refused", async () => {
    const k = await keys();
    // The extra signer rides on a ComputeBudget instruction's accounts (the runtime ignores them; the header counts
    // it).
    const withExtraSigner = {
      ...limit(ESCROW_FUND_COMPUTE_UNIT_LIMIT),
      accounts: [{ address: k.extra, role: AccountRole.READONLY_SIGNER }],
    };
    expect(reasonOf(sponsored(k, [withExtraSigner, price(1n)]))).toBe("invalid_sla_escrow_payload_signers");
  });

  it("the facilitator in an instruction's accounts is refused", async () => {
    const k = await keys();
    const namingFacilitator = {
      ...limit(ESCROW_FUND_COMPUTE_UNIT_LIMIT),
      accounts: [{ address: k.facilitator, role: AccountRole.READONLY }],
    };
    expect(reasonOf(sponsored(k, [namingFacilitator, price(1n)]))).toBe(
      "invalid_sla_escrow_payload_fee_payer_in_instruction",
    );
  });
});
