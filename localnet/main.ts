/**
 * CLI: `npm run localnet` (tsx localnet/main.ts). Starts the local chain, prints its URL and the
 * seeded addresses, and runs until SIGINT/SIGTERM. Port: env LOCALNET_PORT (default 8899).
 */
import { startLocalnet } from "./server";

async function main(): Promise<void> {
  const localnet = await startLocalnet({ quiet: process.argv.includes("--quiet") });
  const { seeded } = localnet;
  const lines = [
    `local Solana chain (impersonating devnet) at ${localnet.url} (PubSub ${localnet.wsUrl})`,
    `  network            ${seeded.network}`,
    `  genesis hash       ${seeded.genesisHash}`,
    `  USDC mint          ${seeded.usdcMint} (mint authority = faucet)`,
    `  faucet             ${seeded.faucet}`,
    `  operator           ${seeded.operator} (USDC account ${seeded.operatorUsdcAccount})`,
    `  UniversalSettle    program ${seeded.universalSettle.programId}`,
    `                     config  ${seeded.universalSettle.config}`,
    `  SLA-Escrow         program ${seeded.slaEscrow.programId}`,
    `                     bank    ${seeded.slaEscrow.bank}`,
    `                     config  ${seeded.slaEscrow.config}`,
    `                     SOL escrow ` +
      ` ${seeded.slaEscrow.solEscrow.escrow} (storage ${seeded.slaEscrow.solEscrow.solStorage})`,
    `                     USDC ` +
      `escrow ${seeded.slaEscrow.usdcEscrow.escrow} (vault ${seeded.slaEscrow.usdcEscrow.tokenAccount})`,
    `  stand-in programs ` + ` ${seeded.standInPrograms.map((program) => program.programId).join(", ") || "none"}`,
    `faucet: npm run faucet -- <wallet> <usdc amount> | npm run faucet -- <wallet> <sol amount> --sol`,
    `LOCAL-ONLY KEYS: the faucet/operator keys are derived from public labels; never use them elsewhere.`,
  ];
  console.log(lines.join("\n"));

  const shutdown = (signal: string) => {
    console.log(`\n${signal}: stopping the local chain`);
    localnet.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
