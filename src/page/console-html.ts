/**
 * The seller console at GET /console: a person with a Wallet Standard browser wallet (Phantom, Solflare, Backpack, …)
 * previews, activates and registers a seller wallet, manages its resources and watches its money, with no SDK. The
 * HTML is served by the Worker (its CSP names the deployment's wallet RPC); the script (bundled from
 * src/page/browser/console.ts) and static/assets/console.css are files of static/. Every action prints the exact HTTP
 * call it made.
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
  <p>Sell your HTTP API for x402 payments with the wallet you already have. Your wallet signs every step; this page
  never
  sees a key. Each step shows the exact HTTP call it made, so you can do the same from code.</p>
</header>
<main id="main">
  <section aria-labelledby="wallet-heading">
    <h2 id="wallet-heading">1. Wallet and asset</h2>
    <p id="wallet-status" role="status" aria-live="polite">Looking for browser wallets…</p>
    <ul id="wallets" class="buttons"></ul>
    <div id="account" hidden>
      <p>Connected: <code id="address" class="addr"></code> <button type="button"
      id="disconnect">Disconnect</button></p>
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
    paid, your origin and listing), so only that can be registered with your signature. Listing puts your origin in the
    public directory.</p>
    <form id="register-form">
      <p class="field"><label for="service-url">Your API's origin (service URL)</label>
      <input id="service-url" name="serviceUrl" type="url" inputmode="url" placeholder="https://api.example.com"
      maxlength="2048"></p>
      <p class="field"><label for="display-name">Display name (optional)</label>
      <input id="display-name" name="displayName" maxlength="64"></p>
      <p class="field" id="pay-to-form-field" hidden><label for="pay-to-form">How buyers pay you (exact)</label>
      <select id="pay-to-form" name="payToForm"><option value="vault" selected>Into my vault, swept to my wallet
      (activate in step 3)</option><option value="wallet">Straight into my wallet's own token account (no vault, no
      sweep)</option></select></p>
      <p class="check"><input id="listing-opt-in" name="listingOptIn" type="checkbox" checked> <label
      for="listing-opt-in">List me in the public directory</label></p>
      <p class="buttons"><button type="submit" class="needs-wallet" id="register" disabled>Sign and register</button>
      <button type="button" class="needs-wallet secondary" id="retire" disabled>Sign and retire
      registration</button></p>
    </form>
    <p id="register-status" role="status" aria-live="polite"></p>
    <div class="calls" id="register-calls"></div>
  </section>

  <section aria-labelledby="resources-heading">
    <h2 id="resources-heading">5. Resources</h2>
    <p>Each paid URL on your origin. The facilitator probes it: it must answer HTTP 402 with a payment request that
    names the URL.
    First your origin proves it is yours: it serves <code id="manifest-url">/.well-known/x402-resources.json</code>
    naming your wallet:</p>
    <pre id="manifest-snippet" class="snippet" tabindex="0"
    aria-label="Manifest your origin serves">Connect a wallet to see it.</pre>
    <form id="resource-form">
      <p class="field"><label for="resource-url">Resource URL</label>
      <input id="resource-url" name="resourceUrl" type="url" inputmode="url" required maxlength="2048"
      placeholder="https://api.example.com/forecast"></p>
      <div class="row">
        <p class="field"><label for="resource-method">Method</label>
        <select id="resource-method" name="httpMethod"><option>GET</option><option>POST</option><option>PUT</option>
        <option>PATCH</option><option>DELETE</option></select></p>
        <p class="field"><label for="resource-scheme">Scheme</label>
        <select id="resource-scheme" name="scheme">
      <option value="exact">exact (instant)</option><option value="sla-escrow">sla-escrow (held until delivery)</option>
        </select></p>
      </div>
      <p class="field"><label for="resource-title">Title</label>
      <input id="resource-title" name="title" required maxlength="64"></p>
      <p class="field"><label for="resource-description">Description (optional)</label>
      <input id="resource-description" name="description" maxlength="280"></p>
      <p class="buttons"><button type="submit" class="needs-wallet" id="resource-register" disabled>Sign and register
      resource</button>
      <button type="button" class="needs-wallet secondary" id="resources-load" disabled>Sign and list my
      resources</button></p>
    </form>
    <p id="resources-status" role="status" aria-live="polite"></p>
    <ul id="resources" class="cards"></ul>
    <div class="calls" id="resources-calls"></div>
  </section>

  <section aria-labelledby="money-heading">
    <h2 id="money-heading">6. Money</h2>
    <p class="buttons"><button type="button" class="needs-wallet" id="balance-refresh" disabled>Vault balance and next
    sweep</button>
    <button type="button" class="needs-wallet secondary" id="payments-load" disabled>Sign and show recent
    payments</button></p>
    <p id="money-status" role="status" aria-live="polite"></p>
    <dl id="balance" class="facts"></dl>
    <h3 id="payments-heading">Recent settlements</h3>
    <div class="scroll" role="region" aria-labelledby="payments-heading" tabindex="0">
      <table id="payments"><thead><tr><th scope="col">When</th><th scope="col">Scheme</th><th
      scope="col">Outcome</th><th scope="col">Amount</th><th scope="col">Payer</th><th
      scope="col">Transaction</th></tr></thead><tbody></tbody></table>
    </div>
    <h3>Escrow payments waiting on you</h3>
    <ul id="escrow"><li>Show recent payments to see them.</li></ul>
    <div class="calls" id="money-calls"></div>
  </section>
</main>
<footer><p><a href="/seller-quick-start.md">Seller quick start</a> · <a href="/onboarding_guide.md">Onboarding guide</a>
· <a href="/openapi.json">OpenAPI</a></p></footer>
</body>
</html>
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
  return (
    `default-src 'self'; connect-src ` +
    `'self'${rpcOrigin}; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`
  );
}
