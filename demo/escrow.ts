/**
 * `npm run demo -- --escrow`: the sla-escrow rail end to end against a running `npm start`, every transaction built
 * by the facilitator's HTTP builders and signed only by the party the program names.
 *
 * 1. a seller names its wallet in an sla-escrow line; /payment-required/enrich points it at the Escrow PDA;
 * 2. a buyer builds the funding with /build-sla-escrow-payment-tx, signs it (it pays its own network fee) and the
 *    seller settles it through /settle: the USDC sits in the escrow;
 * 3. the seller submits its delivery (/build-sla-escrow-submit-delivery-tx), the buyer approves it
 *    (/build-sla-escrow-approve-tx);
 * 4. the operator's keeper (POST /escrow-keeper; the Cron Trigger runs the same job) releases the payment:
 *    a verdict exists (the buyer's approval), so the oracle receives its tip and the seller the price minus the tip
 *    and the escrow fee;
 * 5. a second, extended payment (/build-sla-escrow-payment-v2-tx, funded by the buyer directly) is disputed by the
 *    buyer (/build-sla-escrow-dispute-tx) and resolved 70/30 by the adjudicator, the local demo oracle
 *    (/build-sla-escrow-resolve-split-tx): seller, buyer and adjudicator balances show the split.
 */
import {
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { labelledKeypair } from "../scripts/lib/keypair";
import { chainRpc, fundFromFaucet, tokenAccountBalance } from "./chain-rpc";
import { type JsonAnswer, operatorAuthorization, postJson } from "./sweep-step";

const PRICE_RAW = 2_000_000n; // 2 USDC
const TTL_SECONDS = 3_600;

export interface EscrowDemoContext {
  facilitatorApi: string;
  rpcUrl: string;
  network: string;
  usdcMint: string;
  log: (line: string) => void;
}

export async function runEscrowDemo(ctx: EscrowDemoContext): Promise<void> {
  const { facilitatorApi, rpcUrl, log } = ctx;
  const supported = (await (await fetch(`${facilitatorApi}/supported`)).json()) as {
    kinds: { scheme: string; extra: JsonAnswer }[];
  };
  const kind = supported.kinds.find((k) => k.scheme === "sla-escrow");
  if (!kind) throw new Error("the facilitator does not serve the sla-escrow rail (/supported has no sla-escrow kind)");
  const oracle = String(kind.extra.oracleAuthorities[0]);

  const seller = await generateKeyPairSigner();
  const buyer = await generateKeyPairSigner();
  // The seller needs a USDC account to be paid into (1 raw unit from the faucet creates it).
  await fundFromFaucet(rpcUrl, seller.address, 50_000_000, 1);
  await fundFromFaucet(rpcUrl, buyer.address, 50_000_000, PRICE_RAW * 2n);
  log(`seller        ${seller.address}`);
  log(`buyer         ${buyer.address}  (0.05 SOL, 4 USDC from the local faucet)`);

  const enriched = await postJson(`${facilitatorApi}/payment-required/enrich`, {
    x402Version: 2,
    resource: { url: "https://seller.example/escrowed-report" },
    accepts: [
      {
        scheme: "sla-escrow",
        network: ctx.network,
        asset: ctx.usdcMint,
        amount: PRICE_RAW.toString(),
        payTo: seller.address,
        maxTimeoutSeconds: TTL_SECONDS,
      },
    ],
  });
  const line = enriched.accepts[0];
  log(`402 line      payTo ${line.payTo} (the Escrow PDA), seller ${line.extra.merchantWallet}, oracle ${oracle}`);

  const built = await postJson(`${facilitatorApi}/build-sla-escrow-payment-tx`, {
    payer: buyer.address,
    accepted: line,
    slaHash: randomHex(),
    oracleAuthority: oracle,
  });
  const body = built.verifyBodyTemplate;
  body.paymentPayload.payload.transaction = await sign(built.transaction, buyer);
  const settle = await postJson(`${facilitatorApi}/settle`, body);
  if (!settle.success) throw new Error(`settle answered ${JSON.stringify(settle)}`);
  const [escrowAta] = await findAssociatedTokenPda({
    owner: line.payTo,
    mint: ctx.usdcMint as never,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  log(
    `funded        ${settle.transaction}: ${PRICE_RAW} raw USDC held by the escrow (token account ${escrowAta}); payment ${built.paymentPda}`,
  );

  const deliveryHash = randomHex();
  const delivery = await postJson(`${facilitatorApi}/build-sla-escrow-submit-delivery-tx`, {
    seller: seller.address,
    mint: ctx.usdcMint,
    paymentUidHex: built.paymentUidHex,
    deliveryHash,
  });
  log(`delivered     ${await send(rpcUrl, delivery.transaction, seller)} (signed by the seller)`);
  const approval = await postJson(`${facilitatorApi}/build-sla-escrow-approve-tx`, {
    buyer: buyer.address,
    mint: ctx.usdcMint,
    paymentUidHex: built.paymentUidHex,
    deliveryHash,
  });
  log(`approved      ${await send(rpcUrl, approval.transaction, buyer)} (signed by the buyer)`);

  const [sellerAta] = await findAssociatedTokenPda({
    owner: seller.address,
    mint: ctx.usdcMint as never,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const [oracleAta] = await findAssociatedTokenPda({
    owner: oracle as never,
    mint: ctx.usdcMint as never,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const before = (await tokenAccountBalance(rpcUrl, sellerAta)) ?? 0n;
  const oracleBefore = (await tokenAccountBalance(rpcUrl, oracleAta)) ?? 0n;
  const keeper = await postJson(`${facilitatorApi}/escrow-keeper`, {}, operatorAuthorization());
  const released = (keeper.items as JsonAnswer[]).find((item) => item.paymentPda === built.paymentPda);
  if (released?.outcome !== "landed" || released.action !== "release")
    throw new Error(`the keeper did not release the payment: ${JSON.stringify(released ?? keeper)}`);
  const after = (await tokenAccountBalance(rpcUrl, sellerAta)) ?? 0n;
  const tip = ((await tokenAccountBalance(rpcUrl, oracleAta)) ?? 0n) - oracleBefore;
  log(`released      ${released.signature} by the keeper (the facilitator paid the network fee)`);
  log(
    `where it went seller +${after - before}, oracle tip +${tip} raw USDC; escrow fee ${PRICE_RAW - (after - before) - tip} raw stays with the escrow operator`,
  );

  await disputeAndSplit(ctx, seller, buyer);
}

/** Fund (v2) → dispute → the adjudicator splits 70/30. */
async function disputeAndSplit(ctx: EscrowDemoContext, seller: KeyPairSigner, buyer: KeyPairSigner): Promise<void> {
  const { facilitatorApi, rpcUrl, log, usdcMint } = ctx;
  // The local demo oracle is listed in SVC_SLA_ESCROW_ORACLE_AUTHORITIES and adjudicates here (never a real key).
  const adjudicator = await createKeyPairSignerFromBytes(labelledKeypair("x402-facilitator/local/oracle").secretKey);
  await fundFromFaucet(rpcUrl, adjudicator.address, 50_000_000, 1);
  const funding = await postJson(`${facilitatorApi}/build-sla-escrow-payment-v2-tx`, {
    buyer: buyer.address,
    seller: seller.address,
    mint: usdcMint,
    amount: PRICE_RAW.toString(),
    ttlSeconds: String(TTL_SECONDS),
    slaHash: randomHex(),
    oracleAuthority: adjudicator.address,
    closureDelayOverride: "0",
    refundCooldownOverride: "0",
    deliveryCutoffOverride: "0",
    arbitrationWindowSeconds: "86400",
  });
  log(
    `\nfunded (v2)   ${await send(rpcUrl, funding.transaction, buyer)} (signed and paid by the buyer); payment ${funding.paymentPda}`,
  );
  const dispute = await postJson(`${facilitatorApi}/build-sla-escrow-dispute-tx`, {
    buyer: buyer.address,
    mint: usdcMint,
    paymentUidHex: funding.paymentUidHex,
  });
  log(`disputed      ${await send(rpcUrl, dispute.transaction, buyer)} (signed by the buyer)`);

  const ata = async (owner: string) =>
    (
      await findAssociatedTokenPda({
        owner: owner as never,
        mint: usdcMint as never,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
    )[0];
  const parties = {
    seller: await ata(seller.address),
    buyer: await ata(buyer.address),
    adjudicator: await ata(adjudicator.address),
  };
  const balances = async () =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(parties).map(async ([who, account]) => [
          who,
          (await tokenAccountBalance(rpcUrl, account)) ?? 0n,
        ]),
      ),
    ) as Record<keyof typeof parties, bigint>;
  const before = await balances();
  const split = await postJson(`${facilitatorApi}/build-sla-escrow-resolve-split-tx`, {
    adjudicator: adjudicator.address,
    mint: usdcMint,
    paymentUidHex: funding.paymentUidHex,
    sellerBps: 7_000,
    resolutionReason: 1,
    resolutionHash: randomHex(),
    expectedDeliveryHash: "0".repeat(64),
    seller: seller.address,
    buyer: buyer.address,
  });
  log(`split 70/30   ${await send(rpcUrl, split.transaction, adjudicator)} (signed by the adjudicator)`);
  const after = await balances();
  log(
    `where it went seller +${after.seller - before.seller}, buyer +${after.buyer - before.buyer}, adjudicator tip +${after.adjudicator - before.adjudicator} raw USDC (of ${PRICE_RAW})`,
  );
}

async function sign(base64: string, signer: KeyPairSigner): Promise<string> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([signer.keyPair], tx));
}

async function send(rpcUrl: string, base64: string, signer: KeyPairSigner): Promise<string> {
  const signature = await chainRpc<string>(rpcUrl, "sendTransaction", [
    await sign(base64, signer),
    { encoding: "base64", preflightCommitment: "confirmed" },
  ]);
  for (let i = 0; i < 50; i++) {
    const { value } = await chainRpc<{ value: ({ confirmationStatus?: string; err: unknown } | null)[] }>(
      rpcUrl,
      "getSignatureStatuses",
      [[signature]],
    );
    const status = value[0];
    if (status?.err) throw new Error(`${signature} failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") return signature;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${signature} was not confirmed`);
}

function randomHex(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}
