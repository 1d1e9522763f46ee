/**
 * The script of /console/tx?signature=…, served as /assets/tx.js: a read-only view of one transaction for a chain no
 * public explorer can see (the local chain of `npm start`). It reads the transaction from the deployment's public
 * wallet RPC (getTransaction, in the browser: the Worker does no work for it) and the facilitator's own record of the
 * settlement (GET /settlements/{signature}, when it settled it), and writes both in words.
 */

import { formatUnits } from "./amounts";
import { getJson } from "./api";
import { byId, el, errorMessage } from "./dom";
import { findAsset, type KnownAsset, loadKnownAssets } from "./known-assets";
import { formatTime } from "./time-format";

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;
const LAMPORTS_DECIMALS = 9;

/** The programs a payment of this facilitator touches, by name; the rails' programs come from /supported. */
const BUILT_IN_PROGRAMS: Record<string, string> = {
  "11111111111111111111111111111111": "System",
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: "SPL Token",
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: "Token-2022",
  ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL: "Associated Token Account",
  ComputeBudget111111111111111111111111111111: "Compute Budget",
  MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: "Memo",
  Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo: "Memo (v1)",
};

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}
interface ParsedTransaction {
  slot: number;
  blockTime: number | null;
  transaction: {
    signatures: string[];
    message: {
      accountKeys: { pubkey: string; signer: boolean; writable: boolean }[];
      instructions: { programId: string }[];
    };
  };
  meta: {
    err: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances?: TokenBalance[];
    postTokenBalances?: TokenBalance[];
    logMessages?: string[] | null;
    computeUnitsConsumed?: number;
  } | null;
}
interface SettlementRecord {
  state: string;
  scheme: string;
  payer: string;
  payTo: string;
  asset: string;
  amount: string;
  settledAt: string | null;
  errorReason?: string;
}

const facts = (rows: [string, string][]) => rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]);

async function programNames(): Promise<Record<string, string>> {
  const names = { ...BUILT_IN_PROGRAMS };
  const supported = await getJson<{ kinds: { scheme: string; extra?: Record<string, unknown> | null }[] }>(
    "/supported",
  ).catch(() => ({ kinds: [] }));
  for (const kind of supported.kinds) {
    const program = kind.extra?.programId ?? kind.extra?.escrowProgramId;
    if (typeof program === "string") names[program] = kind.scheme + " program";
  }
  return names;
}

async function readTransaction(rpcUrl: string, signature: string): Promise<ParsedTransaction | null> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getTransaction",
      params: [signature, { encoding: "jsonParsed", maxSupportedTransactionVersion: 0, commitment: "confirmed" }],
    }),
  });
  const body = (await response.json()) as { result?: ParsedTransaction | null; error?: { message: string } };
  if (body.error) throw new Error("RPC getTransaction: " + body.error.message);
  return body.result ?? null;
}

async function readSettlement(signature: string): Promise<SettlementRecord | null> {
  try {
    return await getJson<SettlementRecord>("/settlements/" + signature);
  } catch {
    return null; // 404: not a settlement of this facilitator
  }
}

function amountOf(raw: string, mint: string, assets: readonly KnownAsset[]): string {
  const asset = findAsset(assets, mint);
  return asset ? formatUnits(raw, asset.decimals, asset.symbol) : raw + " base units of " + mint;
}

function showRecord(record: SettlementRecord | null, assets: readonly KnownAsset[]): void {
  byId("record").replaceChildren(
    ...(record === null
      ? [el("dt", { text: "Settlement" }), el("dd", { text: "none: this facilitator did not settle this transaction" })]
      : facts([
          ["State", record.state + (record.errorReason ? " (" + record.errorReason + ")" : "")],
          ["Scheme", record.scheme],
          ["Amount", amountOf(record.amount, record.asset, assets)],
          ["Payer", record.payer],
          ["Paid to", record.payTo],
          ["Settled at", record.settledAt ? formatTime(record.settledAt) : "not yet"],
        ])),
  );
}

/** One balance change: the signed amount first, so a narrow screen shows it before the long account. */
const changeRow = (delta: bigint, decimals: number, asset: string, account: string) =>
  el(
    "tr",
    {},
    el("td", { text: (delta > 0n ? "+" : "") + formatUnits(delta, decimals) }),
    el("td", { text: asset }),
    el("td", { text: account }),
  );

function showTransaction(tx: ParsedTransaction, names: Record<string, string>, assets: readonly KnownAsset[]): void {
  const keys = tx.transaction.message.accountKeys;
  const meta = tx.meta;
  byId("summary").replaceChildren(
    ...facts([
      ["Status", meta === null ? "unknown" : meta.err === null ? "succeeded" : "failed: " + JSON.stringify(meta.err)],
      ["Slot", String(tx.slot)],
      ["Block time", tx.blockTime === null ? "unknown" : formatTime(tx.blockTime * 1000)],
      ["Network fee", meta ? formatUnits(String(meta.fee), LAMPORTS_DECIMALS, "SOL") : "unknown"],
      ["Fee payer", keys[0]?.pubkey ?? "unknown"],
      [
        "Signers",
        keys
          .filter((k) => k.signer)
          .map((k) => k.pubkey)
          .join(", "),
      ],
      [
        "Programs",
        [...new Set(tx.transaction.message.instructions.map((i) => names[i.programId] ?? i.programId))].join(", "),
      ],
    ]),
  );
  const changes: HTMLElement[] = [];
  if (meta) {
    keys.forEach((key, index) => {
      const delta = BigInt(meta.postBalances[index] ?? 0) - BigInt(meta.preBalances[index] ?? 0);
      if (delta !== 0n) changes.push(changeRow(delta, LAMPORTS_DECIMALS, "SOL", key.pubkey));
    });
    for (const post of meta.postTokenBalances ?? []) {
      const pre = (meta.preTokenBalances ?? []).find((b) => b.accountIndex === post.accountIndex);
      const delta = BigInt(post.uiTokenAmount.amount) - BigInt(pre?.uiTokenAmount.amount ?? "0");
      if (delta === 0n) continue;
      const symbol = findAsset(assets, post.mint)?.symbol ?? post.mint;
      const account = keys[post.accountIndex]?.pubkey ?? "?";
      changes.push(
        changeRow(
          delta,
          post.uiTokenAmount.decimals,
          symbol,
          account + (post.owner ? " (owner " + post.owner + ")" : ""),
        ),
      );
    }
  }
  byId<HTMLTableElement>("changes").tBodies[0]!.replaceChildren(
    ...(changes.length > 0 ? changes : [el("tr", {}, el("td", { colspan: "3", text: "No balance changed." }))]),
  );
  byId("logs").textContent = (meta?.logMessages ?? []).join("\n") || "No log messages.";
}

async function show(): Promise<void> {
  const signature = new URLSearchParams(location.search).get("signature") ?? "";
  byId("signature").textContent = signature || "none";
  if (!SIGNATURE.test(signature)) {
    byId("status").textContent = "Give a transaction signature: /console/tx?signature=<base58 signature>.";
    return;
  }
  byId<HTMLAnchorElement>("record-json").href = "/api/v1/facilitator/settlements/" + signature;
  const [health, names, assets, record] = await Promise.all([
    getJson<{ solanaWalletRpcUrl?: string }>("/health").catch(() => null),
    programNames(),
    loadKnownAssets(),
    readSettlement(signature),
  ]);
  showRecord(record, assets);
  const rpcUrl = health?.solanaWalletRpcUrl;
  if (!rpcUrl) {
    byId("status").textContent = "This deployment names no public wallet RPC: only the facilitator's record is shown.";
    return;
  }
  const tx = await readTransaction(rpcUrl, signature);
  if (tx === null) {
    byId("status").textContent =
      "The chain at " +
      new URL(rpcUrl).origin +
      " does not know this transaction (not confirmed yet, or another chain).";
    return;
  }
  showTransaction(tx, names, assets);
  byId("status").textContent = "Read from " + new URL(rpcUrl).origin + " at " + formatTime(new Date()) + ".";
}

document.addEventListener("DOMContentLoaded", () => {
  show().catch((error: unknown) => {
    byId("status").textContent = "Could not read the transaction: " + errorMessage(error);
  });
});
