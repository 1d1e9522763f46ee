/**
 * The seller console at GET /console: a person with a Wallet Standard browser wallet (Phantom, Solflare, Backpack, …)
 * previews, activates and registers a seller wallet, manages its resources and watches its money, with no SDK. Static
 * HTML and CSS; the script is src/page/browser/console.ts (served by src/page/console-js.ts). Every action prints the exact HTTP call it made.
 */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Seller console · x402 Solana facilitator</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the console</a>
<header>
  <p class="crumbs"><a href="/">x402 Solana facilitator</a> › Seller console</p>
  <h1>Seller console</h1>
  <p>Sell your HTTP API for x402 payments with the wallet you already have. Your wallet signs every step; this page never
  sees a key. Each step shows the exact HTTP call it made, so you can do the same from code.</p>
</header>
<main id="main">
  <section aria-labelledby="wallet-heading">
    <h2 id="wallet-heading">1. Wallet and asset</h2>
    <p id="wallet-status" role="status" aria-live="polite">Looking for browser wallets…</p>
    <ul id="wallets" class="buttons"></ul>
    <div id="account" hidden>
      <p>Connected: <code id="address" class="addr"></code> <button type="button" id="disconnect">Disconnect</button></p>
    </div>
    <p class="field"><label for="asset">Asset you are paid in</label>
    <select id="asset"><option value="USDC">USDC</option></select></p>
  </section>

  <section aria-labelledby="preview-heading">
    <h2 id="preview-heading">2. Your payment rails</h2>
    <button type="button" class="needs-wallet" id="preview-refresh" disabled>Show my rails</button>
    <p id="next-step" class="next" role="status" aria-live="polite"></p>
    <button type="button" class="needs-wallet" id="create-token-account" hidden>Create my USDC token account</button>
    <dl id="preview" class="facts"></dl>
    <div class="calls" id="preview-calls"></div>
  </section>

  <section aria-labelledby="activate-heading">
    <h2 id="activate-heading">3. Activate</h2>
    <p>Creates your vault (and its token account for the asset). You sign and pay the rent yourself (about 0.002 SOL),
    which gives you the lower, sovereign fee rate.</p>
    <button type="button" class="needs-wallet" id="activate" disabled>Activate with my wallet</button>
    <p id="activate-status" role="status" aria-live="polite"></p>
    <div class="calls" id="activate-calls"></div>
  </section>

  <section aria-labelledby="register-heading">
    <h2 id="register-heading">4. Verify (register)</h2>
    <p>Sign a one-time message to become a verified provider. The message names what you register (asset, how you are
    paid, your origin and listing), so only that can be registered with your signature. Listing puts your origin in the public directory.</p>
    <form id="register-form">
      <p class="field"><label for="service-url">Your API's origin (service URL)</label>
      <input id="service-url" name="serviceUrl" type="url" inputmode="url" placeholder="https://api.example.com" maxlength="2048"></p>
      <p class="field"><label for="display-name">Display name (optional)</label>
      <input id="display-name" name="displayName" maxlength="64"></p>
      <p class="field" id="pay-to-form-field" hidden><label for="pay-to-form">How buyers pay you (exact)</label>
      <select id="pay-to-form" name="payToForm"><option value="vault" selected>Into my vault, swept to my wallet (activate in step 3)</option><option value="wallet">Straight into my wallet's own token account (no vault, no sweep)</option></select></p>
      <p class="check"><input id="listing-opt-in" name="listingOptIn" type="checkbox" checked> <label for="listing-opt-in">List me in the public directory</label></p>
      <p class="buttons"><button type="submit" class="needs-wallet" id="register" disabled>Sign and register</button>
      <button type="button" class="needs-wallet secondary" id="retire" disabled>Sign and retire registration</button></p>
    </form>
    <p id="register-status" role="status" aria-live="polite"></p>
    <div class="calls" id="register-calls"></div>
  </section>

  <section aria-labelledby="resources-heading">
    <h2 id="resources-heading">5. Resources</h2>
    <p>Each paid URL on your origin. The facilitator probes it: it must answer HTTP 402 with a payment request that names the URL.
    First your origin proves it is yours: it serves <code id="manifest-url">/.well-known/x402-resources.json</code> naming your wallet:</p>
    <pre id="manifest-snippet" class="snippet" tabindex="0" aria-label="Manifest your origin serves">Connect a wallet to see it.</pre>
    <form id="resource-form">
      <p class="field"><label for="resource-url">Resource URL</label>
      <input id="resource-url" name="resourceUrl" type="url" inputmode="url" required maxlength="2048" placeholder="https://api.example.com/forecast"></p>
      <div class="row">
        <p class="field"><label for="resource-method">Method</label>
        <select id="resource-method" name="httpMethod"><option>GET</option><option>POST</option><option>PUT</option><option>PATCH</option><option>DELETE</option></select></p>
        <p class="field"><label for="resource-scheme">Scheme</label>
        <select id="resource-scheme" name="scheme"><option value="exact">exact (instant)</option><option value="sla-escrow">sla-escrow (held until delivery)</option></select></p>
      </div>
      <p class="field"><label for="resource-title">Title</label>
      <input id="resource-title" name="title" required maxlength="64"></p>
      <p class="field"><label for="resource-description">Description (optional)</label>
      <input id="resource-description" name="description" maxlength="280"></p>
      <p class="buttons"><button type="submit" class="needs-wallet" id="resource-register" disabled>Sign and register resource</button>
      <button type="button" class="needs-wallet secondary" id="resources-load" disabled>Sign and list my resources</button></p>
    </form>
    <p id="resources-status" role="status" aria-live="polite"></p>
    <ul id="resources" class="cards"></ul>
    <div class="calls" id="resources-calls"></div>
  </section>

  <section aria-labelledby="money-heading">
    <h2 id="money-heading">6. Money</h2>
    <p class="buttons"><button type="button" class="needs-wallet" id="balance-refresh" disabled>Vault balance and next sweep</button>
    <button type="button" class="needs-wallet secondary" id="payments-load" disabled>Sign and show recent payments</button></p>
    <p id="money-status" role="status" aria-live="polite"></p>
    <dl id="balance" class="facts"></dl>
    <h3 id="payments-heading">Recent settlements</h3>
    <div class="scroll" role="region" aria-labelledby="payments-heading" tabindex="0">
      <table id="payments"><thead><tr><th scope="col">When</th><th scope="col">Scheme</th><th scope="col">Outcome</th><th scope="col">Amount</th><th scope="col">Payer</th><th scope="col">Transaction</th></tr></thead><tbody></tbody></table>
    </div>
    <h3>Escrow payments waiting on you</h3>
    <ul id="escrow"><li>Show recent payments to see them.</li></ul>
    <div class="calls" id="money-calls"></div>
  </section>
</main>
<footer><p><a href="/seller-quick-start.md">Seller quick start</a> · <a href="/onboarding_guide.md">Onboarding guide</a> · <a href="/openapi.json">OpenAPI</a></p></footer>
</body>
</html>
`;

export const CONSOLE_CSS = `[hidden]{display:none!important}:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5;--muted:#57606a;--ok:#116329;--bad:#a40e26;--line:#d0d7de}
@media (prefers-color-scheme:dark){:root{--muted:#9da7b3;--ok:#4ac26b;--bad:#ff8182;--line:#444c56}}
body{max-width:52rem;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.2rem;margin-top:2rem;border-top:1px solid var(--line);padding-top:1rem}h3{font-size:1rem}
.crumbs{margin:0;color:var(--muted)}.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem}
a{color:LinkText}:focus-visible{outline:3px solid Highlight;outline-offset:2px}
code,.addr{font-size:.9em}p,li,dd,summary{overflow-wrap:anywhere}
button{padding:.5rem .9rem;min-height:2.5rem;font:inherit;cursor:pointer}button[disabled]{cursor:not-allowed}
input,select{font:inherit;padding:.4rem;min-height:2.5rem;box-sizing:border-box;max-width:100%}
input[type=url],input:not([type]){width:100%}
.field{display:flex;flex-direction:column;gap:.2rem;margin:.6rem 0}.check{margin:.6rem 0}
.row{display:flex;flex-wrap:wrap;gap:1rem}
.buttons{display:flex;flex-wrap:wrap;gap:.5rem;padding:0;list-style:none}
.facts{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.3rem 1rem}.facts dt{font-weight:600}.facts dd{margin:0;overflow-wrap:anywhere}
.next{font-weight:600}
.ok{color:var(--ok)}.bad{color:var(--bad)}.muted{color:var(--muted)}
.cards{list-style:none;padding:0}.cards>li{border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem;margin:.6rem 0}
.gates{margin:.4rem 0;padding-left:1.2rem}.gates li{margin:.15rem 0}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9em}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);white-space:nowrap}
.snippet{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid var(--line);padding:.5rem;border-radius:4px}
.calls details{margin:.4rem 0;font-size:.85em}.calls summary{cursor:pointer;color:var(--muted)}
.calls pre{white-space:pre-wrap;overflow-wrap:anywhere;background:color-mix(in srgb,CanvasText 6%,Canvas);padding:.5rem;border-radius:4px;margin:.3rem 0}
footer{margin:2.5rem 0 1rem;color:var(--muted)}
@media (max-width:30rem){body{margin:.8rem auto}.facts{grid-template-columns:1fr}.facts dd{margin-bottom:.4rem}}
@media (max-width:40rem){#payments thead{position:absolute;left:-999px}#payments tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}#payments td{display:flex;gap:.6rem;border:0;white-space:normal;padding:.1rem 0}#payments td[data-label]::before{content:attr(data-label);font-weight:600;min-width:6.5rem}}
`;

/**
 * The home page's policy, plus the deployment's public wallet RPC origin in connect-src: a wallet that can only sign
 * (no `solana:signAndSendTransaction`) has its activation sent there by the page. Nothing else leaves the origin.
 */
export function consoleCsp(walletRpcUrl: string): string {
  let rpcOrigin = "";
  try {
    const url = new URL(walletRpcUrl);
    if (url.protocol === "https:" || url.protocol === "http:") rpcOrigin = " " + url.origin;
  } catch {
    // no usable wallet RPC URL: same-origin only
  }
  return `default-src 'self'; connect-src 'self'${rpcOrigin}; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}
