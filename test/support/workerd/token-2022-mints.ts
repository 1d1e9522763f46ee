import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToInstruction,
} from "@solana-program/token";
import { chainRpc, fundedBuyer, sendSigned } from "./chain";
import { TOKEN_2022_PROGRAM } from "./craft-payment";

/**
 * Real Token-2022 mints on the local chain: created by the Token-2022 program itself (CreateAccount, the extension's
 * own initialize instruction, InitializeMint2), with a test key as mint authority, so tokens are minted by MintTo.
 * The instruction layouts are spl-token-2022's (program/src/instruction.rs and the instruction.rs of each extension).
 */

/** One mint extension: its TLV value length and the instruction that initializes it on the uninitialized mint. */
export interface MintExtension {
  name: string;
  length: number;
  initialize: (mint: Address) => Instruction;
}

const addressBytes = (value: Address) => getAddressEncoder().encode(value);
const onMint = (mint: Address, data: Uint8Array): Instruction => ({
  programAddress: TOKEN_2022_PROGRAM,
  accounts: [{ address: mint, role: AccountRole.WRITABLE }],
  data,
});

/**
 * TransferFeeExtension(26) / InitializeTransferFeeConfig(0): no authorities, `bps` basis points, capped at `maximum`.
 */
export function transferFee(bps: number, maximum: bigint): MintExtension {
  const data = new Uint8Array(2 + 1 + 1 + 2 + 8);
  const view = new DataView(data.buffer);
  data.set([26, 0, 0, 0]);
  view.setUint16(4, bps, true);
  view.setBigUint64(6, maximum, true);
  return { name: "TransferFeeConfig", length: 108, initialize: (mint) => onMint(mint, data) };
}

/** InitializePermanentDelegate(35): `delegate` may move anyone's tokens of this mint. */
export function permanentDelegate(delegate: Address): MintExtension {
  return {
    name: "PermanentDelegate",
    length: 32,
    initialize: (mint) => onMint(mint, new Uint8Array([35, ...addressBytes(delegate)])),
  };
}

/** TransferHookExtension(36) / Initialize(0): every transfer CPIs `hookProgram` (no authority). */
export function transferHook(hookProgram: Address): MintExtension {
  return {
    name: "TransferHook",
    length: 64,
    initialize: (mint) => onMint(mint, new Uint8Array([36, 0, ...new Uint8Array(32), ...addressBytes(hookProgram)])),
  };
}

/** InitializeMintCloseAuthority(25): `authority` may close the mint once its supply is 0; null revokes it for good. */
export function mintCloseAuthority(authority: Address | null): MintExtension {
  const option = authority === null ? [0] : [1, ...addressBytes(authority)];
  return {
    name: "MintCloseAuthority",
    length: 32,
    initialize: (mint) => onMint(mint, new Uint8Array([25, ...option])),
  };
}

export interface Token2022Mint {
  mint: Address;
  authority: KeyPairSigner;
  /** Creates `owner`'s token account (idempotent) and mints `amount` into it. */
  fund: (owner: Address, amount: bigint) => Promise<Address>;
  /** Creates `owner`'s token account (idempotent). */
  tokenAccount: (owner: Address) => Promise<Address>;
}

/** A 6-decimal Token-2022 mint with `extensions` (none: a plain Token-2022 mint). */
export async function createToken2022Mint(extensions: MintExtension[] = []): Promise<Token2022Mint> {
  const authority = await fundedBuyer(0);
  const mintSigner = await generateKeyPairSigner();
  const mint = mintSigner.address;
  // Base mint padded to the token-account size, the account-type byte, then each extension's TLV entry.
  const space = extensions.length === 0 ? 82 : 166 + extensions.reduce((sum, e) => sum + 4 + e.length, 0);
  const lamports = await chainRpc<number>("getMinimumBalanceForRentExemption", [space]);
  const initializeMint2 = new Uint8Array([20, 6, ...addressBytes(authority.address), 0]);
  await sendSigned(authority, [
    getCreateAccountInstruction({
      payer: authority,
      newAccount: mintSigner,
      lamports: BigInt(lamports),
      space: BigInt(space),
      programAddress: TOKEN_2022_PROGRAM,
    }),
    ...extensions.map((e) => e.initialize(mint)),
    onMint(mint, initializeMint2),
  ]);
  const tokenAccount = async (owner: Address) => {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_2022_PROGRAM });
    await sendSigned(authority, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: authority,
        ata,
        owner,
        mint,
        tokenProgram: TOKEN_2022_PROGRAM,
      }),
    ]);
    return ata;
  };
  const fund = async (owner: Address, amount: bigint) => {
    const ata = await tokenAccount(owner);
    await sendSigned(authority, [
      getMintToInstruction(
        { mint, token: ata, mintAuthority: authority, amount },
        { programAddress: TOKEN_2022_PROGRAM },
      ),
    ]);
    return ata;
  };
  return { mint, authority, fund, tokenAccount };
}
