/**
 * Initial state of the local chain, so that it looks like devnet to the facilitator and the x402
 * clients: the devnet USDC mint (faucet = mint authority), a funded faucet and operator, the
 * UniversalSettle Config and the SLA-Escrow Bank / Config / Escrows at their devnet PDAs, and the
 * stand-in programs from localnet/programs.
 *
 * The program accounts are written directly with the documented layouts (shared/abi/*.md) because
 * the closed-source programs cannot initialise them here. Parameter values are local choices,
 * listed below as constants.
 */
import { type Address, address } from "@solana/kit";
import { findAssociatedTokenPda } from "@solana-program/token";
import { CLUSTERS, USDC_DECIMALS } from "../src/platform/config/networks";
import { EXACT_CLUSTER_DEFAULTS } from "../src/rails/exact/cluster-defaults";
import { getUniversalSettleConfigEncoder } from "../src/rails/exact/program/accounts";
import { findUniversalSettleConfigPda } from "../src/rails/exact/program/pda";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../src/rails/sla-escrow/cluster-defaults";
import { getBankEncoder, getEscrowConfigEncoder, getEscrowEncoder } from "../src/rails/sla-escrow/program/accounts";
import {
  findBankPda,
  findEscrowConfigPda,
  findEscrowPda,
  findEscrowSolStoragePda,
  NATIVE_SOL_ESCROW_MINT,
} from "../src/rails/sla-escrow/program/pda";
import { FAUCET_INITIAL_LAMPORTS, faucetAddress } from "./faucet";
import { localKeypair, OPERATOR_KEY_LABEL } from "./keys";
import type { LocalChain } from "./local-chain";
import { placeMint, placeRentExemptAccount, placeTokenAccount } from "./placed-accounts";
import {
  PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER,
  PAYMENT_CHANNELS_PROGRAM_ID,
  STANDIN_PROGRAMS,
} from "./programs/index";
import { TOKEN_PROGRAM_ID } from "./token-accounts";

/**
 * The local escrow oracle (wrangler.toml's SVC_SLA_ESCROW_ORACLE_AUTHORITIES for local runs; its key is derived from a
 * public label, never a real key). It holds SOL and a USDC account, as an oracle that collects tips does: a payout
 * after its verdict pays its tip there (docs/sla-escrow-abi.md, ABI §5.3 / §5.4), and the keeper pays no one's
 * token-account rent.
 */
export const LOCAL_ORACLE_ADDRESS = "2qHwqqzYw91UPTeHJ3Kp8P5aX5my3sCTz4NkmwLv5qTF";
const LOCAL_ORACLE_LAMPORTS = 1_000_000_000n;

const LAMPORTS_PER_SOL = 1_000_000_000n;
const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
export const OPERATOR_INITIAL_LAMPORTS = 1_000n * LAMPORTS_PER_SOL;

/** UniversalSettle Config values (ABI defaults where the ABI gives one). */
export const LOCAL_UNIVERSAL_SETTLE_CONFIG = {
  minFeeAmountRaw: 10_000n, // 0.01 USDC
  minFeeAmountLamports: 100_000n, // 0.0001 SOL
  provisioningFeeLamports: 10_000_000n,
  provisioningFeeRaw: 1_000_000n,
  feeBps: 100,
  discountedFeeBps: 90,
  useFeeShard: false,
  shardCount: 0,
} as const;

/** SLA-Escrow Bank / Config / Escrow values. */
export const LOCAL_SLA_ESCROW_CONFIG = {
  bankFeeBps: 100,
  closureDelaySeconds: 86_400n,
  refundCooldownSeconds: 3_600n,
  deliveryCutoffSeconds: 300n, // the ABI's default
  escrowFeeBps: 100,
  escrowOracleFeeBps: 100, // docs/facilitator-spec.md §8: oracle tip 100 bps
  // docs/facilitator-spec.md §8: 10-cent minimum fee
  usdc: { minPaymentAmount: 1_000n, maxPaymentAmount: 1_000_000_000_000n, minFeeAmount: 100_000n },
  sol: { minPaymentAmount: 10_000n, maxPaymentAmount: 1_000n * LAMPORTS_PER_SOL, minFeeAmount: 100_000n },
} as const;

export interface SeededAddresses {
  network: string;
  genesisHash: string;
  faucet: string;
  operator: string;
  usdcMint: string;
  operatorUsdcAccount: string;
  universalSettle: { programId: string; config: string };
  slaEscrow: {
    programId: string;
    bank: string;
    config: string;
    solEscrow: { escrow: string; solStorage: string };
    usdcEscrow: { escrow: string; tokenAccount: string };
  };
  /** payment-channels (upto): the treasury ATA its Distribute requires for every mint. */
  paymentChannels: { programId: string; treasuryOwner: string; usdcTreasuryTokenAccount: string };
  standInPrograms: { programId: string; soPath: string }[];
}

export async function seedLocalnet(chain: LocalChain): Promise<SeededAddresses> {
  const devnet = CLUSTERS.devnet;
  const now = chain.clock.unixTimestamp();
  const operator = localKeypair(OPERATOR_KEY_LABEL).address;
  const faucet = faucetAddress();

  for (const program of STANDIN_PROGRAMS) chain.addProgramFromFile(program.programId, program.soPath);

  chain.setAccount(faucet, {
    lamports: FAUCET_INITIAL_LAMPORTS,
    data: new Uint8Array(),
    owner: SYSTEM_PROGRAM_ID,
    executable: false,
  });
  chain.setAccount(operator, {
    lamports: OPERATOR_INITIAL_LAMPORTS,
    data: new Uint8Array(),
    owner: SYSTEM_PROGRAM_ID,
    executable: false,
  });

  placeMint(chain, { address: devnet.usdcMint, decimals: USDC_DECIMALS, mintAuthority: faucet });
  const operatorUsdcAccount = await associatedTokenAddress(operator, devnet.usdcMint);
  placeTokenAccount(chain, { address: operatorUsdcAccount, mint: devnet.usdcMint, owner: operator });

  // UniversalSettle
  const universalSettleProgram = address(EXACT_CLUSTER_DEFAULTS.devnet.universalSettleProgramId);
  const [universalSettleConfig] = await findUniversalSettleConfigPda(universalSettleProgram);
  placeRentExemptAccount(
    chain,
    universalSettleConfig,
    universalSettleProgram,
    new Uint8Array(
      getUniversalSettleConfigEncoder().encode({
        authority: address(operator),
        feeDestination: address(operator),
        updatedAtUnixSeconds: now,
        ...LOCAL_UNIVERSAL_SETTLE_CONFIG,
      }),
    ),
  );

  // SLA-Escrow
  const escrowProgram = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
  const settings = LOCAL_SLA_ESCROW_CONFIG;
  const [bank] = await findBankPda(escrowProgram);
  const [escrowConfig] = await findEscrowConfigPda(escrowProgram);
  placeRentExemptAccount(
    chain,
    bank,
    escrowProgram,
    new Uint8Array(
      getBankEncoder().encode({ authority: address(operator), openAtUnixSeconds: now, feeBps: settings.bankFeeBps }),
    ),
  );
  placeRentExemptAccount(
    chain,
    escrowConfig,
    escrowProgram,
    new Uint8Array(
      getEscrowConfigEncoder().encode({
        closureDelaySeconds: settings.closureDelaySeconds,
        refundCooldownSeconds: settings.refundCooldownSeconds,
        deliveryCutoffSeconds: settings.deliveryCutoffSeconds,
        updatedAtUnixSeconds: now,
      }),
    ),
  );

  const [solEscrow] = await findEscrowPda(escrowProgram, NATIVE_SOL_ESCROW_MINT, bank);
  const [solStorage] = await findEscrowSolStoragePda(escrowProgram, NATIVE_SOL_ESCROW_MINT, bank, solEscrow);
  // A System-owned wallet PDA (the program pays out of it with invoke_signed System transfers),
  // which is what the stand-in program checks for.
  placeRentExemptAccount(chain, solStorage, SYSTEM_PROGRAM_ID, new Uint8Array());
  placeEscrow(chain, escrowProgram, solEscrow, NATIVE_SOL_ESCROW_MINT, solStorage, now, settings.sol);

  const usdcMint = address(devnet.usdcMint);
  chain.setAccount(LOCAL_ORACLE_ADDRESS, {
    lamports: LOCAL_ORACLE_LAMPORTS,
    data: new Uint8Array(),
    owner: SYSTEM_PROGRAM_ID,
    executable: false,
  });
  placeTokenAccount(chain, {
    address: await associatedTokenAddress(LOCAL_ORACLE_ADDRESS, usdcMint),
    mint: usdcMint,
    owner: LOCAL_ORACLE_ADDRESS,
  });
  const [usdcEscrow] = await findEscrowPda(escrowProgram, usdcMint, bank);
  const usdcEscrowTokenAccount = await associatedTokenAddress(usdcEscrow, usdcMint);
  placeTokenAccount(chain, { address: usdcEscrowTokenAccount, mint: usdcMint, owner: usdcEscrow });
  placeEscrow(chain, escrowProgram, usdcEscrow, usdcMint, address(usdcEscrowTokenAccount), now, settings.usdc);

  // payment-channels: Distribute refuses to run unless ATA(treasury owner, mint) exists.
  const usdcTreasuryTokenAccount = await associatedTokenAddress(
    PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER,
    devnet.usdcMint,
  );
  placeTokenAccount(chain, {
    address: usdcTreasuryTokenAccount,
    mint: devnet.usdcMint,
    owner: PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER,
  });

  return {
    network: devnet.network,
    genesisHash: devnet.genesisHash,
    faucet,
    operator,
    usdcMint: devnet.usdcMint,
    operatorUsdcAccount,
    universalSettle: { programId: universalSettleProgram, config: universalSettleConfig },
    slaEscrow: {
      programId: escrowProgram,
      bank,
      config: escrowConfig,
      solEscrow: { escrow: solEscrow, solStorage },
      usdcEscrow: { escrow: usdcEscrow, tokenAccount: usdcEscrowTokenAccount },
    },
    paymentChannels: {
      programId: PAYMENT_CHANNELS_PROGRAM_ID,
      treasuryOwner: PAYMENT_CHANNELS_DEVNET_TREASURY_OWNER,
      usdcTreasuryTokenAccount,
    },
    standInPrograms: STANDIN_PROGRAMS.map(({ programId, soPath }) => ({ programId, soPath })),
  };
}

function placeEscrow(
  chain: LocalChain,
  program: Address,
  escrow: Address,
  mint: Address,
  escrowTokens: Address,
  now: bigint,
  limits: { minPaymentAmount: bigint; maxPaymentAmount: bigint; minFeeAmount: bigint },
): void {
  const data = getEscrowEncoder().encode({
    mint,
    escrowTokens,
    openAtUnixSeconds: now,
    feeBalance: 0n,
    tokenLiquidity: 0n,
    ...limits,
    feeBps: LOCAL_SLA_ESCROW_CONFIG.escrowFeeBps,
    oracleFeeBps: LOCAL_SLA_ESCROW_CONFIG.escrowOracleFeeBps,
    paused: false,
  });
  placeRentExemptAccount(chain, escrow, program, new Uint8Array(data));
}

async function associatedTokenAddress(owner: string, mint: string): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: address(TOKEN_PROGRAM_ID),
  });
  return ata;
}
