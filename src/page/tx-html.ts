/**
 * GET /console/tx?signature=…: a read-only view of one transaction, for the local chain of `npm start`, which no
 * public explorer can see (the console links here only when the deployment's wallet RPC is on loopback; on devnet and
 * mainnet it links the Solana Explorer). Static HTML; the script is src/page/browser/tx.ts, which reads the transaction
 * from the wallet RPC in the browser, so it is served under the console's CSP (connect-src: the wallet RPC origin).
 */
export const TRANSACTION_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Transaction · x402 Solana facilitator</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/tx.js" defer></script>
</head>
<body>
<header>
  <p class="crumbs"><a href="/">x402 Solana facilitator</a> › <a href="/console">Seller console</a> › Transaction</p>
  <h1>Transaction</h1>
  <p><code id="signature" class="addr"></code></p>
  <p id="status" role="status" aria-live="polite">Reading the transaction…</p>
</header>
<main>
  <section aria-labelledby="chain-heading">
    <h2 id="chain-heading">On chain</h2>
    <dl id="summary" class="facts"></dl>
    <h3 id="changes-heading">Balance changes</h3>
    <div class="scroll" role="region" aria-labelledby="changes-heading" tabindex="0">
      <table id="changes"><thead><tr><th scope="col">Change</th><th scope="col">Asset</th><th
      scope="col">Account</th></tr></thead><tbody></tbody></table>
    </div>
    <h3>Program log</h3>
    <pre id="logs" class="snippet" tabindex="0" aria-label="Program log"></pre>
  </section>
  <section aria-labelledby="record-heading">
    <h2 id="record-heading">The facilitator's record</h2>
    <dl id="record" class="facts"></dl>
    <p><a id="record-json" href="/api/v1/facilitator/settlements">The record as JSON</a></p>
  </section>
</main>
</body>
</html>
`;
