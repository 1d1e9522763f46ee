/**
 * The demo's last step: the operator sweeps the seller's vault, and the seller's own USDC account is paid.
 * (The demo seller activated its own vault first: sovereign, 90 bps, nothing withheld for setup costs; and it created
 * its own USDC account, which a sweep pays into but never creates.)
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { chainRpc, signatureStatus } from "./chain-rpc";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A JSON answer of the facilitator, read field by field as the demo tells it (each route's schema says its shape). */
// biome-ignore lint/suspicious/noExplicitAny: the demo narrates answers it does not type; one alias marks them all
export type JsonAnswer = Record<string, any>;

/** POST /sweep with the operator token (SVC_OPERATOR_TOKEN from the environment or npm start's .dev.vars). */
export async function sweepSeller(facilitatorApi: string, sellerWallet: string): Promise<JsonAnswer> {
  const report = await postJson(`${facilitatorApi}/sweep`, {}, operatorAuthorization());
  const item = (report.items as JsonAnswer[]).find((i) => i.wallet === sellerWallet);
  if (!item) throw new Error(`the sweep did not include the demo seller (scanned ${report.scanned})`);
  if (item.status !== "ok") throw new Error(`the seller's sweep answered ${item.status}/${item.action}: ${item.error}`);
  return item;
}

/** The operator's bearer header (SVC_OPERATOR_TOKEN from the environment or npm start's .dev.vars). */
export function operatorAuthorization(): Record<string, string> {
  // SVC_SWEEP_CRON_TOKEN: the token's former name, which a .dev.vars written before the rename still holds.
  const token =
    process.env.SVC_OPERATOR_TOKEN ??
    process.env.SVC_SWEEP_CRON_TOKEN ??
    devVar("SVC_OPERATOR_TOKEN") ??
    devVar("SVC_SWEEP_CRON_TOKEN");
  if (!token)
    throw new Error("no SVC_OPERATOR_TOKEN in the environment or .dev.vars: start the facilitator with `npm start`");
  return { Authorization: `Bearer ${token}` };
}

function devVar(name: string): string | undefined {
  const file = path.join(ROOT, ".dev.vars");
  if (!existsSync(file)) return undefined;
  const match = new RegExp(`^${name}="?([^"\\n]*)"?$`, "m").exec(readFileSync(file, "utf8"));
  return match?.[1];
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const json = (await response.json().catch(() => ({}))) as JsonAnswer;
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** The seller creates its own token account for `mint` (it pays the rent; any wallet could): sweeps pay into it. */
export async function createOwnTokenAccount(rpcUrl: string, owner: KeyPairSigner, mint: string): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({
    owner: owner.address,
    mint: mint as Address,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const { value } = await chainRpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>(
    rpcUrl,
    "getLatestBlockhash",
    [{ commitment: "confirmed" }],
  );
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(owner, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: value.blockhash as Blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getCreateAssociatedTokenIdempotentInstruction({
            payer: owner,
            ata,
            owner: owner.address,
            mint: mint as Address,
            tokenProgram: TOKEN_PROGRAM_ADDRESS,
          }),
        ],
        m,
      ),
  );
  const signature = await chainRpc<string>(rpcUrl, "sendTransaction", [
    getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)),
    { encoding: "base64" },
  ]);
  for (let i = 0; i < 50; i++) {
    const status = await signatureStatus(rpcUrl, signature);
    if (status && status.err !== null)
      throw new Error(`creating the seller's token account failed: ${JSON.stringify(status.err)}`);
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) return ata;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the token account transaction ${signature} was not confirmed in time`);
}
