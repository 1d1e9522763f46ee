/**
 * The official x402 upto client (@x402/svm/upto/client) builds its channel-open deposit against the
 * local chain over RPC (mint lookup, blockhash, slot) as against devnet, and the transaction runs for
 * real on the payment-channels stand-in: the facilitator co-signs and sends it, then claims the used
 * amount with the official facilitator's instructions (Ed25519 voucher + settle-and-seal +
 * distribute). Balances are read back over RPC to the unit. Then the official upto FACILITATOR
 * (@x402/svm/upto/facilitator) does the same through its own verify / settle code paths, which read
 * the Channel account with the official decoder and simulate open + seal + distribute.
 */
import {
  type Address,
  address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  signature as toSignature,
} from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { UptoSvmScheme } from "@x402/svm/upto/client";
import { UptoSvmScheme as UptoSvmFacilitatorScheme } from "@x402/svm/upto/facilitator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTERS } from "../../src/platform/config/networks";
import { CHANNEL_STATUS, decodeChannel } from "../../src/rails/upto/program/accounts";
import { loadOfficialPaymentChannels } from "../programs/official-payment-channels";
import { fundedSigner, latestLifetime, signedTransaction, startTestChain, type TestChain } from "./helpers";

const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const USDC = address(CLUSTERS.devnet.usdcMint);

let chain: TestChain;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain.localnet.close();
});

async function usdcBalance(owner: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: USDC, tokenProgram: TOKEN_PROGRAM });
  return BigInt((await chain.rpc.getTokenAccountBalance(ata).send()).value.amount);
}

describe("official upto client on the local chain", () => {
  it("opens a channel with its deposit, and the facilitator claims the used part; the rest goes back", async () => {
    const official = await loadOfficialPaymentChannels();
    const buyer = await generateKeyPairSigner();
    const seller = (await generateKeyPairSigner()).address;
    const authorizer = await generateKeyPairSigner();
    const facilitator = await fundedSigner(chain, 1_000_000_000n);
    await chain.raw("requestTokenAirdrop", [buyer.address, 5_000_000]);
    await chain.raw("requestTokenAirdrop", [seller, 1]); // the payTo ATA exists (else its share goes to the treasury)

    const client = new UptoSvmScheme(buyer as never, { rpcUrl: chain.localnet.url });
    const { payload } = (await client.createPaymentPayload(2, {
      scheme: "upto",
      network: CLUSTERS.devnet.network,
      asset: USDC,
      amount: "2000000",
      payTo: seller,
      maxTimeoutSeconds: 60,
      extra: { feePayer: facilitator.address, receiverAuthorizer: authorizer.address, withdrawDelay: 900 },
    } as never)) as unknown as { payload: { channelId: Address; openTransaction: string; deposit: string } };
    expect(payload.deposit).toBe("2000000");

    // Facilitator: co-sign the buyer-signed open as fee payer / rent payer and send it.
    const decoded = getTransactionDecoder().decode(Buffer.from(payload.openTransaction, "base64"));
    const signed = await partiallySignTransaction([facilitator.keyPair], decoded);
    const sent = await chain.rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64", skipPreflight: true })
      .send();
    const status = await chain.rpc.getSignatureStatuses([toSignature(sent)]).send();
    expect(status.value[0]).toMatchObject({ err: null });

    const info = await chain.rpc.getAccountInfo(payload.channelId, { encoding: "base64" }).send();
    expect(info.value?.owner).toBe("CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX");
    const channel = decodeChannel(Buffer.from(info.value!.data[0], "base64"))!;
    expect(channel).toMatchObject({
      status: CHANNEL_STATUS.OPEN,
      deposit: 2_000_000n,
      payer: buyer.address,
      payee: facilitator.address,
      rentPayer: facilitator.address,
      authorizedSigner: authorizer.address,
      gracePeriod: 900,
    });
    expect(await usdcBalance(buyer.address)).toBe(3_000_000n);

    // The handler used 1,250,000 of the 2,000,000 ceiling: the facilitator claims it.
    const voucher = { channelId: payload.channelId, cumulativeAmount: 1_250_000n, expiresAt: 0n };
    const signatureBase58 = await official.signVoucher(authorizer, voucher);
    const claim = [
      ...official.buildSettleAndSealInstructions({
        channelId: payload.channelId,
        payeeSigner: facilitator,
        voucher: { ...voucher, authorizedSigner: authorizer.address, signatureBase58 },
      }),
      await official.buildDistributeInstruction({
        channelId: payload.channelId,
        mint: USDC,
        network: CLUSTERS.devnet.network,
        payee: facilitator.address,
        payer: buyer.address,
        rentPayer: facilitator.address,
        splits: [{ recipient: seller, bps: 10_000 }],
        tokenProgram: TOKEN_PROGRAM,
      }),
    ];
    const claimTx = await signedTransaction(facilitator, claim, await latestLifetime(chain));
    await chain.rpc.sendTransaction(claimTx.wire as never, { encoding: "base64", skipPreflight: true }).send();
    const claimStatus = await chain.rpc.getSignatureStatuses([toSignature(claimTx.signature)]).send();
    expect(claimStatus.value[0]).toMatchObject({ err: null });

    expect(await usdcBalance(seller)).toBe(1n + 1_250_000n);
    expect(await usdcBalance(buyer.address)).toBe(5_000_000n - 1_250_000n);
  });

  it(
    "the official upto facilitator verifies, deposits and claims on the stand-in (its own channel decoder and " +
      "simulation)",
    async () => {
      const official = await loadOfficialPaymentChannels();
      const buyer = await generateKeyPairSigner();
      const seller = (await generateKeyPairSigner()).address;
      const authorizer = await generateKeyPairSigner();
      const facilitatorKey = await fundedSigner(chain, 1_000_000_000n);
      await chain.raw("requestTokenAirdrop", [buyer.address, 5_000_000]);
      await chain.raw("requestTokenAirdrop", [seller, 1]);
      const facilitator = new UptoSvmFacilitatorScheme(
        toFacilitatorSvmSigner(facilitatorKey as never, { defaultRpcUrl: chain.localnet.url }) as never,
      );

      const requirements = {
        scheme: "upto",
        network: CLUSTERS.devnet.network,
        asset: USDC,
        amount: "2000000",
        payTo: seller,
        maxTimeoutSeconds: 60,
        extra: { feePayer: facilitatorKey.address, receiverAuthorizer: authorizer.address, withdrawDelay: 900 },
      };
      const client = new UptoSvmScheme(buyer as never, { rpcUrl: chain.localnet.url });
      const created = (await client.createPaymentPayload(2, requirements as never)) as unknown as {
        payload: { channelId: string; expiresAt: number };
      };
      const deposit = { x402Version: 2, accepted: requirements, payload: created.payload } as never;

      expect(await facilitator.verify(deposit, requirements as never)).toMatchObject({ isValid: true });
      const deposited = await facilitator.settle(deposit, requirements as never);
      expect(deposited, JSON.stringify(deposited)).toMatchObject({ success: true });
      expect(await usdcBalance(buyer.address)).toBe(3_000_000n);

      const used = 640_001n;
      const voucherSignature = await official.signVoucher(authorizer, {
        channelId: created.payload.channelId,
        cumulativeAmount: used,
        expiresAt: BigInt(created.payload.expiresAt),
      });
      const claimRequirements = { ...requirements, amount: used.toString() };
      const claim = {
        x402Version: 2,
        accepted: requirements,
        payload: { ...created.payload, voucherSignature },
      } as never;
      const claimed = await facilitator.settle(claim, claimRequirements as never);
      expect(claimed, JSON.stringify(claimed)).toMatchObject({ success: true, amount: used.toString() });
      expect(await usdcBalance(seller)).toBe(1n + used);
      expect(await usdcBalance(buyer.address)).toBe(5_000_000n - used);

      const replayed = await facilitator.settle(claim, claimRequirements as never);
      // The official facilitator reads the channel with its own decoder: DISTRIBUTED is not open.
      expect(replayed).toMatchObject({ success: false, errorReason: "invalid_upto_svm_channel_state" });
      expect(await usdcBalance(seller)).toBe(1n + used);
    },
  );
});
