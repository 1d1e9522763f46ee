/**
 * Where a person looks at a transaction. On a public cluster, the Solana Explorer with that cluster selected (its
 * default is mainnet-beta; devnet and testnet need `?cluster=`). On the local chain (`npm start`: the wallet RPC is
 * on loopback), no public explorer can see the transaction, so the link opens our own read-only view, /console/tx,
 * which reads it from that RPC in the browser. Pure.
 */

/** What /health says about the chain: `solanaNetwork` and `solanaWalletRpcUrl`. */
export interface ChainView {
  cluster: string;
  walletRpcUrl: string | null;
}

export const LOCAL_TRANSACTION_VIEW = "/console/tx";
const EXPLORER = "https://explorer.solana.com/tx/";

export function transactionHref(signature: string, chain: ChainView): string {
  if (isLoopbackUrl(chain.walletRpcUrl)) return LOCAL_TRANSACTION_VIEW + "?signature=" + encodeURIComponent(signature);
  const tx = EXPLORER + encodeURIComponent(signature);
  return chain.cluster === "mainnet" ? tx : tx + "?cluster=" + encodeURIComponent(chain.cluster);
}

/** 127.0.0.0/8, localhost and [::1]: a chain only this machine can reach. */
export function isLoopbackUrl(url: string | null): boolean {
  if (!url) return false;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
