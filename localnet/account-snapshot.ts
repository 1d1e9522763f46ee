/**
 * Lamport and token balances of a transaction's accounts, taken before and after execution, for
 * meta.preBalances / postBalances / preTokenBalances / postTokenBalances.
 */
import type { LocalChain } from "./local-chain";
import { readMint, readTokenAccount, uiTokenAmount } from "./token-accounts";
import type { TokenBalance } from "./transaction-ledger";

export interface AccountSnapshot {
  balances: bigint[];
  tokenBalances: TokenBalance[];
}

/** `programIndexes`: keys invoked as programs; only their lamports are read (their data is large). */
export function snapshotAccounts(
  chain: LocalChain,
  accountKeys: readonly string[],
  programIndexes: ReadonlySet<number>,
): AccountSnapshot {
  const balances: bigint[] = [];
  const tokenBalances: TokenBalance[] = [];
  const decimalsByMint = new Map<string, number | null>();
  accountKeys.forEach((key, accountIndex) => {
    if (programIndexes.has(accountIndex)) {
      balances.push(chain.getBalance(key));
      return;
    }
    const account = chain.getAccount(key);
    balances.push(account?.lamports ?? 0n);
    if (account === null) return;
    const tokenAccount = readTokenAccount(account.owner, account.data);
    if (tokenAccount === null) return;
    let decimals = decimalsByMint.get(tokenAccount.mint);
    if (decimals === undefined) {
      const mintAccount = chain.getAccount(tokenAccount.mint);
      decimals = mintAccount ? (readMint(mintAccount.owner, mintAccount.data)?.decimals ?? null) : null;
      decimalsByMint.set(tokenAccount.mint, decimals);
    }
    if (decimals === null) return;
    tokenBalances.push({
      accountIndex,
      mint: tokenAccount.mint,
      owner: tokenAccount.owner,
      programId: account.owner,
      uiTokenAmount: uiTokenAmount(tokenAccount.amount, decimals),
    });
  });
  return { balances, tokenBalances };
}
