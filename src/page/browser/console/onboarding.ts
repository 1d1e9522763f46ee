/** Steps 2 to 4: the seller's rails (preview), its own token account, activation, and registration. */

import { base58Decode, fromBase64 } from "../base58";
import { byId, el } from "../dom";
import { sweepFeeRate } from "../fee-lines";
import { call, say } from "./calls";
import {
  assetInfo,
  chosenPayToForm,
  type ExactView,
  type Lifecycle,
  type Preview,
  state,
  walletAddress,
} from "./state";
import { confirmed, registerChallenge, rpc, sellerChallenge, sendSigned } from "./wallet";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";

/**
 * An unsigned legacy transaction with one Associated Token Account CreateIdempotent (data [1]): the owner pays and
 * signs. Accounts: payer (signer, writable), the account (writable), owner (= payer), mint, System, Token program.
 */
export function createTokenAccountTransaction(
  owner: string,
  account: string,
  mint: string,
  blockhash: string,
): Uint8Array {
  const keys = [owner, account, mint, SYSTEM_PROGRAM, TOKEN_PROGRAM, ATA_PROGRAM];
  const message = [
    1,
    0,
    4,
    keys.length,
    ...keys.flatMap(base58Decode),
    ...base58Decode(blockhash),
    1,
    5,
    6,
    0,
    1,
    0,
    2,
    3,
    4,
    1,
    1,
  ];
  return Uint8Array.from([1, ...new Array<number>(64).fill(0), ...message]);
}

const NEXT_STEP: Record<string, string> = {
  activate: "Next: activate. Create your vault with your own wallet (step 3) for the sovereign fee rate.",
  verify: "Next: verify. Sign the registration (step 4) so buyers and the directory know this wallet.",
  create_token_account:
    "Next: create your own USDC token account (button below). Sweeps pay into it and never create it for you; any " +
    "wallet creates it when you receive USDC once.",
  create_wallet_token_account:
    "Next: create your own USDC token account (button below). With the wallet form buyers pay straight into it, and " +
    "nothing creates it for you.",
  seller_token_account_missing:
    "Next: create your own token account for this asset. Sweeps pay into it and never create it for you; any wallet " +
    "creates it when you receive the token once.",
};

/**
 * The step the chosen form waits on. Where both forms run the preview's lifecycle is the vault's; a seller who
 * chose the wallet form has no vault to activate, only its own token account to hold.
 */
function nextStepOf(lifecycle: Lifecycle): string | undefined {
  if (chosenPayToForm() !== "wallet" || !state.preview?.schemes?.exact?.walletPayTo) return lifecycle.nextStep;
  if (walletTokenAccountMissing()) return "create_wallet_token_account";
  return lifecycle.verified ? undefined : "verify";
}

function walletTokenAccountMissing(): { address: string; mint: string } | null {
  const account = state.preview?.schemes?.exact?.walletPayTo?.tokenAccount;
  return account && !account.exists ? account : null;
}

/** The token account the seller should create now, with its mint: the one the sweep pays, or the wallet form's. */
function tokenAccountToCreate(): { address: string; mint: string } | null {
  const lifecycle = state.preview?.lifecycle ?? {};
  const usdc = state.assets.find((a) => a.symbol === "USDC")?.mint;
  if (chosenPayToForm() === "wallet" && state.preview?.schemes?.exact?.walletPayTo) return walletTokenAccountMissing();
  return lifecycle.nextStep === "create_token_account" && lifecycle.sellerTokenAccount && usdc
    ? { address: lifecycle.sellerTokenAccount, mint: usdc }
    : null;
}

/** The next step's line and the token-account button, for the preview and the chosen form. */
export function showPreviewSteps(): void {
  if (!state.preview) return;
  const lifecycle = state.preview.lifecycle ?? {};
  const step = nextStepOf(lifecycle);
  say("next-step", nextStepText(step, lifecycle), step ? undefined : "ok");
  byId("create-token-account").hidden = tokenAccountToCreate() === null;
}

function nextStepText(step: string | undefined, lifecycle: Lifecycle): string {
  if (!step)
    return lifecycle.verified ? "All set: activated and verified. Register resources (step 5) to be listed." : "";
  return NEXT_STEP[step] ?? "Next: " + step.replaceAll("_", " ") + ".";
}

/** The vault's fee tier, worded as every page words the exact fee (fee-lines.ts). */
function feeTierText(exact: ExactView | null): string {
  if (!exact) return "unknown";
  const rate = sweepFeeRate(exact.feeBps);
  if (exact.status === "NotProvisioned") {
    const sovereign = state.supported?.kinds?.find((kind) => kind.scheme === "exact")?.extra?.sovereignFeeBps;
    return (
      "Not activated. Activate it yourself for " +
      (typeof sovereign === "string" ? sweepFeeRate(sovereign) : "the lower (sovereign) rate") +
      "; a vault the facilitator creates at your first payment pays " +
      rate +
      "."
    );
  }
  if (exact.isSovereign) return "Sovereign: " + rate + " (you activated your own vault).";
  const p = exact.provisioningStatus;
  return (
    "Standard: " +
    rate +
    " (the facilitator created this vault" +
    (p ? "; setup cost recovered so far " + p.recovered + " of " + p.total + " base units of " + p.asset : "") +
    ")."
  );
}

export async function refreshPreview(): Promise<void> {
  const preview = await call<Preview>("preview", "GET", "/sellers/" + walletAddress() + "/preview");
  state.preview = preview;
  const exact = preview.schemes?.exact ?? null;
  const escrow = preview.schemes?.["sla-escrow"] ?? null;
  const first = Array.isArray(preview.vaultPdaPreviews) ? preview.vaultPdaPreviews[0] : undefined;
  const vault = exact?.vaultPda || exact?.payTo || first?.vaultPda || first?.address || first?.payTo || "unknown";
  const lifecycle = preview.lifecycle ?? {};
  const rows: [string, string | undefined][] = [
    ["Wallet", preview.wallet || walletAddress()],
    ["exact vault (payTo)", vault],
    ["SOL lands in", exact?.solStoragePda],
    ["Vault status", exact?.status],
    ["Fee tier", feeTierText(exact)],
    ["sla-escrow payTo", escrow?.payTo || escrow?.vaultPda],
    [
      "Lifecycle",
      [
        "previewed",
        lifecycle.activated ? "activated" : "not activated",
        lifecycle.verified ? "verified" : "not verified",
      ].join(" → "),
    ],
  ];
  byId("preview").replaceChildren(
    ...rows.filter((row) => row[1]).flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })]),
  );
  showPreviewSteps();
}

/** The seller's own USDC token account, which sweeps pay into: one CreateIdempotent the wallet signs and sends. */
export async function createTokenAccount(): Promise<void> {
  const account = tokenAccountToCreate();
  if (!account) throw new Error("the preview names no token account to create");
  say("next-step", "Approve the transaction in your wallet…");
  const latest = await rpc<{ value: { blockhash: string } }>("preview", "getLatestBlockhash", [
    { commitment: "confirmed" },
  ]);
  const signature = await sendSigned(
    createTokenAccountTransaction(walletAddress(), account.address, account.mint, latest.value.blockhash),
    "preview",
  );
  say("next-step", "Sent " + signature + ". Waiting for the chain to confirm…");
  await confirmed("preview", signature);
  await refreshPreview();
}

export function snapshotPath(asset: { native: boolean; mint: string | null }): string {
  return "/vault-snapshot?wallet=" + walletAddress() + (asset.native || !asset.mint ? "" : "&spl_mint=" + asset.mint);
}

export async function activate(): Promise<void> {
  const asset = assetInfo();
  say("activate-status", "Asking for the activation transaction…");
  const built = await call<{ transaction?: string; alreadyProvisioned?: boolean }>(
    "activate",
    "POST",
    "/sellers/provision-tx",
    { wallet: walletAddress(), asset: asset.param },
  );
  if (!built.transaction || built.alreadyProvisioned) {
    say("activate-status", "Already active for " + asset.symbol + ": nothing to sign.", "ok");
    await refreshPreview();
    return;
  }
  say("activate-status", "Approve the transaction in your wallet…");
  const signature = await sendSigned(fromBase64(built.transaction), "activate");
  say("activate-status", "Sent " + signature + ". Waiting for the chain to confirm…");
  await confirmed("activate", signature, (seconds) =>
    say("activate-status", "Sent " + signature + ". Waiting for the chain to confirm… " + seconds + " s"),
  );
  const snap = await call<{ splitVaultPda: string }>("activate", "GET", snapshotPath(asset));
  say(
    "activate-status",
    "Activated for " + asset.symbol + ": vault " + snap.splitVaultPda + " (transaction " + signature + ").",
    "ok",
  );
  await refreshPreview();
}

export async function registerSeller(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const asset = assetInfo();
  const discovery: { listingOptIn: boolean; serviceUrl?: string; displayName?: string } = {
    listingOptIn: byId<HTMLInputElement>("listing-opt-in").checked,
  };
  const serviceUrl = byId<HTMLInputElement>("service-url").value.trim();
  const displayName = byId<HTMLInputElement>("display-name").value.trim();
  if (serviceUrl) discovery.serviceUrl = serviceUrl;
  if (displayName) discovery.displayName = displayName;
  const payToForm = chosenPayToForm();
  // The challenge is issued for exactly these terms and names them, so the signature covers them (no relay can swap
  // them).
  const terms = { asset: asset.param, discovery, ...(payToForm ? { payToForm } : {}) };
  say("register-status", "Sign the registration message in your wallet…");
  const signed = await registerChallenge("register", terms);
  const body = await call<{ note?: string }>("register", "POST", "/sellers/" + walletAddress() + "/register", {
    ...signed,
    ...terms,
  });
  say("register-status", body.note || "Registered: this wallet is a verified provider.", "ok");
  await refreshPreview();
}

export async function retireSeller(): Promise<void> {
  say("register-status", "Sign the retirement message in your wallet…");
  const signed = await sellerChallenge("register", "seller:retire");
  const body = await call<{ note?: string }>("register", "POST", "/sellers/" + walletAddress() + "/retire", signed);
  say("register-status", body.note || "Registration retired.", "ok");
  await refreshPreview();
}
