/**
 * `npm run demo` finds the facilitator where `npm start` serves it by the same two variables (README's table): given
 * only PORT and LOCALNET_PORT, it pays through the Worker on PORT and funds its wallets from the chain on
 * LOCALNET_PORT, end to end (activation, payment, sweep), with no FACILITATOR_URL or SOLANA_RPC_URL. A port that is not
 * a port is refused by name, without a stack trace.
 */
import { describe, expect, it } from "vitest";
import { withLocalWorker } from "../../support/node/local-worker";
import { REPOSITORY, runToEnd } from "../../support/node/newcomer";

const local = withLocalWorker({ feePayerLamports: 10_000_000_000 });

/** `npm run demo` as a newcomer types it; runToEnd drops this process's FACILITATOR_URL, SOLANA_RPC_URL and ports. */
const demo = (env: Record<string, string>) =>
  runToEnd(
    {
      command: "npm",
      args: ["run", "demo"],
      cwd: REPOSITORY,
      // The token the test Worker's operator routes take (scripts/lib/run-worker.ts), for the demo's sweep.
      env: { SVC_OPERATOR_TOKEN: "run-worker-operator-token", ...env },
    },
    300_000,
  );

describe("npm run demo on npm start's ports", () => {
  it("pays through the Worker on PORT and the chain on LOCALNET_PORT, with nothing else set", async () => {
    const port = new URL(local.worker.url).port;
    const chainPort = new URL(local.chain.url).port;
    const run = await demo({ PORT: port, LOCALNET_PORT: chainPort });
    expect(run.output).toContain(`facilitator   http://127.0.0.1:${port}/api/v1/facilitator`);
    expect(run.output).toContain(`solana rpc    http://127.0.0.1:${chainPort}`);
    expect(run.output).toMatch(/^demo: OK$/m);
    expect(run.code, run.output).toBe(0);
  }, 320_000);

  it("refuses a PORT that is not a port, naming it", async () => {
    const run = await demo({ PORT: "87x87" });
    expect(run.code).toBe(1);
    expect(run.output).toContain("PORT=87x87 is not a port");
    expect(run.output).not.toMatch(/\n\s+at /);
  }, 120_000);
});
