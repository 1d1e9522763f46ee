/**
 * The official @x402/svm 2.27 payment-channels helpers (the Codama-generated codecs and the builders
 * its upto client, server and facilitator call). The package does not export them under a subpath:
 * they live in one internal chunk that `@x402/svm/upto/*` import. This loads that same module file
 * (found by the functions it exports, since chunk names are content hashes), so the tests compare
 * against the code the official roles actually run, not against a copy.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Address, Instruction, MessagePartialSigner, TransactionSigner } from "@solana/kit";

const DIST = fileURLToPath(new URL("../../node_modules/@x402/svm/dist/esm/", import.meta.url));

export interface OfficialPaymentChannels {
  encodeVoucherMessageBytes(args: { channelId: string; cumulativeAmount: bigint; expiresAt: bigint }): Uint8Array;
  signVoucher(
    receiverAuthorizer: MessagePartialSigner,
    voucher: { channelId: string; cumulativeAmount: bigint; expiresAt: bigint },
  ): Promise<string>;
  PAYMENT_CHANNELS_PROGRAM_ID: string;
  OPEN_SLOT_WINDOW: bigint;
  DEFAULT_GRACE_PERIOD_SECONDS: number;
  buildSettleAndSealInstructions(args: {
    channelId: string;
    payeeSigner: TransactionSigner;
    voucher?: { cumulativeAmount: bigint; expiresAt: bigint; authorizedSigner: string; signatureBase58: string };
  }): Instruction[];
  buildDistributeInstruction(args: {
    channelId: string;
    mint: string;
    network: string;
    payee: string;
    payer: string;
    rentPayer: string;
    splits: { recipient: string; bps: number }[];
    tokenProgram: string;
  }): Promise<Instruction>;
  buildReclaimInstruction(args: { channelId: string; rentPayer: string }): Instruction;
  findPaymentChannelPda(args: {
    payer: string;
    payee: string;
    mint: string;
    authorizedSigner: string;
    salt: bigint;
    openSlot: bigint;
  }): Promise<Address>;
  buildOpenPaymentChannelTransaction(args: {
    payer: TransactionSigner;
    payee: string;
    mint: string;
    authorizedSigner: string;
    feePayer: string;
    tokenProgram: string;
    salt?: bigint;
    openSlot: bigint;
    gracePeriod: number;
    deposit: bigint;
    recipients?: { recipient: string; bps: number }[];
    blockhash: { blockhash: string; lastValidBlockHeight: bigint };
    memo?: string;
  }): Promise<{ channelId: string; deposit: bigint; openSlot: bigint; salt: bigint; transaction: string }>;
}

let loaded: Promise<OfficialPaymentChannels> | undefined;

export function loadOfficialPaymentChannels(): Promise<OfficialPaymentChannels> {
  loaded ??= (async () => {
    const chunk = readdirSync(DIST).find(
      (name) =>
        name.endsWith(".mjs") && readFileSync(join(DIST, name), "utf8").includes("buildOpenPaymentChannelTransaction,"),
    );
    if (chunk === undefined) throw new Error("@x402/svm payment-channels module not found (package layout changed?)");
    return (await import(pathToFileURL(join(DIST, chunk)).href)) as OfficialPaymentChannels;
  })();
  return loaded;
}
