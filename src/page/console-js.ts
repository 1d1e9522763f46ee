import { SWEEP_CRON } from "../jobs/scheduled";

/**
 * The script of /console, served as /assets/console.js (same origin, so the page's CSP can stay 'self').
 *
 * Wallets are found with the Wallet Standard's discovery handshake, done by hand (a few lines, no dependency): the page
 * listens for `wallet-standard:register-wallet` (a wallet's detail is a callback taking `{register}`) and announces
 * itself with `wallet-standard:app-ready` (detail `{register}`), so wallets that loaded before or after the page are
 * both found. It needs `standard:connect`, `solana:signMessage`, and `solana:signAndSendTransaction` (preferred, the
 * wallet sends through its own RPC) or `solana:signTransaction` (the page then sends to the deployment's public wallet
 * RPC URL from /health, which the console's CSP allows).
 *
 * Response shapes read defensively where they are moving (pr402 compatibility): the preview's feeBps as number or
 * string, vault addresses from `schemes.exact`, the vault snapshot's amounts as strings or as integers beside `*Decimal`.
 * Kept free of backticks and dollar-brace so it can live in this String.raw template.
 */
const SCRIPT = String.raw`"use strict";
const API = "/api/v1/facilitator";
const SWEEP_CRON = "@@SWEEP_CRON@@";
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const $ = (id) => document.getElementById(id);
const state = { wallets: [], wallet: null, account: null, chain: "solana:devnet", walletRpcUrl: null, assets: [], preview: null, supported: null };

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "class") node.className = value; else if (key === "text") node.textContent = value; else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}
function base58(bytes) {
  const digits = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) { carry += digits[i] * 256; digits[i] = carry % 58; carry = Math.floor(carry / 58); }
    while (carry > 0) { digits.push(carry % 58); carry = Math.floor(carry / 58); }
  }
  let out = "";
  for (const byte of bytes) { if (byte !== 0) break; out += "1"; }
  for (let i = digits.length - 1; i >= 0; i--) out += B58[digits[i]];
  return out;
}
const toBase64 = (bytes) => { let s = ""; for (const b of bytes) s += String.fromCharCode(b); return btoa(s); };
const fromBase64 = (text) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
function base58Decode(text) {
  const bytes = [];
  for (const ch of text) {
    let carry = B58.indexOf(ch);
    if (carry < 0) throw new Error("not base58: " + text);
    for (let i = 0; i < bytes.length; i++) { carry += bytes[i] * 58; bytes[i] = carry & 255; carry >>= 8; }
    while (carry > 0) { bytes.push(carry & 255); carry >>= 8; }
  }
  for (const ch of text) { if (ch !== "1") break; bytes.push(0); }
  return bytes.reverse();
}
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
/**
 * An unsigned legacy transaction with one Associated Token Account CreateIdempotent (data [1]): the owner pays and
 * signs. Accounts: payer (signer, writable), the account (writable), owner (= payer), mint, System, Token program.
 */
function createTokenAccountTransaction(owner, account, mint, blockhash) {
  const keys = [owner, account, mint, SYSTEM_PROGRAM, TOKEN_PROGRAM, ATA_PROGRAM];
  const message = [1, 0, 4, keys.length, ...keys.flatMap(base58Decode), ...base58Decode(blockhash), 1, 5, 6, 0, 1, 0, 2, 3, 4, 1, 1];
  return Uint8Array.from([1, ...new Array(64).fill(0), ...message]);
}
const short = (addr) => addr && addr.length > 12 ? addr.slice(0, 4) + "…" + addr.slice(-4) : String(addr);

function assetInfo() {
  const value = $("asset").value;
  return state.assets.find((a) => a.param === value) || { param: value, symbol: value, decimals: value === "SOL" ? 9 : 6, mint: null, native: value === "SOL" };
}
function units(raw, decimals, symbol) {
  if (raw === null || raw === undefined || raw === "") return "unknown";
  let value = BigInt(raw);
  const negative = value < 0n; if (negative) value = -value;
  const base = 10n ** BigInt(decimals);
  const frac = (value % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return (negative ? "-" : "") + (value / base).toString() + (frac ? "." + frac : "") + (symbol ? " " + symbol : "");
}
const pct = (bps) => { const n = Number(bps); return Number.isFinite(n) ? (n / 100) + "%" : "unknown"; };

/** Every call goes through here: it is shown under its section as a copyable curl line with the answer's status. */
async function call(section, method, path, body) {
  const url = new URL(path.startsWith("http") ? path : API + path, location.href).href;
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
  let response, text = "", parsed = null;
  try {
    response = await fetch(url, init);
    text = await response.text();
    try { parsed = JSON.parse(text); } catch { parsed = null; }
  } finally {
    showCall(section, method, url, body, response ? response.status : "network error", text);
  }
  if (!response.ok) {
    const error = new Error((parsed && (parsed.error || parsed.message)) || ("HTTP " + response.status));
    error.status = response.status; error.body = parsed;
    throw error;
  }
  return parsed;
}
function showCall(section, method, url, body, status, answer) {
  const box = $(section + "-calls");
  if (!box) return;
  const quote = (s) => "'" + s.replaceAll("'", "'\\''") + "'";
  let curl = "curl -X " + method + " " + quote(url);
  if (body !== undefined) curl += " -H 'Content-Type: application/json' --data " + quote(JSON.stringify(body));
  const details = el("details", { class: "call" },
    el("summary", { text: method + " " + (new URL(url).origin === location.origin ? new URL(url).pathname : url) + (body && body.jsonrpc ? " " + body.method : "") + " → " + status }),
    el("pre", { class: "curl", text: curl }),
    el("pre", { class: "answer", text: answer.length > 2000 ? answer.slice(0, 2000) + "…" : answer }));
  box.prepend(details);
  while (box.children.length > 8) box.lastChild.remove();
}
function say(id, text, kind) {
  const node = $(id);
  node.textContent = text;
  node.className = kind === "bad" ? "bad" : kind === "ok" ? "ok" : "";
}
async function guarded(statusId, work) {
  const buttons = document.querySelectorAll(".needs-wallet");
  buttons.forEach((b) => { b.disabled = true; });
  try { await work(); } catch (error) { say(statusId, "Failed: " + (error && error.message ? error.message : String(error)), "bad"); }
  finally { buttons.forEach((b) => { b.disabled = !state.account; }); }
}

// ---- Wallet Standard discovery (the handshake, by hand) ----
const REQUIRED = ["standard:connect", "solana:signMessage"];
function missingFeatures(wallet) {
  const f = wallet.features || {};
  const missing = REQUIRED.filter((name) => !f[name]);
  if (!f["solana:signAndSendTransaction"] && !f["solana:signTransaction"]) missing.push("solana:signAndSendTransaction or solana:signTransaction");
  return missing;
}
function register(...wallets) {
  for (const wallet of wallets) if (wallet && !state.wallets.includes(wallet)) state.wallets.push(wallet);
  renderWallets();
  return () => { state.wallets = state.wallets.filter((w) => !wallets.includes(w)); renderWallets(); };
}
const appApi = Object.freeze({ register });
window.addEventListener("wallet-standard:register-wallet", (event) => { try { event.detail(appApi); } catch (error) { console.error(error); } });
window.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: appApi }));

function renderWallets() {
  const list = $("wallets");
  if (!list) return;
  list.replaceChildren(...state.wallets.map((wallet) => {
    const missing = missingFeatures(wallet);
    const ok = missing.length === 0;
    const button = el("button", { type: "button", text: ok ? "Connect " + wallet.name : wallet.name + " (cannot be used here: lacks " + missing.join(", ") + ")" });
    button.disabled = !ok;
    button.addEventListener("click", () => connect(wallet));
    return el("li", {}, button);
  }));
  if (!state.account) {
    say("wallet-status", state.wallets.length === 0
      ? "No Wallet Standard wallet found. Install or unlock a Solana wallet extension (Phantom, Solflare, Backpack…) and reload."
      : "Choose a wallet to connect.");
  }
}
async function connect(wallet) {
  try {
    const result = await wallet.features["standard:connect"].connect();
    const accounts = (result && result.accounts && result.accounts.length ? result.accounts : wallet.accounts) || [];
    if (accounts.length === 0) throw new Error("the wallet returned no account");
    state.wallet = wallet; state.account = accounts[0];
    $("address").textContent = state.account.address;
    $("account").hidden = false;
    $("wallets").hidden = true;
    say("wallet-status", "Connected to " + wallet.name + ".", "ok");
    document.querySelectorAll(".needs-wallet").forEach((b) => { b.disabled = false; });
    showManifest();
    await refreshPreview();
  } catch (error) {
    say("wallet-status", "Could not connect: " + (error && error.message ? error.message : String(error)), "bad");
  }
}
function disconnect() {
  const f = state.wallet && state.wallet.features["standard:disconnect"];
  if (f) f.disconnect().catch(() => undefined);
  state.wallet = null; state.account = null; state.preview = null;
  $("account").hidden = true; $("wallets").hidden = false;
  document.querySelectorAll(".needs-wallet").forEach((b) => { b.disabled = true; });
  renderWallets();
}
const wallet = () => state.account.address;

async function signChallenge(section, challengePath) {
  const challenge = await call(section, "GET", challengePath);
  const [signed] = await state.wallet.features["solana:signMessage"].signMessage({ account: state.account, message: new TextEncoder().encode(challenge.message) });
  return { message: challenge.message, signature: base58(signed.signature) };
}
const sellerChallenge = (section, action) => signChallenge(section, "/sellers/" + wallet() + "/challenge?action=" + encodeURIComponent(action));
const resourceChallenge = (section, action) => signChallenge(section, "/resources/register/challenge?wallet=" + wallet() + "&action=" + encodeURIComponent(action));

// ---- Preview ----
const NEXT_STEP = {
  activate: "Next: activate. Create your vault with your own wallet (step 3) for the sovereign fee rate.",
  verify: "Next: verify. Sign the registration (step 4) so buyers and the directory know this wallet.",
  create_token_account: "Next: create your own USDC token account (button below). Sweeps pay into it and never create it for you; any wallet creates it when you receive USDC once.",
  seller_token_account_missing: "Next: create your own token account for this asset. Sweeps pay into it and never create it for you; any wallet creates it when you receive the token once.",
};
function nextStepText(lifecycle) {
  const step = lifecycle && lifecycle.nextStep;
  if (!step) return lifecycle && lifecycle.verified ? "All set: activated and verified. Register resources (step 5) to be listed." : "";
  return NEXT_STEP[step] || ("Next: " + String(step).replaceAll("_", " ") + ".");
}
function feeTierText(exact) {
  if (!exact) return "unknown";
  const rate = pct(exact.feeBps);
  if (exact.status === "NotProvisioned") return "Not activated. Activate for the sovereign rate; a vault the facilitator creates at your first payment pays the standard " + rate + ".";
  if (exact.isSovereign) return "Sovereign: " + rate + " of each payment (you activated your own vault).";
  const p = exact.provisioningStatus;
  return "Standard: " + rate + " (the facilitator created this vault" + (p ? "; setup cost recovered so far " + p.recovered + " of " + p.total + " base units of " + p.asset : "") + ").";
}
async function refreshPreview() {
  const preview = await call("preview", "GET", "/sellers/" + wallet() + "/preview");
  state.preview = preview;
  const schemes = preview.schemes || {};
  const exact = schemes.exact || null;
  const escrow = schemes["sla-escrow"] || null;
  const previews = Array.isArray(preview.vaultPdaPreviews) ? preview.vaultPdaPreviews : [];
  const vault = (exact && (exact.vaultPda || exact.payTo)) || (previews[0] && (previews[0].vaultPda || previews[0].address || previews[0].payTo)) || "unknown";
  const lifecycle = preview.lifecycle || {};
  const rows = [
    ["Wallet", preview.wallet || wallet()],
    ["exact vault (payTo)", vault],
    ["SOL lands in", exact && exact.solStoragePda],
    ["Vault status", exact && exact.status],
    ["Fee tier", feeTierText(exact)],
    ["sla-escrow payTo", escrow && (escrow.payTo || escrow.vaultPda)],
    ["Lifecycle", ["previewed", lifecycle.activated ? "activated" : "not activated", lifecycle.verified ? "verified" : "not verified"].join(" → ")],
  ];
  $("preview").replaceChildren(...rows.filter((r) => r[1]).flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })]));
  say("next-step", nextStepText(lifecycle), lifecycle.nextStep ? "" : "ok");
  $("create-token-account").hidden = !(lifecycle.nextStep === "create_token_account" && lifecycle.sellerTokenAccount);
}

async function rpc(section, method, params) {
  if (!state.walletRpcUrl) throw new Error("this deployment names no public wallet RPC URL");
  const body = await call(section, "POST", state.walletRpcUrl, { jsonrpc: "2.0", id: 1, method, params });
  if (body.error) throw new Error("RPC " + method + ": " + body.error.message);
  return body.result;
}
/** The seller's own USDC token account, which sweeps pay into: one CreateIdempotent the wallet signs and sends. */
async function createTokenAccount() {
  const lifecycle = (state.preview && state.preview.lifecycle) || {};
  const usdc = state.assets.find((a) => a.symbol === "USDC");
  if (!lifecycle.sellerTokenAccount || !usdc) throw new Error("the preview names no token account to create");
  say("next-step", "Approve the transaction in your wallet…");
  const latest = await rpc("preview", "getLatestBlockhash", [{ commitment: "confirmed" }]);
  const signature = await sendSigned(createTokenAccountTransaction(wallet(), lifecycle.sellerTokenAccount, usdc.mint, latest.value.blockhash), "preview");
  say("next-step", "Sent " + signature + ". Waiting for the chain to confirm…");
  await confirmed("preview", signature);
  await refreshPreview();
}

// ---- Activate ----
async function sendSigned(transaction, section) {
  const f = state.wallet.features;
  if (f["solana:signAndSendTransaction"]) {
    const [result] = await f["solana:signAndSendTransaction"].signAndSendTransaction({ account: state.account, transaction, chain: state.chain, options: { preflightCommitment: "confirmed" } });
    return base58(result.signature);
  }
  const [result] = await f["solana:signTransaction"].signTransaction({ account: state.account, transaction, chain: state.chain });
  if (!state.walletRpcUrl) throw new Error("this deployment names no public wallet RPC URL; use a wallet that can sign and send");
  const sent = await call(section || "activate", "POST", state.walletRpcUrl, { jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [toBase64(result.signedTransaction), { encoding: "base64", preflightCommitment: "confirmed" }] });
  if (sent.error) throw new Error("the RPC refused the transaction: " + sent.error.message);
  return sent.result;
}
function snapshotPath(asset) {
  return "/vault-snapshot?wallet=" + wallet() + (asset.native || !asset.mint ? "" : "&spl_mint=" + asset.mint);
}
async function activate() {
  const asset = assetInfo();
  say("activate-status", "Asking for the activation transaction…");
  const built = await call("activate", "POST", "/sellers/provision-tx", { wallet: wallet(), asset: asset.param });
  if (!built.transaction || built.alreadyProvisioned) {
    say("activate-status", "Already active for " + asset.symbol + ": nothing to sign.", "ok");
    await refreshPreview();
    return;
  }
  say("activate-status", "Approve the transaction in your wallet…");
  const signature = await sendSigned(fromBase64(built.transaction));
  say("activate-status", "Sent " + signature + ". Waiting for the chain to confirm…");
  await confirmed("activate", signature, (seconds) => say("activate-status", "Sent " + signature + ". Waiting for the chain to confirm… " + seconds + " s"));
  const snap = await call("activate", "GET", snapshotPath(asset));
  say("activate-status", "Activated for " + asset.symbol + ": vault " + snap.splitVaultPda + " (transaction " + signature + ").", "ok");
  await refreshPreview();
}
/**
 * Follows a sent transaction to "confirmed" with getSignatureStatuses on the deployment's wallet RPC (the calls are
 * shown like every other); a transaction that failed on chain, or is not seen within 90 s, is an error.
 */
async function confirmed(section, signature, progress) {
  const started = Date.now();
  while (Date.now() - started < 90000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const result = await rpc(section, "getSignatureStatuses", [[signature]]);
    const status = result && result.value && result.value[0];
    if (status && status.err) throw new Error("the transaction " + signature + " failed on chain: " + JSON.stringify(status.err));
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) return;
    if (progress) progress(Math.round((Date.now() - started) / 1000));
  }
  throw new Error("not confirmed within 90 s (transaction " + signature + "); its blockhash may have expired: try again");
}

// ---- Register / retire ----
async function registerSeller(event) {
  event.preventDefault();
  const asset = assetInfo();
  const discovery = { listingOptIn: $("listing-opt-in").checked };
  const serviceUrl = $("service-url").value.trim();
  const displayName = $("display-name").value.trim();
  if (serviceUrl) discovery.serviceUrl = serviceUrl;
  if (displayName) discovery.displayName = displayName;
  say("register-status", "Sign the registration message in your wallet…");
  const signed = await sellerChallenge("register", "seller:register");
  const body = await call("register", "POST", "/sellers/" + wallet() + "/register", { ...signed, asset: asset.param, discovery });
  say("register-status", body.note || "Registered: this wallet is a verified provider.", "ok");
  await refreshPreview();
}
async function retireSeller() {
  say("register-status", "Sign the retirement message in your wallet…");
  const signed = await sellerChallenge("register", "seller:retire");
  const body = await call("register", "POST", "/sellers/" + wallet() + "/retire", signed);
  say("register-status", body.note || "Registration retired.", "ok");
  await refreshPreview();
}

// ---- Resources ----
/** The Seller Resource Manifest that proves the origin belongs to this wallet (onboarding guide, "prove your origin"). */
function showManifest() {
  let origin = "https://your-api.example";
  try { origin = new URL($("service-url").value.trim()).origin; } catch { /* not yet a URL */ }
  $("manifest-url").textContent = origin + "/.well-known/x402-resources.json";
  $("manifest-snippet").textContent = state.account ? JSON.stringify({ x402ResourceManifest: 1, merchantWallet: wallet(), resources: [] }, null, 2) : "Connect a wallet to see it.";
}
function gatesOf(entry) {
  const lifecycle = (state.preview && state.preview.lifecycle) || {};
  const gates = [
    { ok: lifecycle.verified !== false, name: "Seller verified", fix: "register this wallet (step 4)" },
    { ok: entry.listingOptIn !== false && !entry.retired, name: "Resource opted in and not retired", fix: entry.retired ? "register the resource again" : "register it again with listing on" },
  ];
  for (const [key, value] of Object.entries(entry)) {
    if (/^origin(Proof|Verified|Proven)/i.test(key) && typeof value !== "object") gates.push({ ok: value === true || value === "ok" || value === "verified", name: "Origin proven (" + key + ": " + value + ")", fix: "publish the wallet-bound document on your origin (see the onboarding guide), then probe" });
  }
  const probe = entry.lastProbeAt ? "last probe " + entry.lastProbeAt + (entry.lastProbeStatus ? ", HTTP " + entry.lastProbeStatus : "") + (entry.lastProbeError ? ": " + entry.lastProbeError : "") : "never probed";
  gates.push({ ok: entry.lastProbeOk === true, name: "Answers a valid 402 (" + probe + ")", fix: "make " + entry.httpMethod + " " + entry.resourceUrl + " answer HTTP 402 with a payment request naming that URL, then Probe now" });
  return gates;
}
function resourceCard(entry) {
  const gates = gatesOf(entry);
  const failing = gates.find((g) => !g.ok);
  const verified = !(state.preview && state.preview.lifecycle && state.preview.lifecycle.verified === false);
  const verdict = entry.listed === true && verified ? el("p", { class: "ok", text: "Listed in the public directory." })
    : failing ? el("p", { class: "bad", text: "Not listed. Failing gate: " + failing.name + ". To do: " + failing.fix + "." })
    : el("p", { class: entry.listed === false ? "bad" : "muted", text: entry.listed === false ? "Not listed yet: the listing follows the next probe." : "Every gate holds: it is listed (sign and list to confirm)." });
  const probeButton = el("button", { type: "button", class: "needs-wallet", text: "Probe now" });
  const retireButton = el("button", { type: "button", class: "needs-wallet secondary", text: "Retire" });
  probeButton.addEventListener("click", () => guarded("resources-status", () => probeResource(entry)));
  retireButton.addEventListener("click", () => guarded("resources-status", () => retireResource(entry)));
  if (entry.retired) { probeButton.hidden = true; retireButton.hidden = true; }
  return el("li", { "data-resource-id": String(entry.id) },
    el("strong", { text: "#" + entry.id + " " + (entry.title || entry.resourceUrl) }),
    el("div", { class: "muted", text: entry.httpMethod + " " + entry.resourceUrl + " · " + entry.scheme + (entry.retired ? " · retired" : "") }),
    el("ul", { class: "gates", "aria-label": "Listing gates" }, ...gates.map((g) => el("li", { class: g.ok ? "ok" : "bad", text: (g.ok ? "✓ " : "✗ ") + g.name }))),
    verdict,
    el("p", { class: "buttons" }, probeButton, retireButton));
}
function upsertCard(entry) {
  const list = $("resources");
  const card = resourceCard(entry);
  const old = list.querySelector('[data-resource-id="' + entry.id + '"]');
  if (old) old.replaceWith(card); else list.prepend(card);
  card.querySelectorAll(".needs-wallet").forEach((b) => { b.disabled = !state.account; });
}
const resourceCache = new Map();
async function listResources() {
  say("resources-status", "Sign the listing request in your wallet…");
  const signed = await sellerChallenge("resources", "resource:list");
  const body = await call("resources", "POST", "/sellers/" + wallet() + "/resources", { ...signed, limit: 50 });
  const entries = body.entries || [];
  $("resources").replaceChildren();
  for (const entry of entries.slice().reverse()) { resourceCache.set(entry.id, entry); upsertCard(entry); }
  say("resources-status", entries.length === 0 ? "No resources registered by this wallet yet." : entries.length + " resource(s); " + entries.filter((e) => e.listed).length + " listed.", "ok");
}
async function registerResource(event) {
  event.preventDefault();
  const resource = { resourceUrl: $("resource-url").value.trim(), httpMethod: $("resource-method").value, title: $("resource-title").value.trim(), scheme: $("resource-scheme").value };
  const description = $("resource-description").value.trim();
  if (description) resource.description = description;
  say("resources-status", "Sign the resource registration in your wallet…");
  const signed = await resourceChallenge("resources", "resource:register");
  const body = await call("resources", "POST", "/resources/register", { wallet: wallet(), ...signed, resource });
  const probe = body.probe || {};
  const entry = { id: body.id, resourceUrl: body.resourceUrl || resource.resourceUrl, httpMethod: resource.httpMethod, title: resource.title, scheme: resource.scheme,
    listingOptIn: body.listingOptIn !== false, retired: false, lastProbeOk: probe.ok === true, lastProbeAt: new Date().toISOString(), lastProbeStatus: probe.httpStatus, lastProbeError: probe.error,
    listed: undefined };
  resourceCache.set(entry.id, entry);
  upsertCard(entry);
  say("resources-status", body.note || ("Registered resource #" + body.id + "."), probe.ok ? "ok" : "bad");
}
async function probeResource(entry) {
  say("resources-status", "Sign the probe request in your wallet…");
  const signed = await resourceChallenge("resources", "resource:probe");
  const body = await call("resources", "POST", "/resources/probe", { wallet: wallet(), ...signed, id: entry.id });
  const updated = { ...entry, lastProbeOk: body.ok === true, lastProbeStatus: body.httpStatus, lastProbeError: body.error, lastProbeAt: new Date().toISOString(), listed: body.listed === true };
  resourceCache.set(entry.id, updated);
  upsertCard(updated);
  say("resources-status", "Probe of #" + entry.id + ": " + (body.ok ? "HTTP 402, valid" : "failed (" + (body.error || "HTTP " + body.httpStatus) + ")") + (body.listed ? "; listed." : "; not listed."), body.ok ? "ok" : "bad");
}
async function retireResource(entry) {
  say("resources-status", "Sign the retirement in your wallet…");
  const signed = await resourceChallenge("resources", "resource:retire");
  const body = await call("resources", "POST", "/resources/retire", { wallet: wallet(), ...signed, id: entry.id });
  const updated = { ...entry, retired: true, listed: false };
  upsertCard(updated);
  say("resources-status", body.note || "Retired.", "ok");
}

// ---- Money ----
function nextCronRun(expression, now) {
  const match = /^[*][/]([0-9]+) [*] [*] [*] [*]$/.exec(expression);
  if (!match) return null;
  const step = Number(match[1]);
  const next = new Date(now.getTime());
  next.setUTCSeconds(0, 0);
  next.setUTCMinutes((Math.floor(next.getUTCMinutes() / step) + 1) * step);
  return next;
}
async function refreshBalance() {
  const asset = assetInfo();
  const [snap, health] = await Promise.all([call("money", "GET", snapshotPath(asset)), call("money", "GET", "/health").catch(() => null)]);
  // pr402's snapshot writes amounts as JSON integers with *Decimal strings beside them; older answers use strings.
  const amount = (name) => { const v = snap[name + "Decimal"] ?? snap[name]; return v === null || v === undefined ? null : String(v); };
  const raw = asset.native ? amount("spendableLamports") : amount("splAmountRaw");
  const decimals = asset.native ? 9 : (snap.splDecimals ?? asset.decimals);
  const rows = [["Vault", snap.splitVaultPda], ["Vault balance", snap.vaultExists ? units(raw ?? "0", decimals, asset.symbol) : "no vault yet (activate first)"]];
  if (!asset.native) rows.push(["Spendable SOL in vault", units(amount("spendableLamports") ?? "0", 9, "SOL")]);
  const next = nextCronRun(SWEEP_CRON, new Date());
  const when = next ? "at the next sweep run, " + next.toISOString().slice(11, 16) + " UTC (every " + SWEEP_CRON.split(" ")[0].slice(2) + " minutes)" : "at the next sweep run (" + SWEEP_CRON + ")";
  const missing = snap.sweepBlockedReason === "seller_token_account_missing" || snap.sellerSplAtaExists === false;
  if (snap.vaultExists && raw && BigInt(raw) > 0n) {
    const quote = await call("money", "GET", "/fee-quote?wallet=" + wallet() + "&asset=" + encodeURIComponent(asset.param) + "&amount=" + raw + "&scheme=exact");
    rows.push(["Next sweep pays you", units(quote.sellerNets, decimals, asset.symbol) + " (fee " + units(quote.protocolFee, decimals, asset.symbol) + " at " + pct(quote.feeBps) + ", " + quote.tier + ")"]);
    rows.push(["When", missing ? "not until you create your own " + asset.symbol + " token account (sweeps never create it)" : when + ", if the balance is at or above the operator's sweep threshold"]);
  } else {
    rows.push(["Next sweep", "nothing to pay yet"]);
  }
  const jobs = health && health.settlementKeeper && health.settlementKeeper.jobs;
  const last = health && ((jobs && jobs.sweep) || health.lastSweepRun);
  if (last && last.at) rows.push(["Last sweep run", last.at + " · " + (last.outcome || "") + (last.succeeded !== undefined ? " · " + last.succeeded + " swept" : last.detail ? " · " + last.detail : "")]);
  $("balance").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })]));
  say("money-status", "Balance read from the chain at " + new Date().toISOString().slice(11, 19) + " UTC.", "ok");
}
function decimalsOfMint(mint) {
  const asset = state.assets.find((a) => a.mint === mint);
  return asset ? [asset.decimals, asset.symbol] : [0, "base units of " + short(mint)];
}
async function loadPayments() {
  say("money-status", "Sign the payment-history request in your wallet…");
  const signed = await sellerChallenge("money", "seller:payments");
  const body = await call("money", "POST", "/seller/payments", { wallet: wallet(), ...signed, limit: 25 });
  const entries = body.entries || [];
  const settled = entries.filter((e) => e.kind === "settle");
  $("payments").tBodies[0].replaceChildren(...(settled.length === 0 ? [el("tr", {}, el("td", { colspan: "6", text: "No settlements yet." }))] : settled.map((e) => {
    const [decimals, symbol] = decimalsOfMint(e.asset);
    const tx = e.signature ? el("a", { href: API + "/settlements/" + e.signature, text: short(e.signature) }) : el("span", { text: "—" });
    return el("tr", {}, el("td", { text: String(e.startedAt || "").replace("T", " ").slice(0, 19) }), el("td", { text: e.scheme || "" }),
      el("td", { class: e.outcome === "settled" ? "ok" : "bad", text: e.outcome + (e.reason ? " (" + e.reason + ")" : "") }),
      el("td", { text: e.amount ? units(e.amount, decimals, symbol) : "" }), el("td", { text: short(e.payer || "") }), el("td", {}, tx));
  })));
  const kind = state.supported && (state.supported.kinds || []).find((k) => k.scheme === "sla-escrow");
  const cutoff = Number(kind && kind.extra && kind.extra.deliveryCutoffSeconds) || 0;
  const escrow = settled.filter((e) => e.scheme === "sla-escrow" && e.outcome === "settled");
  $("escrow").replaceChildren(...(escrow.length === 0 ? [el("li", { text: "None: no escrow payment is waiting for your delivery." })] : escrow.map((e) => {
    const [decimals, symbol] = decimalsOfMint(e.asset);
    const due = cutoff ? new Date(Date.parse(e.startedAt) + cutoff * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC (the default cutoff; a payment may set its own)" : "before the payment's delivery cutoff";
    return el("li", { text: units(e.amount, decimals, symbol) + " from " + short(e.payer) + ": deliver, then submit delivery (POST " + API + "/build-sla-escrow-submit-delivery-tx) by " + due + "." });
  })));
  say("money-status", settled.length + " settlement(s) in the latest " + entries.length + " payment attempts.", "ok");
}

// ---- Start ----
async function loadDeployment() {
  const [health, supported, semantics] = await Promise.all([
    call("preview", "GET", "/health").catch(() => null),
    call("preview", "GET", "/supported").catch(() => null),
    fetch("/agent-payTo-semantics.json").then((r) => r.json()).catch(() => null),
  ]);
  state.supported = supported;
  if (health) {
    state.chain = health.solanaNetwork === "mainnet" ? "solana:mainnet" : health.solanaNetwork === "testnet" ? "solana:testnet" : "solana:devnet";
    state.walletRpcUrl = health.solanaWalletRpcUrl || null;
  }
  const mints = (semantics && semantics.mintAllowlist && semantics.mintAllowlist.mints) || [];
  state.assets = mints.map((m) => {
    const native = m.symbol === "SOL" || m.mint === "11111111111111111111111111111111";
    return { param: native ? "SOL" : ["USDC", "USDT"].includes(m.symbol) ? m.symbol : m.mint, symbol: m.symbol || short(m.mint), decimals: Number(m.decimals), mint: native ? null : m.mint, native };
  });
  if (state.assets.length > 0) {
    const wanted = new URLSearchParams(location.search).get("asset") || "USDC";
    $("asset").replaceChildren(...state.assets.map((a) => el("option", { value: a.param, text: a.symbol + (a.native ? " (native)" : "") })));
    $("asset").value = state.assets.some((a) => a.param === wanted) ? wanted : state.assets[0].param;
  }
}
document.addEventListener("DOMContentLoaded", () => {
  renderWallets();
  $("disconnect").addEventListener("click", disconnect);
  $("service-url").addEventListener("input", showManifest);
  $("preview-refresh").addEventListener("click", () => guarded("next-step", refreshPreview));
  $("create-token-account").addEventListener("click", () => guarded("next-step", createTokenAccount));
  $("activate").addEventListener("click", () => guarded("activate-status", activate));
  $("register-form").addEventListener("submit", (event) => guarded("register-status", () => registerSeller(event)));
  $("retire").addEventListener("click", () => guarded("register-status", retireSeller));
  $("resource-form").addEventListener("submit", (event) => guarded("resources-status", () => registerResource(event)));
  $("resources-load").addEventListener("click", () => guarded("resources-status", listResources));
  $("balance-refresh").addEventListener("click", () => guarded("money-status", refreshBalance));
  $("payments-load").addEventListener("click", () => guarded("money-status", loadPayments));
  loadDeployment().catch((error) => say("wallet-status", "Could not read this deployment: " + error.message, "bad"));
});
`;

export const CONSOLE_JS = SCRIPT.replace("@@SWEEP_CRON@@", SWEEP_CRON);
