/**
 * SPL Token views: getTokenAccountBalance, getTokenSupply, getTokenAccountsByOwner.
 */
import { encodeAccount, parseAccountEncoding, parseDataSlice } from "../account-encoding";
import type { LocalChain } from "../local-chain";
import type { RpcMethodTable } from "../rpc-dispatch";
import { invalidParams } from "../rpc-errors";
import { checkMinContextSlot, configParam, pubkeyParam, requiredParam } from "../rpc-params";
import {
  isTokenProgram,
  readMint,
  readTokenAccount,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  uiTokenAmount,
} from "../token-accounts";

export function tokenMethods(chain: LocalChain): RpcMethodTable {
  return {
    getTokenAccountBalance: (params) => {
      const pubkey = pubkeyParam(requiredParam(params, 0, "pubkey"));
      checkMinContextSlot(chain, configParam(params, 1));
      const account = chain.getAccount(pubkey);
      if (account === null) throw invalidParams("Invalid param: could not find account");
      const tokenAccount = readTokenAccount(account.owner, account.data);
      if (tokenAccount === null) throw invalidParams("Invalid param: not a Token account");
      const decimals = chain.mintDecimals(tokenAccount.mint);
      if (decimals === null) throw invalidParams("Invalid param: could not find mint");
      return { context: chain.context(), value: uiTokenAmount(tokenAccount.amount, decimals) };
    },

    getTokenSupply: (params) => {
      const pubkey = pubkeyParam(requiredParam(params, 0, "mint"));
      checkMinContextSlot(chain, configParam(params, 1));
      const account = chain.getAccount(pubkey);
      if (account === null) throw invalidParams("Invalid param: could not find mint");
      const mint = readMint(account.owner, account.data);
      if (mint === null) throw invalidParams("Invalid param: not a Token mint");
      return { context: chain.context(), value: uiTokenAmount(mint.supply, mint.decimals) };
    },

    getTokenAccountsByOwner: (params) => {
      const owner = pubkeyParam(requiredParam(params, 0, "owner"));
      const selector = requiredParam(params, 1, "mint or programId filter");
      const config = configParam(params, 2);
      checkMinContextSlot(chain, config);
      if (selector === null || typeof selector !== "object" || Array.isArray(selector)) {
        throw invalidParams("Invalid params: expected {mint} or {programId}");
      }
      let mintFilter: string | undefined;
      let programs: string[];
      if (selector.mint !== undefined) {
        mintFilter = pubkeyParam(selector.mint);
        const mintAccount = chain.getAccount(mintFilter);
        if (mintAccount === null || readMint(mintAccount.owner, mintAccount.data) === null) {
          throw invalidParams("Invalid param: could not find mint");
        }
        programs = [mintAccount.owner];
      } else {
        const programId = pubkeyParam(selector.programId);
        if (!isTokenProgram(programId)) throw invalidParams("Invalid param: unrecognized Token program id");
        programs = [programId];
      }
      const encoding = parseAccountEncoding(config.encoding, "binary");
      const dataSlice = parseDataSlice(config.dataSlice);
      const value = programs
        .filter((program) => program === TOKEN_PROGRAM_ID || program === TOKEN_2022_PROGRAM_ID)
        .flatMap((program) => chain.getProgramAccounts(program))
        .filter(({ account }) => {
          const tokenAccount = readTokenAccount(account.owner, account.data);
          return (
            tokenAccount !== null &&
            tokenAccount.owner === owner &&
            (mintFilter === undefined || tokenAccount.mint === mintFilter)
          );
        })
        .map(({ pubkey, account }) => ({
          pubkey,
          account: encodeAccount(account, encoding, dataSlice, (mint) => chain.mintDecimals(mint)),
        }));
      return { context: chain.context(), value };
    },
  };
}
