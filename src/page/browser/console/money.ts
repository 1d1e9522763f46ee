/** Step 6: the vault's balance, what the next sweep pays, recent settlements and escrow payments to deliver. */

import { formatUnits, rawAmount } from "../amounts";
import { API } from "../api";
import { byId, el } from "../dom";
import { transactionHref } from "../explorer";
import { type FeeQuoteAnswer, sweepPaysText } from "../fee-quote-text";
import { formatTime } from "../time-format";
import { call, say } from "./calls";
import { snapshotPath } from "./onboarding";
import { salesSummary } from "./sales";
import { assetInfo, short, state, walletAddress } from "./state";
import { sellerChallenge } from "./wallet";

/**
 * The vault snapshot: pr402 writes amounts as JSON integers with `*Decimal` strings beside them; older answers use
 * strings.
 */
type Snapshot = Record<string, unknown> & {
  splitVaultPda?: string;
  vaultExists?: boolean;
  splDecimals?: number;
  sweepBlockedReason?: string;
  sellerSplAtaExists?: boolean;
};
interface JobRun {
  at?: string;
  outcome?: string;
  succeeded?: number;
  detail?: string;
}
interface Health {
  settlementKeeper?: { jobs?: { sweep?: JobRun | null } };
  lastSweepRun?: JobRun | null;
}
interface PaymentEntry {
  kind: string;
  scheme?: string;
  outcome: string;
  reason?: string;
  amount?: string;
  asset: string;
  payer?: string;
  signature?: string;
  startedAt?: string;
  /** `deposit`: a buyer's ceiling locked for a later claim (the claim is the sale); `sale`, or null on old rows. */
  role?: "sale" | "deposit" | null;
}

/** The next run of a "*\/N * * * *" Cron Trigger after `now`, or null for any other expression. */
export function nextCronRun(expression: string, now: Date): Date | null {
  const match = /^[*][/]([0-9]+) [*] [*] [*] [*]$/.exec(expression);
  if (!match) return null;
  const step = Number(match[1]);
  const next = new Date(now.getTime());
  next.setUTCSeconds(0, 0);
  next.setUTCMinutes((Math.floor(next.getUTCMinutes() / step) + 1) * step);
  return next;
}

export async function refreshBalance(sweepCron: string): Promise<void> {
  const asset = assetInfo();
  const [snap, health] = await Promise.all([
    call<Snapshot>("money", "GET", snapshotPath(asset)),
    call<Health>("money", "GET", "/health").catch(() => null),
  ]);
  const amount = (name: string): string | null => {
    const v = snap[name + "Decimal"] ?? snap[name];
    return v === null || v === undefined ? null : String(v);
  };
  const raw = asset.native ? amount("spendableLamports") : amount("splAmountRaw");
  const decimals = asset.native ? 9 : (snap.splDecimals ?? asset.decimals);
  const rows: [string, string][] = [
    ["Vault", String(snap.splitVaultPda)],
    [
      "Vault balance",
      snap.vaultExists ? formatUnits(raw ?? "0", decimals, asset.symbol) : "no vault yet (activate first)",
    ],
  ];
  if (!asset.native) rows.push(["Spendable SOL in vault", formatUnits(amount("spendableLamports") ?? "0", 9, "SOL")]);
  const next = nextCronRun(sweepCron, new Date());
  const when = next
    ? "at the next sweep run, " + formatTime(next) + " (every " + sweepCron.split(" ")[0]!.slice(2) + " minutes)"
    : "at the next sweep run (" + sweepCron + ")";
  const missing = snap.sweepBlockedReason === "seller_token_account_missing" || snap.sellerSplAtaExists === false;
  const balance = rawAmount(raw);
  if (snap.vaultExists && balance !== null && balance > 0n) {
    const quote = await call<FeeQuoteAnswer>(
      "money",
      "GET",
      "/fee-quote?wallet=" +
        walletAddress() +
        "&asset=" +
        encodeURIComponent(asset.param) +
        "&amount=" +
        raw +
        "&scheme=exact",
    );
    rows.push(["Next sweep pays you", sweepPaysText(quote, decimals, asset.symbol)]);
    rows.push([
      "When",
      missing
        ? "not until you create your own " + asset.symbol + " token account (sweeps never create it)"
        : when + ", if the balance is at or above the operator's sweep threshold",
    ]);
  } else {
    rows.push(["Next sweep", "nothing to pay yet"]);
  }
  const last = health?.settlementKeeper?.jobs?.sweep ?? health?.lastSweepRun;
  if (last?.at) {
    rows.push([
      "Last sweep run",
      formatTime(last.at) +
        " · " +
        (last.outcome || "") +
        (last.succeeded !== undefined ? " · " + last.succeeded + " swept" : last.detail ? " · " + last.detail : ""),
    ]);
  }
  byId("balance").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })]));
  say("money-status", "Balance read from the chain at " + formatTime(new Date()) + ".", "ok");
}

function decimalsOfMint(mint: string): [number, string] {
  const asset = state.assets.find((a) => a.mint === mint);
  return asset ? [asset.decimals, asset.symbol] : [0, "base units of " + short(mint)];
}

/** A transaction's link: the explorer of the configured cluster, or our own view on the local chain (explorer.ts). */
function transactionLink(signature: string): HTMLElement {
  return el("a", {
    href: transactionHref(signature, { cluster: state.cluster, walletRpcUrl: state.walletRpcUrl }),
    target: "_blank",
    rel: "noopener",
    text: short(signature),
  });
}

export async function loadPayments(): Promise<void> {
  say("money-status", "Sign the payment-history request in your wallet…");
  const signed = await sellerChallenge("money", "seller:payments");
  const body = await call<{ entries?: PaymentEntry[] }>("money", "POST", "/seller/payments", {
    wallet: walletAddress(),
    ...signed,
    limit: 25,
  });
  const entries = body.entries ?? [];
  const settled = entries.filter((e) => e.kind === "settle");
  const rows =
    settled.length === 0
      ? [el("tr", {}, el("td", { colspan: "6", text: "No settlements yet." }))]
      : settled.map((e) => {
          const [decimals, symbol] = decimalsOfMint(e.asset);
          const amount = e.amount ? formatUnits(e.amount, decimals, symbol) : "";
          // A deposit only holds the buyer's ceiling: the claim after it is the sale, so its amount is not revenue.
          const deposit = e.role === "deposit";
          return el(
            "tr",
            deposit ? { class: "muted" } : {},
            cell("When", { text: formatTime(e.startedAt) }),
            cell("Scheme", { text: e.scheme ?? "" }),
            cell("Outcome", {
              class: e.outcome === "settled" ? "ok" : "bad",
              text: (deposit ? "deposit " : "") + e.outcome + (e.reason ? " (" + e.reason + ")" : ""),
            }),
            cell("Amount", { text: deposit && amount ? amount + " held, not a sale (its claim is)" : amount }),
            cell("Payer", { text: short(e.payer ?? "") }),
            cell("Transaction", {}, e.signature ? transactionLink(e.signature) : el("span", { text: "—" })),
          );
        });
  byId<HTMLTableElement>("payments").tBodies[0]!.replaceChildren(...rows);
  const kind = state.supported?.kinds?.find((k) => k.scheme === "sla-escrow");
  const cutoffSeconds = Number(kind?.extra?.deliveryCutoffSeconds) || 0;
  const escrow = settled.filter((e) => e.scheme === "sla-escrow" && e.outcome === "settled");
  byId("escrow").replaceChildren(
    ...(escrow.length === 0
      ? [el("li", { text: "None: no escrow payment is waiting for your delivery." })]
      : escrow.map((e) => {
          const [decimals, symbol] = decimalsOfMint(e.asset);
          const due = cutoffSeconds
            ? formatTime(Date.parse(e.startedAt ?? "") + cutoffSeconds * 1000) +
              " (the default cutoff; a payment may set its own)"
            : "before the payment's delivery cutoff";
          return el("li", {
            text:
              formatUnits(e.amount, decimals, symbol) +
              " from " +
              short(e.payer) +
              ": deliver, then submit delivery (POST " +
              API +
              "/build-sla-escrow-submit-delivery-tx) by " +
              due +
              ".",
          });
        })),
  );
  const inUnits = (mint: string, raw: bigint) => formatUnits(raw, ...decimalsOfMint(mint));
  say("money-status", salesSummary(settled, inUnits) + " in the latest " + entries.length + " payment attempts.", "ok");
}

/** A table cell that carries its column's name, shown beside the value where the table is stacked (narrow screens). */
function cell(label: string, props: Record<string, string>, ...children: HTMLElement[]): HTMLElement {
  return el("td", { ...props, "data-label": label }, ...children);
}
