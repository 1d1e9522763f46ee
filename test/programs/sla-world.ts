/**
 * A seeded SLA-Escrow world for the stand-in tests: Bank, Config and two Escrows (native SOL and a
 * 6-decimal SPL mint) placed at their PDAs with the ABI layouts, the way the local chain seeds
 * them, plus builders (the facilitator's own, from src/chain/program/sla-escrow) for one payment.
 */
import { type Address, address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { SLA_ESCROW_DEVNET_PROGRAM_ID } from "../../localnet/programs/index";
import {
  type Escrow,
  type EscrowConfig,
  getBankEncoder,
  getEscrowConfigEncoder,
  getEscrowDecoder,
  getEscrowEncoder,
  getPaymentDecoder,
} from "../../src/rails/sla-escrow/program/accounts";
import {
  type FundPaymentInstructionInput,
  getFundPaymentInstruction,
  getFundPaymentV2Instruction,
  getRefundPaymentInstruction,
  getReleasePaymentInstruction,
} from "../../src/rails/sla-escrow/program/instructions";
import { randomPaymentUid } from "../../src/rails/sla-escrow/program/payment-uid";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findEscrowSolStoragePda,
  findPaymentExtPda,
  findPaymentPda,
  NATIVE_SOL_ESCROW_MINT,
} from "../../src/rails/sla-escrow/program/pda";
import {
  ataOf,
  createAta,
  createMint,
  createStandInChain,
  dataOf,
  fundedSigner,
  mintTo,
  placeAccount,
  type TestMint,
  unixTime,
} from "./harness";

export const SLA_PROGRAM_ID = address(SLA_ESCROW_DEVNET_PROGRAM_ID);
const SYSTEM_PROGRAM = address("11111111111111111111111111111111");

export const CONFIG_DEFAULTS: EscrowConfig = {
  closureDelaySeconds: 3_600n,
  refundCooldownSeconds: 600n,
  deliveryCutoffSeconds: 300n,
  updatedAtUnixSeconds: 0n,
};
export const FEE_BPS = 100;
export const ORACLE_FEE_BPS = 50;
export const MIN_FEE_AMOUNT = 10_000n;
export const MIN_PAYMENT_AMOUNT = 1_000n;
export const DEFAULT_TTL_SECONDS = 3_600n;

export interface EscrowSetup {
  kind: "sol" | "spl";
  mint: Address;
  escrow: Address;
  /** SOL: the SOL storage PDA; SPL: the escrow's ATA. */
  funds: Address;
  token?: TestMint;
}

export interface SlaWorld {
  svm: LiteSVM;
  /** Fee payer of every test transaction, and the keeper of payouts (a third party to every payment). */
  keeper: KeyPairSigner;
  /** Bank.authority: the admin, who may release or refund before any outcome. */
  admin: KeyPairSigner;
  oracle: KeyPairSigner;
  /** The oracle's token account for the SPL mint (created: an oracle that takes tips holds one). */
  oracleAta: Address;
  bank: Address;
  config: Address;
  sol: EscrowSetup;
  spl: EscrowSetup;
}

function escrowRecord(mint: Address, funds: Address, overrides: Partial<Escrow> = {}): Escrow {
  return {
    mint,
    escrowTokens: funds,
    openAtUnixSeconds: 0n,
    feeBalance: 0n,
    tokenLiquidity: 0n,
    minPaymentAmount: MIN_PAYMENT_AMOUNT,
    maxPaymentAmount: 0n,
    minFeeAmount: MIN_FEE_AMOUNT,
    feeBps: FEE_BPS,
    oracleFeeBps: ORACLE_FEE_BPS,
    paused: false,
    ...overrides,
  };
}

export function placeEscrow(w: SlaWorld, setup: EscrowSetup, overrides: Partial<Escrow> = {}): void {
  placeAccount(
    w.svm,
    setup.escrow,
    SLA_PROGRAM_ID,
    getEscrowEncoder().encode(escrowRecord(setup.mint, setup.funds, overrides)),
  );
}

export interface SlaWorldOptions {
  /** Leave the SOL storage unseeded (the first payment must then fund its rent reserve). */
  freshSolStorage?: boolean;
  config?: Partial<EscrowConfig>;
}

export async function newSlaWorld(options: SlaWorldOptions = {}): Promise<SlaWorld> {
  const svm = createStandInChain();
  const keeper = await fundedSigner(svm);
  const oracle = await fundedSigner(svm, 1n);
  const admin = await fundedSigner(svm, 1n);
  const [bank] = await findBankPda(SLA_PROGRAM_ID);
  const [config] = await findEscrowConfigPda(SLA_PROGRAM_ID);
  placeAccount(
    svm,
    bank,
    SLA_PROGRAM_ID,
    getBankEncoder().encode({ authority: admin.address, openAtUnixSeconds: 0n, feeBps: 0 }),
  );
  placeAccount(svm, config, SLA_PROGRAM_ID, getEscrowConfigEncoder().encode({ ...CONFIG_DEFAULTS, ...options.config }));

  const [solEscrow] = await findEscrowPda(SLA_PROGRAM_ID, NATIVE_SOL_ESCROW_MINT, bank);
  const [solStorage] = await findEscrowSolStoragePda(SLA_PROGRAM_ID, NATIVE_SOL_ESCROW_MINT, bank, solEscrow);
  if (!options.freshSolStorage) placeAccount(svm, solStorage, SYSTEM_PROGRAM, new Uint8Array(0));

  const token = await createMint(svm, keeper, 6);
  const [splEscrow] = await findEscrowPda(SLA_PROGRAM_ID, token.mint, bank);
  const escrowAta = await createAta(svm, token, splEscrow);

  const oracleAta = await createAta(svm, token, oracle.address);

  const w: SlaWorld = {
    svm,
    keeper,
    admin,
    oracle,
    oracleAta,
    bank,
    config,
    sol: { kind: "sol", mint: NATIVE_SOL_ESCROW_MINT, escrow: solEscrow, funds: solStorage },
    spl: { kind: "spl", mint: token.mint, escrow: splEscrow, funds: escrowAta, token },
  };
  placeEscrow(w, w.sol);
  placeEscrow(w, w.spl);
  return w;
}

export function readEscrow(w: SlaWorld, setup: EscrowSetup): Escrow {
  return getEscrowDecoder().decode(dataOf(w.svm, setup.escrow));
}

export interface PaymentSetup {
  escrow: EscrowSetup;
  uid: Uint8Array;
  payment: Address;
  paymentExt: Address;
  buyer: KeyPairSigner;
  seller: KeyPairSigner;
  amount: bigint;
  ttlSeconds: bigint;
  /** SPL only. */
  buyerAta?: Address;
  sellerAta?: Address;
}

export interface PaymentOptions {
  amount?: bigint;
  ttlSeconds?: bigint;
  /** Do not create the seller's token account (SPL). */
  noSellerAta?: boolean;
}

/** A buyer (with funds), a seller and a fresh uid; nothing on chain about the payment yet. */
export async function newPayment(
  w: SlaWorld,
  escrow: EscrowSetup,
  options: PaymentOptions = {},
): Promise<PaymentSetup> {
  const amount = options.amount ?? (escrow.kind === "sol" ? 1_000_000_000n : 5_000_000n);
  const buyer = await fundedSigner(w.svm, 10n);
  const seller = await fundedSigner(w.svm, 1n);
  const uid = randomPaymentUid().bytes;
  const [payment] = await findPaymentPda(SLA_PROGRAM_ID, uid, w.bank);
  const [paymentExt] = await findPaymentExtPda(SLA_PROGRAM_ID, uid, w.bank);
  const p: PaymentSetup = {
    escrow,
    uid,
    payment,
    paymentExt,
    buyer,
    seller,
    amount,
    ttlSeconds: options.ttlSeconds ?? DEFAULT_TTL_SECONDS,
  };
  if (escrow.token) {
    p.buyerAta = await createAta(w.svm, escrow.token, buyer.address);
    await mintTo(w.svm, escrow.token, p.buyerAta, 100n * amount);
    p.sellerAta = options.noSellerAta
      ? await ataOf(escrow.token, seller.address)
      : await createAta(w.svm, escrow.token, seller.address);
  }
  return p;
}

export const SLA_HASH = new Uint8Array(32).fill(0x5a);
export const DELIVERY_HASH = new Uint8Array(32).fill(0xd1);
export const RESOLUTION_HASH = new Uint8Array(32).fill(0x7e);

function fundInput(w: SlaWorld, p: PaymentSetup): FundPaymentInstructionInput {
  const common = {
    programId: SLA_PROGRAM_ID,
    buyer: p.buyer,
    bank: w.bank,
    config: w.config,
    escrow: p.escrow.escrow,
    payment: p.payment,
    seller: p.seller.address,
    oracleAuthority: w.oracle.address,
    paymentUid: p.uid,
    slaHash: SLA_HASH,
    amount: p.amount,
    ttlSeconds: p.ttlSeconds,
  };
  if (p.escrow.kind === "sol") return { ...common, kind: "sol", solStorage: p.escrow.funds };
  return {
    ...common,
    kind: "spl",
    mint: p.escrow.mint,
    escrowAta: p.escrow.funds,
    buyerAta: p.buyerAta!,
    tokenProgram: p.escrow.token!.tokenProgram,
  };
}

export function fundIx(w: SlaWorld, p: PaymentSetup) {
  return getFundPaymentInstruction(fundInput(w, p));
}

export interface V2Options {
  closureDelayOverrideSeconds?: bigint;
  refundCooldownOverrideSeconds?: bigint;
  deliveryCutoffOverrideSeconds?: bigint;
  arbitrationWindowSeconds?: bigint;
  minOracleTip?: bigint;
}

export function fundV2Ix(w: SlaWorld, p: PaymentSetup, v2: V2Options = {}) {
  return getFundPaymentV2Instruction({
    ...fundInput(w, p),
    paymentExt: p.paymentExt,
    closureDelayOverrideSeconds: v2.closureDelayOverrideSeconds ?? 0n,
    refundCooldownOverrideSeconds: v2.refundCooldownOverrideSeconds ?? 0n,
    deliveryCutoffOverrideSeconds: v2.deliveryCutoffOverrideSeconds ?? 0n,
    arbitrationWindowSeconds: v2.arbitrationWindowSeconds ?? 86_400n,
    minOracleTip: v2.minOracleTip ?? 0n,
  });
}

export interface PayoutOverrides {
  /** Another recipient (SOL: wallet; SPL: token account) in place of the payment's. */
  recipient?: Address;
  /** Force the oracle tip accounts on or off (default: due when oracle_fee_bps > 0 and a verdict exists). */
  tip?: boolean;
  /** Force the PaymentExt tail on or off (default: the payment is extended, state 10). */
  extended?: boolean;
  /** Who calls (default: the keeper, a third party). */
  caller?: KeyPairSigner;
}

/**
 * Release (to the seller) or refund (to the buyer) with the ABI's account list, tails chosen from the Payment on chain.
 */
export function payoutIx(w: SlaWorld, p: PaymentSetup, kind: "release" | "refund", overrides: PayoutOverrides = {}) {
  const onChain = readPayment(w, p);
  const tip = overrides.tip ?? (onChain.oracleFeeBps > 0 && onChain.resolutionState !== 0);
  const extended = overrides.extended ?? onChain.state === 10;
  const common = {
    programId: SLA_PROGRAM_ID,
    caller: overrides.caller ?? w.keeper,
    bank: w.bank,
    config: w.config,
    escrow: p.escrow.escrow,
    payment: p.payment,
    extended: extended ? { paymentExt: p.paymentExt, buyer: p.buyer.address } : undefined,
  };
  if (p.escrow.kind === "sol") {
    const oracleTip = tip ? { oracle: w.oracle.address } : undefined;
    if (kind === "release") {
      return getReleasePaymentInstruction({
        ...common,
        kind: "sol",
        solStorage: p.escrow.funds,
        seller: overrides.recipient ?? p.seller.address,
        oracleTip,
      });
    }
    return getRefundPaymentInstruction({
      ...common,
      kind: "sol",
      solStorage: p.escrow.funds,
      buyer: overrides.recipient ?? p.buyer.address,
      oracleTip,
    });
  }
  const spl = {
    ...common,
    kind: "spl" as const,
    mint: p.escrow.mint,
    escrowAta: p.escrow.funds,
    tokenProgram: p.escrow.token!.tokenProgram,
    oracleTip: tip ? { oracle: w.oracle.address, oracleAta: w.oracleAta } : undefined,
  };
  if (kind === "release")
    return getReleasePaymentInstruction({
      ...spl,
      sellerAta: overrides.recipient ?? p.sellerAta!,
      seller: p.seller.address,
    });
  return getRefundPaymentInstruction({ ...spl, buyerAta: overrides.recipient ?? p.buyerAta! });
}

/** The accounts every party instruction names after its signer. */
export function paymentAccounts(w: SlaWorld, p: PaymentSetup) {
  return { programId: SLA_PROGRAM_ID, bank: w.bank, config: w.config, escrow: p.escrow.escrow, payment: p.payment };
}

export function readPayment(w: SlaWorld, p: PaymentSetup) {
  return getPaymentDecoder().decode(dataOf(w.svm, p.payment));
}

export function now(w: SlaWorld): bigint {
  return unixTime(w.svm);
}

export { generateKeyPairSigner };
