/**
 * Writes accounts straight into the chain state (no transaction), for seeding and for the test-only
 * localnet_* methods: mints at fixed addresses (the devnet USDC mint cannot be created by a
 * transaction without its keypair), token accounts of off-curve owners, and program-owned state.
 * Every account is funded at the rent-exempt minimum, as a real one would be.
 */
import { address } from "@solana/kit";
import { AccountState, getMintEncoder, getTokenEncoder } from "@solana-program/token";
import type { LocalChain } from "./local-chain";
import { TOKEN_PROGRAM_ID } from "./token-accounts";

export interface PlacedMint {
  address: string;
  decimals: number;
  mintAuthority: string | null;
  freezeAuthority?: string | null;
  supply?: bigint;
  tokenProgram?: string;
}

export function placeMint(chain: LocalChain, mint: PlacedMint): void {
  const data = new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: mint.mintAuthority === null ? null : address(mint.mintAuthority),
      supply: mint.supply ?? 0n,
      decimals: mint.decimals,
      isInitialized: true,
      freezeAuthority: mint.freezeAuthority ? address(mint.freezeAuthority) : null,
    }),
  );
  placeRentExemptAccount(chain, mint.address, mint.tokenProgram ?? TOKEN_PROGRAM_ID, data);
}

export interface PlacedTokenAccount {
  address: string;
  mint: string;
  owner: string;
  amount?: bigint;
  tokenProgram?: string;
}

export function placeTokenAccount(chain: LocalChain, account: PlacedTokenAccount): void {
  const data = new Uint8Array(
    getTokenEncoder().encode({
      mint: address(account.mint),
      owner: address(account.owner),
      amount: account.amount ?? 0n,
      delegate: null,
      state: AccountState.Initialized,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    }),
  );
  placeRentExemptAccount(chain, account.address, account.tokenProgram ?? TOKEN_PROGRAM_ID, data);
}

export function placeRentExemptAccount(chain: LocalChain, pubkey: string, owner: string, data: Uint8Array): void {
  chain.setAccount(pubkey, {
    lamports: chain.minimumBalanceForRentExemption(BigInt(data.length)),
    data,
    owner,
    executable: false,
  });
}
