/**
 * The page for people at GET / (browsers): what this facilitator is, live status, schemes and fees, and a search over
 * the public resource directory. The HTML is served by the Worker (the same path answers API clients with JSON); its
 * script (bundled from src/page/browser/home.ts) and styles are files of static/, so the CSP can be 'self' only.
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
  <p>Verifies and settles <a href="https://github.com/coinbase/x402">x402 v2</a> payments on Solana for paid HTTP APIs
  and AI agents:
  instant split-vault payments (<code>exact</code>), time-bound escrow with an oracle verdict (<code>sla-escrow</code>)
  and
  pay-per-use payment channels (<code>upto</code>).
  Buyers sign locally; this service never holds a buyer's key.</p>
  <p><a class="cta" href="/console">Sell your API: open the seller console</a> (connect a browser wallet, activate,
  register, watch payments)</p>
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
    <p class="pager"><button type="button" id="listing-prev" disabled>Previous</button> <span id="listing-page"></span>
    <button type="button" id="listing-next" disabled>Next</button></p>
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
      <li><a href="/console">Seller console</a> (browser wallet, no SDK) · <a href="/seller-quick-start.md">Seller
      guide</a> · <a href="/onboarding_guide.md">Onboarding guide</a></li>
      <li><a href="/quickstart-buyer.md">Buyer guide</a> (build, sign, pay: no SDK needed)</li>
      <li><a href="/agent-integration.md">Agent integration</a> · <a href="/agent-tools.json">Agent tools</a> · <a
      href="/openapi.json">OpenAPI</a></li>
      <li><a href="/api/v1/facilitator/capabilities">Capabilities (JSON)</a></li>
    </ul>
  </section>
</main>
</body>
</html>
`;
