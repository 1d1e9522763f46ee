/**
 * Differential test against the reference: the same smart-wallet payments go to the official @x402/svm 2.27 exact
 * facilitator (ExactSvmScheme with enableSmartWalletVerification, its signer over the same local chain and the same
 * fee payer key) and to this facilitator's /verify. Same verdict, or ours stricter with the reason said:
 * an overpayment: the official path accepts a transfer of at least the amount; `exact` here means exactly it.
 * (Also stricter here, by rule and unit-tested in test/unit/rails/exact/smart-wallet/rules.test.ts: nothing may take
 * from or close the payee's token account, where the official path counts only matching transfers.) Real: the local
 * chain with the Swig stand-in, the Worker under workerd, @swig-wallet/kit, the official facilitator.
 */
import { type Address, address, createKeyPairSignerFromBytes, createSolanaRpc, type Instruction } from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { beforeAll, describe, expect, it } from "vitest";
import { fundFromFaucet } from "../../../../../demo/chain-rpc";
import { randomKeypair } from "../../../../../scripts/lib/keypair";
import { CLUSTERS } from "../../../../../src/platform/config/networks";
import { signedTransaction } from "../../../../localnet/helpers";
import { withLocalWorker } from "../../../../support/node/local-worker";
import {
  createSwigInstruction,
  type SwigWallet,
  swigTransferInstructions,
} from "../../../../support/smart-wallets/swig";
import { type SmartWalletTransfer, smartWalletExactClient } from "../../../../support/smart-wallets/x402-client";

const USDC = address(CLUSTERS.devnet.usdcMint);
const PRICE_RAW = 10_000n;

const local = withLocalWorker({ feePayerLamports: 100_000_000_000, vars: { SVC_EXACT_SMART_WALLETS: "true" } });
let official: ExactSvmScheme;
let seller: Address;

beforeAll(async () => {
  const signer = await createKeyPairSignerFromBytes(local.feePayer.secretKey);
  official = new ExactSvmScheme(toFacilitatorSvmSigner(signer, { defaultRpcUrl: local.chain.url }), undefined, {
    enableSmartWalletVerification: true,
  });
  seller = randomKeypair().address as Address;
  await fundFromFaucet(local.chain.url, seller, 1_000_000_000, 1);
}, 480_000);

async function swigBuyer() {
  const owner = await createKeyPairSignerFromBytes(randomKeypair().secretKey);
  await fundFromFaucet(local.chain.url, owner.address, 2_000_000_000);
  const { instruction, wallet } = await createSwigInstruction(owner.address, owner.address);
  const rpc = createSolanaRpc(local.chain.url);
  const tx = await signedTransaction(owner, [instruction], (await rpc.getLatestBlockhash().send()).value);
  await rpc.sendTransaction(tx.wire as never, { encoding: "base64" }).send();
  await fundFromFaucet(local.chain.url, wallet.walletAddress, 0, 1_000_000);
  const [source] = await findAssociatedTokenPda({
    owner: wallet.walletAddress,
    mint: USDC,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const load = async () => {
    const account = await rpc.getAccountInfo(wallet.swig, { encoding: "base64" }).send();
    return wallet.load(Buffer.from(account.value!.data[0], "base64"));
  };
  return { owner, wallet: wallet as SwigWallet, source, load };
}

async function bothVerdicts(pay: (transfer: SmartWalletTransfer) => Promise<Instruction[]>) {
  const requirements = {
    scheme: "exact",
    network: CLUSTERS.devnet.network,
    asset: USDC,
    amount: PRICE_RAW.toString(),
    payTo: seller,
    maxTimeoutSeconds: 60,
    extra: { feePayer: local.feePayer.address },
  } as PaymentRequirements;
  const client = smartWalletExactClient({ rpcUrl: local.chain.url, walletInstructions: pay });
  const { payload } = await client.createPaymentPayload(2, requirements);
  const paymentPayload = { x402Version: 2, accepted: requirements, payload } as PaymentPayload;
  const reference = await official.verify(paymentPayload, requirements);
  const ours = (await (
    await fetch(`${local.api}/verify`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements }),
    })
  ).json()) as { isValid: boolean; invalidReason?: string };
  return { reference: reference.isValid, ours: ours.isValid, reason: ours.invalidReason };
}

describe("smart-wallet verdicts: this facilitator and the official one", () => {
  it("both accept a Swig payment of exactly the amount", async () => {
    const { owner, source, load } = await swigBuyer();
    const verdicts = await bothVerdicts(async (t) => swigTransferInstructions(await load(), owner, { ...t, source }));
    expect(verdicts).toEqual({ reference: true, ours: true, reason: undefined });
  }, 120_000);

  it("both refuse a payment into another account", async () => {
    const { owner, source, load } = await swigBuyer();
    const other = randomKeypair().address as Address;
    await fundFromFaucet(local.chain.url, other, 1_000_000_000, 1);
    const [otherAta] = await findAssociatedTokenPda({ owner: other, mint: USDC, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const verdicts = await bothVerdicts(async (t) =>
      swigTransferInstructions(await load(), owner, { ...t, source, destination: otherAta }),
    );
    expect(verdicts).toEqual({
      reference: false,
      ours: false,
      reason: "invalid_exact_svm_smart_wallet_transfer_mismatch",
    });
  }, 120_000);

  it("ours is stricter on an overpayment: exact means exactly the amount", async () => {
    const { owner, source, load } = await swigBuyer();
    const verdicts = await bothVerdicts(async (t) =>
      swigTransferInstructions(await load(), owner, { ...t, source, amount: t.amount + 1n }),
    );
    expect(verdicts).toEqual({
      reference: true,
      ours: false,
      reason: "invalid_exact_svm_smart_wallet_transfer_mismatch",
    });
  }, 120_000);

  it("both refuse a wallet instruction that names the fee payer", async () => {
    const { owner, source, load } = await swigBuyer();
    const verdicts = await bothVerdicts(async (t) => {
      const [signV2] = await swigTransferInstructions(await load(), owner, { ...t, source });
      return [
        { ...signV2!, accounts: [...signV2!.accounts!, { address: local.feePayer.address as Address, role: 0 }] },
      ];
    });
    expect(verdicts).toEqual({
      reference: false,
      ours: false,
      reason: "invalid_exact_svm_smart_wallet_fee_payer_not_isolated",
    });
  }, 120_000);
});
