/**
 * The browser wallet. Wallets are found with the Wallet Standard's discovery handshake, done by hand (a few lines,
 * no dependency): the page listens for `wallet-standard:register-wallet` (a wallet's detail is a callback taking
 * `{register}`) and announces itself with `wallet-standard:app-ready` (detail `{register}`), so wallets that loaded
 * before or after the page are both found. It needs `standard:connect`, `solana:signMessage`, and
 * `solana:signAndSendTransaction` (preferred on a public cluster, the wallet sends through its own RPC) or
 * `solana:signTransaction` (the page then sends to the deployment's public wallet RPC URL from /health, which the
 * console's CSP allows). On the local chain (that RPC on loopback) the page always sends itself: a wallet's own RPC is
 * the real cluster of the same name, which has never seen the local chain's accounts.
 */
import { base58Encode, toBase64 } from "../base58";
import { byId, el } from "../dom";
import { isLoopbackUrl } from "../explorer";
import { call, say } from "./calls";
import { connectedWallet, type StandardWallet, state, walletAddress } from "./state";

const REQUIRED = ["standard:connect", "solana:signMessage"] as const;
const CONFIRMATION_TIMEOUT_MS = 90_000;
const CONFIRMATION_POLL_MS = 1_000;

export function missingFeatures(wallet: StandardWallet): string[] {
  const features = wallet.features ?? {};
  const missing: string[] = REQUIRED.filter((name) => !features[name]);
  if (!features["solana:signAndSendTransaction"] && !features["solana:signTransaction"])
    missing.push("solana:signAndSendTransaction or solana:signTransaction");
  return missing;
}

let onChoose: (wallet: StandardWallet) => void = () => undefined;

/** Starts the handshake; `choose` runs when the person picks a usable wallet. */
export function discoverWallets(choose: (wallet: StandardWallet) => void): void {
  onChoose = choose;
  const register = (...wallets: StandardWallet[]) => {
    for (const wallet of wallets) if (wallet && !state.wallets.includes(wallet)) state.wallets.push(wallet);
    renderWallets();
    return () => {
      state.wallets = state.wallets.filter((w) => !wallets.includes(w));
      renderWallets();
    };
  };
  const appApi = Object.freeze({ register });
  window.addEventListener("wallet-standard:register-wallet", (event) => {
    try {
      (event as CustomEvent<(api: typeof appApi) => void>).detail(appApi);
    } catch (error) {
      console.error(error);
    }
  });
  window.dispatchEvent(new CustomEvent("wallet-standard:app-ready", { detail: appApi }));
}

export function renderWallets(): void {
  const list = document.getElementById("wallets");
  if (!list) return;
  list.replaceChildren(
    ...state.wallets.map((wallet) => {
      const missing = missingFeatures(wallet);
      const ok = missing.length === 0;
      const button = el("button", {
        type: "button",
        text: ok ? "Connect " + wallet.name : wallet.name + " (cannot be used here: lacks " + missing.join(", ") + ")",
      }) as HTMLButtonElement;
      button.disabled = !ok;
      button.addEventListener("click", () => onChoose(wallet));
      return el("li", {}, button);
    }),
  );
  if (!state.account) {
    say(
      "wallet-status",
      state.wallets.length === 0
        ? "No Wallet Standard wallet found. Install or unlock a Solana wallet extension (Phantom, Solflare, " +
            "Backpack…) and reload."
        : "Choose a wallet to connect.",
    );
  }
}

/** A wallet challenge of the API, signed by the wallet: what the signed routes take as `{message, signature}`. */
async function signChallenge(
  section: string,
  challengePath: string,
  terms?: Record<string, unknown>,
): Promise<{ message: string; signature: string }> {
  const challenge = await call<{ message: string }>(section, terms ? "POST" : "GET", challengePath, terms);
  const { wallet, account } = connectedWallet();
  const signMessage = wallet.features?.["solana:signMessage"];
  if (!signMessage) throw new Error(wallet.name + " cannot sign messages");
  const [signed] = await signMessage.signMessage({ account, message: new TextEncoder().encode(challenge.message) });
  if (!signed) throw new Error("the wallet returned no signature");
  return { message: challenge.message, signature: base58Encode(signed.signature) };
}
export const sellerChallenge = (section: string, action: string) =>
  signChallenge(section, "/sellers/" + walletAddress() + "/challenge?action=" + encodeURIComponent(action));
/** A seller:register challenge issued for these registration terms (its message names them). */
export const registerChallenge = (section: string, terms: Record<string, unknown>) =>
  signChallenge(section, "/sellers/" + walletAddress() + "/register/challenge", terms);
export const resourceChallenge = (section: string, action: string) =>
  signChallenge(
    section,
    "/resources/register/challenge?wallet=" + walletAddress() + "&action=" + encodeURIComponent(action),
  );

/** One JSON-RPC call to the deployment's public wallet RPC (shown like every other call). */
export async function rpc<T>(section: string, method: string, params: unknown[]): Promise<T> {
  if (!state.walletRpcUrl) throw new Error("this deployment names no public wallet RPC URL");
  const body = await call<{ result: T; error?: { message: string } }>(section, "POST", state.walletRpcUrl, {
    jsonrpc: "2.0",
    id: 1,
    method,
    params,
  });
  if (body.error) throw new Error("RPC " + method + ": " + body.error.message);
  return body.result;
}

/**
 * Has the wallet sign and send a transaction (or sign it, and the page sends it to the wallet RPC); its signature.
 * On the local chain only the page can reach the chain, so the wallet only signs.
 */
export async function sendSigned(transaction: Uint8Array, section: string): Promise<string> {
  const { wallet, account } = connectedWallet();
  const features = wallet.features ?? {};
  const localChain = isLoopbackUrl(state.walletRpcUrl);
  const signAndSend = features["solana:signAndSendTransaction"];
  if (signAndSend && !localChain) {
    const [result] = await signAndSend.signAndSendTransaction({
      account,
      transaction,
      chain: state.chain,
      options: { preflightCommitment: "confirmed" },
    });
    if (!result) throw new Error("the wallet returned no signature");
    return base58Encode(result.signature);
  }
  const sign = features["solana:signTransaction"];
  if (!sign && localChain)
    throw new Error(
      wallet.name +
        " can only sign and send through its own RPC, which is the real " +
        state.cluster +
        ", not this local chain (" +
        state.walletRpcUrl +
        "): nothing was sent. Use a wallet that lets the page send (solana:signTransaction), or a deployment on a " +
        "public cluster.",
    );
  if (!sign) throw new Error(wallet.name + " cannot sign transactions");
  const [result] = await sign.signTransaction({ account, transaction, chain: state.chain });
  if (!result) throw new Error("the wallet returned no signed transaction");
  if (!state.walletRpcUrl)
    throw new Error("this deployment names no public wallet RPC URL; use a wallet that can sign and send");
  const sent = await call<{ result: string; error?: { message: string } }>(section, "POST", state.walletRpcUrl, {
    jsonrpc: "2.0",
    id: 1,
    method: "sendTransaction",
    params: [toBase64(result.signedTransaction), { encoding: "base64", preflightCommitment: "confirmed" }],
  });
  if (sent.error) throw new Error("the RPC refused the transaction: " + sent.error.message);
  return sent.result;
}

interface SignatureStatus {
  err: unknown;
  confirmationStatus?: string;
}

/**
 * Follows a sent transaction to "confirmed" with getSignatureStatuses on the deployment's wallet RPC (the calls are
 * shown like every other); a transaction that failed on chain, or is not seen within 90 s, is an error.
 */
export async function confirmed(
  section: string,
  signature: string,
  progress?: (seconds: number) => void,
): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < CONFIRMATION_TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, CONFIRMATION_POLL_MS));
    const result = await rpc<{ value?: (SignatureStatus | null)[] }>(section, "getSignatureStatuses", [[signature]]);
    const status = result?.value?.[0];
    if (status?.err)
      throw new Error("the transaction " + signature + " failed on chain: " + JSON.stringify(status.err));
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) return;
    if (progress) progress(Math.round((Date.now() - started) / 1000));
  }
  throw new Error(
    "not confirmed within 90 s (transaction " + signature + "); its blockhash may have expired: try again",
  );
}

/** The address line and the wallet list, after a connect or a disconnect. */
export function showConnected(connected: boolean): void {
  byId("address").textContent = state.account?.address ?? "";
  byId("account").hidden = !connected;
  byId("wallets").hidden = connected;
}
