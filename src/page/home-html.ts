/**
 * The page for people at GET / (browsers): what this facilitator is, live status, schemes and fees, and a search over
 * the public resource directory. Static HTML; the script and styles are separate files so the CSP can be 'self' only.
 */
export const HOME_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>x402 Solana facilitator</title>
<link rel="stylesheet" href="/assets/home.css">
<link rel="service-desc" href="/openapi.json">
<script src="/assets/home.js" defer></script>
</head>
<body>
<header>
  <h1>x402 Solana facilitator</h1>
  <p>Verifies and settles <a href="https://github.com/coinbase/x402">x402 v2</a> payments on Solana for paid HTTP APIs and AI agents:
  instant split-vault payments (<code>exact</code>) and time-bound escrow with an oracle verdict (<code>sla-escrow</code>).
  Buyers sign locally; this service never holds a buyer's key.</p>
  <p><a class="cta" href="/console">Sell your API: open the seller console</a> (connect a browser wallet, activate, register, watch payments)</p>
</header>
<main>
  <section aria-labelledby="status-heading">
    <h2 id="status-heading">Status</h2>
    <p id="status" role="status" aria-live="polite">Checking…</p>
  </section>
  <section aria-labelledby="schemes-heading">
    <h2 id="schemes-heading">Schemes and fees</h2>
    <ul id="schemes"><li>Loading…</li></ul>
  </section>
  <section aria-labelledby="directory-heading">
    <h2 id="directory-heading">Directory</h2>
    <p id="stats" aria-live="polite">Loading…</p>
    <ol id="listing" class="listing"></ol>
    <p class="pager"><button type="button" id="listing-prev" disabled>Previous</button> <span id="listing-page"></span> <button type="button" id="listing-next" disabled>Next</button></p>
  </section>
  <section aria-labelledby="search-heading">
    <h2 id="search-heading">Find something to pay for</h2>
    <form id="search" role="search">
      <label for="q">Search the directory of live, payable resources</label>
      <input id="q" name="q" type="search" placeholder="weather, translation, …" required maxlength="200">
      <button type="submit">Search</button>
    </form>
    <ol id="results" aria-live="polite"></ol>
  </section>
  <section aria-labelledby="docs-heading">
    <h2 id="docs-heading">Integrate</h2>
    <ul>
      <li><a href="/console">Seller console</a> (browser wallet, no SDK) · <a href="/seller-quick-start.md">Seller quick start</a> · <a href="/onboarding_guide.md">Onboarding guide</a></li>
      <li><a href="/agent-integration.md">Agent integration</a> · <a href="/agent-tools.json">Agent tools</a> · <a href="/openapi.json">OpenAPI</a></li>
      <li><a href="/api/v1/facilitator/capabilities">Capabilities (JSON)</a></li>
    </ul>
  </section>
</main>
</body>
</html>
`;

export const HOME_CSS = `:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{max-width:46rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:1.8rem}
code{font-size:.95em}
#status.ok::before{content:"● ";color:#1a7f37}#status.warning::before,#status.error::before{content:"● ";color:#bf8700}
form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}label{flex-basis:100%}
input{flex:1;min-width:12rem;padding:.4rem}button{padding:.4rem .9rem}
#results li,.listing li{margin:.6rem 0}li,p{overflow-wrap:anywhere}.meta{color:GrayText;font-size:.9em}.price{font-weight:600}
.cta{font-weight:600}a{color:LinkText}:focus-visible{outline:3px solid Highlight;outline-offset:2px}
.pager{display:flex;gap:.5rem;align-items:center}
`;

export const HOME_JS = `"use strict";
const API = "/api/v1/facilitator";
const $ = (id) => document.getElementById(id);
const text = (tag, value, className) => { const el = document.createElement(tag); el.textContent = value; if (className) el.className = className; return el; };

async function getJson(path) {
  const response = await fetch(API + path, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
  return body;
}

async function showStatus() {
  const status = $("status");
  try {
    const health = await getJson("/health");
    status.className = health.status;
    status.textContent = (health.status === "ok" ? "Operational" : "Degraded") + " · " + health.solanaNetwork + " · slot " + (health.solanaSlot ?? "unknown") + " · RPC " + health.solanaRpc;
  } catch (error) {
    status.className = "error";
    status.textContent = "Status unavailable: " + error.message;
  }
}

/** Symbol and decimals per mint, from the live allowlist (/agent-payTo-semantics.json). */
const assets = new Map();
async function loadAssets() {
  try {
    const response = await fetch("/agent-payTo-semantics.json", { headers: { Accept: "application/json" } });
    const body = await response.json();
    for (const m of (body.mintAllowlist && body.mintAllowlist.mints) || []) assets.set(m.mint, { symbol: m.symbol, decimals: Number(m.decimals) });
  } catch { /* prices then show in base units */ }
}
const symbolInfo = (symbol) => { for (const a of assets.values()) if (a.symbol === symbol) return a; return null; };

/** Raw base units as a decimal amount of the asset ("10000" of USDC → "0.01 USDC"). */
function inUnits(raw, mintOrSymbol) {
  const info = assets.get(mintOrSymbol) || symbolInfo(mintOrSymbol);
  if (!info || !/^[0-9]+$/.test(String(raw))) return raw + " base units" + (info ? " of " + info.symbol : "");
  const value = BigInt(raw), base = 10n ** BigInt(info.decimals);
  const frac = (value % base).toString().padStart(info.decimals, "0").replace(/0+$/, "");
  return (value / base).toString() + (frac ? "." + frac : "") + " " + info.symbol;
}
const percent = (bps) => (Number(bps) / 100) + "%";

async function showSchemes() {
  const list = $("schemes");
  try {
    const supported = await getJson("/supported");
    list.replaceChildren(...supported.kinds.map((kind) => {
      const extra = kind.extra || {};
      const fee = kind.scheme === "sla-escrow"
        ? "held in escrow until delivery; fee " + percent(extra.feeBps) + " of the price on release, oracle tip " + percent(extra.oracleFeeBps) + " when an oracle gives a verdict; the buyer pays the network fee"
        : "paid instantly into the seller's vault; fee " + percent(extra.feeBps) + " of the price, at least " + inUnits(extra.minFeeAmount, "USDC") + (extra.minFeeAmountSol ? " (" + inUnits(extra.minFeeAmountSol, "SOL") + " for SOL)" : "") + ", lower for sellers who activate their own vault; the facilitator pays the network fee";
      const item = text("li", "");
      item.append(text("code", kind.scheme), document.createTextNode(" on " + kind.network + ": " + fee));
      return item;
    }));
  } catch (error) {
    list.replaceChildren(text("li", "Schemes unavailable: " + error.message));
  }
}

async function showStats() {
  try {
    const stats = await getJson("/directory/stats");
    const byScheme = Object.entries((stats.resources && stats.resources.byScheme) || {}).map(([scheme, n]) => n + " " + scheme).join(", ");
    $("stats").textContent = stats.providers.total + " listed provider" + (stats.providers.total === 1 ? "" : "s") + " · " + stats.resources.total + " listed resource" + (stats.resources.total === 1 ? "" : "s") + (byScheme ? " (" + byScheme + ")" : "");
  } catch (error) {
    $("stats").textContent = "Directory stats unavailable: " + error.message;
  }
}

/** The live price of a listed resource: the first line of the 402 its last passing probe saw. */
function priceOf(item) {
  const line = (item.accepts || [])[0];
  if (!line) return "price unknown";
  const amount = line.amount ?? line.maxAmountRequired;
  return amount === undefined ? line.scheme : inUnits(amount, line.asset) + " (" + line.scheme + ")";
}
const PAGE_SIZE = 10;
let listingOffset = 0;
async function showListing(offset) {
  const list = $("listing");
  try {
    const page = await getJson("/discovery/resources?" + new URLSearchParams({ type: "http", limit: String(PAGE_SIZE), offset: String(offset) }));
    listingOffset = offset;
    const total = (page.pagination && page.pagination.total) || 0;
    if (page.items.length === 0) list.replaceChildren(text("li", "Nothing listed yet. Sellers: list your API from the seller console."));
    else list.replaceChildren(...page.items.map((item) => {
      const meta = item.metadata || {};
      const li = text("li", "");
      const link = text("a", meta.title || item.resource);
      link.href = item.resource;
      link.rel = "nofollow noopener";
      li.append(link, document.createTextNode(" · "), text("span", priceOf(item), "price"));
      li.append(text("div", (meta.httpMethod || "GET") + " " + item.resource + (meta.category ? " · " + meta.category : "") + " · probed " + String(item.lastUpdated || "").slice(0, 16).replace("T", " "), "meta"));
      if (meta.description) li.append(text("div", meta.description));
      return li;
    }));
    list.start = offset + 1;
    $("listing-page").textContent = total === 0 ? "" : (offset + 1) + "–" + (offset + page.items.length) + " of " + total;
    $("listing-prev").disabled = offset === 0;
    $("listing-next").disabled = offset + page.items.length >= total;
  } catch (error) {
    list.replaceChildren(text("li", "Listing unavailable: " + error.message));
  }
}

async function search(event) {
  event.preventDefault();
  const results = $("results");
  const q = $("q").value.trim();
  if (!q) return;
  results.replaceChildren(text("li", "Searching…"));
  try {
    const page = await getJson("/resources?" + new URLSearchParams({ q, limit: "20" }));
    if (page.entries.length === 0) { results.replaceChildren(text("li", "No listed resource matches “" + q + "”.")); return; }
    results.replaceChildren(...page.entries.map((entry) => {
      const item = text("li", "");
      const link = text("a", entry.title);
      link.href = entry.resourceUrl;
      link.rel = "nofollow noopener";
      item.append(link, text("div", entry.httpMethod + " " + entry.resourceUrl + " · " + entry.scheme + (entry.category ? " · " + entry.category : ""), "meta"));
      if (entry.description) item.append(text("div", entry.description));
      return item;
    }));
  } catch (error) {
    results.replaceChildren(text("li", "Search failed: " + error.message));
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("search").addEventListener("submit", search);
  $("listing-prev").addEventListener("click", () => showListing(Math.max(0, listingOffset - PAGE_SIZE)));
  $("listing-next").addEventListener("click", () => showListing(listingOffset + PAGE_SIZE));
  showStatus();
  showStats();
  loadAssets().then(() => { showSchemes(); showListing(0); });
});
`;
