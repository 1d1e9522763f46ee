/**
 * Local faucet CLI (LOCAL CHAIN ONLY):
 *
 *   npm run faucet -- <wallet> <amount>                USDC (whole units, decimals allowed: 12.5)
 *   npm run faucet -- <wallet> <amount> --sol          SOL
 *   npm run faucet -- <wallet> <amount> --mint <mint>  any mint the local faucet can mint
 *
 * Talks to the local chain's requestAirdrop / requestTokenAirdrop at SOLANA_RPC_URL, else at the port `npm start` uses
 * (LOCALNET_PORT, default 8899), and names that URL when it does not answer.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const SOL_DECIMALS = 9;

interface Arguments {
  wallet: string;
  amount: string;
  sol: boolean;
  mint: string | undefined;
}

function usage(message?: string): never {
  if (message) console.error(`error: ${message}`);
  console.error("usage: npm run faucet -- <wallet> <amount> [--sol | --mint <mint>]");
  process.exit(2);
}

function parseArguments(argv: string[]): Arguments {
  const positional: string[] = [];
  let sol = false;
  let mint: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === "--sol") sol = true;
    else if (argument === "--mint") mint = argv[++index] ?? usage("--mint needs a value");
    else if (argument === "--help" || argument === "-h") usage();
    else if (argument !== undefined) positional.push(argument);
  }
  const [wallet, amount, ...extra] = positional;
  if (wallet === undefined || amount === undefined || extra.length > 0) usage();
  if (sol && mint !== undefined) usage("--sol and --mint are exclusive");
  return { wallet, amount, sol, mint };
}

/** "12.5" with 6 decimals → 12500000n; rejects more fraction digits than the token has. */
export function toRawAmount(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) throw new Error(`not a positive decimal number: ${amount}`);
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) throw new Error(`${amount} has more than ${decimals} decimal places`);
  const raw = BigInt(whole + fraction.padEnd(decimals, "0"));
  if (raw === 0n) throw new Error("amount must be greater than zero");
  return raw;
}

let requestId = 0;

/** The local chain's URL: SOLANA_RPC_URL, else the port `npm start` gives it (LOCALNET_PORT, default 8899). */
export function faucetRpcUrl(env: NodeJS.ProcessEnv): string {
  return env.SOLANA_RPC_URL || `http://127.0.0.1:${env.LOCALNET_PORT || "8899"}`;
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      // Raw amounts go as decimal strings, which the local chain accepts for u64 params.
      body: JSON.stringify({ jsonrpc: "2.0", id: ++requestId, method, params }),
    });
  } catch (error) {
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(
      `the local chain at ${url} did not answer (${cause}). Is \`npm start\` running? ` +
        "If it runs with LOCALNET_PORT=<port>, run the faucet with the same LOCALNET_PORT (or SOLANA_RPC_URL=<its " +
        "URL>).",
    );
  }
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method} failed (${body.error.code}): ${body.error.message}`);
  return body.result as T;
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  const url = faucetRpcUrl(process.env);
  if (args.sol) {
    const lamports = toRawAmount(args.amount, SOL_DECIMALS);
    const signature = await rpc<string>(url, "requestAirdrop", [args.wallet, lamports.toString()]);
    const balance = await rpc<{ value: number }>(url, "getBalance", [args.wallet]);
    console.log(
      `sent ${args.amount} SOL to ${args.wallet}\n  signature ${signature}\n  balance   ${balance.value} lamports`,
    );
    return;
  }
  const mint = args.mint ?? (await rpc<{ usdcMint: string }>(url, "localnet_getInfo", [])).usdcMint;
  const supply = await rpc<{ value: { decimals: number } }>(url, "getTokenSupply", [mint]);
  const raw = toRawAmount(args.amount, supply.value.decimals);
  const signature = await rpc<string>(url, "requestTokenAirdrop", [args.wallet, raw.toString(), mint]);
  const accounts = await rpc<{
    value: { pubkey: string; account: { data: { parsed: { info: { tokenAmount: { uiAmountString: string } } } } } }[];
  }>(url, "getTokenAccountsByOwner", [args.wallet, { mint }, { encoding: "jsonParsed" }]);
  const lines = [`minted ${args.amount} of ${mint} to ${args.wallet}`, `  signature ${signature}`];
  for (const { pubkey, account } of accounts.value) {
    lines.push(`  account   ${pubkey} balance ${account.data.parsed.info.tokenAmount.uiAmountString}`);
  }
  console.log(lines.join("\n"));
}

// Only run when executed directly (the amount parser is importable by tests).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
