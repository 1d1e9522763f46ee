/**
 * The script of the seller console (GET /console), served as /assets/console.js: a person with a Wallet Standard
 * browser wallet previews, activates and registers a seller wallet, manages its resources and watches its money.
 * Every action prints the exact HTTP call it made (console/calls.ts).
 */

import { call, guarded, say } from "./console/calls";
import { loadPayments, refreshBalance } from "./console/money";
import {
  activate,
  createTokenAccount,
  refreshPreview,
  registerSeller,
  retireSeller,
  showPreviewSteps,
} from "./console/onboarding";
import { listResources, registerResource, showManifest } from "./console/resources";
import { type StandardWallet, type Supported, short, state } from "./console/state";
import { applyStepStates } from "./console/steps";
import { discoverWallets, renderWallets, showConnected } from "./console/wallet";
import { byId, el, errorMessage } from "./dom";
import { parseKnownAssets } from "./known-assets";

/** The sweep's Cron Trigger: `npm run build:pages` writes src/jobs/scheduled.ts's RAIL_JOBS_CRON here. */
const SWEEP_CRON = "@@SWEEP_CRON@@";

async function connect(wallet: StandardWallet): Promise<void> {
  try {
    const connectFeature = wallet.features?.["standard:connect"];
    if (!connectFeature) throw new Error(wallet.name + " cannot connect");
    const result = await connectFeature.connect();
    const accounts = (result?.accounts?.length ? result.accounts : wallet.accounts) ?? [];
    const account = accounts[0];
    if (!account) throw new Error("the wallet returned no account");
    state.wallet = wallet;
    state.account = account;
    showConnected(true);
    say("wallet-status", "Connected to " + wallet.name + ".", "ok");
    applyStepStates();
    showManifest();
    try {
      await refreshPreview();
    } finally {
      applyStepStates();
    }
  } catch (error) {
    say("wallet-status", "Could not connect: " + errorMessage(error), "bad");
  }
}

function disconnect(): void {
  const feature = state.wallet?.features?.["standard:disconnect"];
  if (feature) feature.disconnect().catch(() => undefined);
  state.wallet = null;
  state.account = null;
  state.preview = null;
  showConnected(false);
  applyStepStates();
  renderWallets();
}

async function loadDeployment(): Promise<void> {
  const [health, supported, semantics] = await Promise.all([
    call<{ solanaNetwork?: string; solanaWalletRpcUrl?: string }>("preview", "GET", "/health").catch(() => null),
    call<Supported>("preview", "GET", "/supported").catch(() => null),
    fetch("/agent-payTo-semantics.json")
      .then((r) => r.json())
      .catch(() => null),
  ]);
  state.supported = supported;
  const forms = supported?.kinds?.find((kind) => kind.scheme === "exact")?.extra?.payToForms;
  state.payToForms = Array.isArray(forms) ? forms.filter((form): form is string => typeof form === "string") : [];
  // The choice is offered only where both forms run; the vault stays selected, as the API's default.
  byId("pay-to-form-field").hidden = !(state.payToForms.includes("vault") && state.payToForms.includes("wallet"));
  if (health) {
    state.cluster = health.solanaNetwork ?? "devnet";
    state.chain =
      health.solanaNetwork === "mainnet"
        ? "solana:mainnet"
        : health.solanaNetwork === "testnet"
          ? "solana:testnet"
          : "solana:devnet";
    state.walletRpcUrl = health.solanaWalletRpcUrl || null;
  }
  state.assets = parseKnownAssets(semantics).map((a) => ({
    param: a.native ? "SOL" : ["USDC", "USDT"].includes(a.symbol) ? a.symbol : a.mint,
    symbol: a.symbol === a.mint ? short(a.mint) : a.symbol,
    decimals: a.decimals,
    mint: a.native ? null : a.mint,
    native: a.native,
  }));
  if (state.assets.length > 0) {
    const select = byId<HTMLSelectElement>("asset");
    const wanted = new URLSearchParams(location.search).get("asset") || "USDC";
    select.replaceChildren(
      ...state.assets.map((a) => el("option", { value: a.param, text: a.symbol + (a.native ? " (native)" : "") })),
    );
    select.value = state.assets.some((a) => a.param === wanted) ? wanted : state.assets[0]!.param;
  }
}

// The handshake starts at once: a wallet that registered before the page announces itself answers app-ready.
discoverWallets((wallet) => void connect(wallet));

document.addEventListener("DOMContentLoaded", () => {
  renderWallets();
  byId("disconnect").addEventListener("click", disconnect);
  byId("service-url").addEventListener("input", showManifest);
  byId("pay-to-form").addEventListener("change", () => {
    showPreviewSteps();
    applyStepStates();
  });
  byId("preview-refresh").addEventListener("click", () => guarded("next-step", refreshPreview));
  byId("create-token-account").addEventListener("click", () => guarded("next-step", createTokenAccount));
  byId("activate").addEventListener("click", () => guarded("activate-status", activate));
  byId("register-form").addEventListener("submit", (event) => guarded("register-status", () => registerSeller(event)));
  byId("retire").addEventListener("click", () => guarded("register-status", retireSeller));
  byId("resource-form").addEventListener("submit", (event) =>
    guarded("resources-status", () => registerResource(event)),
  );
  byId("resources-load").addEventListener("click", () => guarded("resources-status", listResources));
  byId("balance-refresh").addEventListener("click", () => guarded("money-status", () => refreshBalance(SWEEP_CRON)));
  byId("payments-load").addEventListener("click", () => guarded("money-status", loadPayments));
  loadDeployment().catch((error: unknown) =>
    say("wallet-status", "Could not read this deployment: " + errorMessage(error), "bad"),
  );
});
