/**
 * The local chain in its own process for the benchmark, so that neither facilitator shares an event loop with it
 * (the reference facilitator runs inside the benchmark process). Prints one JSON line {"url": ...} once the chain
 * answers, then serves until SIGTERM/SIGINT or until its parent goes away.
 */
import { startLocalnet } from "../localnet/server";

const localnet = await startLocalnet({ port: 0, quiet: true });
process.stdout.write(`${JSON.stringify({ url: localnet.url })}\n`);

let closing = false;
const shutdown = () => {
  if (closing) return;
  closing = true;
  localnet.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
// stdin is a pipe from the parent: when the parent dies, it closes, and the chain stops with it.
process.stdin.on("end", shutdown);
process.stdin.on("error", shutdown);
process.stdin.resume();
