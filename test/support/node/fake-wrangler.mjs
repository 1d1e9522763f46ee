// A stand-in for `npx wrangler …` in test/e2e/scripts/deploy-setup.test.ts: nothing real can run there (the real
// commands need a Cloudflare account), so this answers the few commands deploy:setup makes the way wrangler 4.84 does,
// keeps the "account" in FAKE_WRANGLER_DIR/state.json and logs every call (argv, and what came on stdin) to
// calls.jsonl.

import { randomBytes, randomUUID } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const dir = process.env.FAKE_WRANGLER_DIR;
const [tool, ...args] = process.argv.slice(2);
const stdin = process.stdin.isTTY ? "" : readFileSync(0, "utf8");
appendFileSync(path.join(dir, "calls.jsonl"), JSON.stringify({ argv: [tool, ...args], stdin }) + "\n");
if (tool !== "wrangler") process.exit(127);

const statePath = path.join(dir, "state.json");
const state = existsSync(statePath) ? JSON.parse(readFileSync(statePath, "utf8")) : { d1: [], kv: [], secrets: {} };
const save = () => writeFileSync(statePath, JSON.stringify(state));
const command = args
  .filter((a) => !a.startsWith("--"))
  .slice(0, 3)
  .join(" ");
const option = (name) => args[args.indexOf(name) + 1];
const worker = () => `worker-${option("--env")}`;

if (command.startsWith("d1 list")) console.log(JSON.stringify(state.d1));
else if (command.startsWith("d1 create")) {
  state.d1.push({ uuid: randomUUID(), name: args[2] });
  save();
  console.log(`Successfully created DB '${args[2]}'`);
} else if (command === "kv namespace list") console.log(JSON.stringify(state.kv));
else if (command === "kv namespace create") {
  state.kv.push({ id: randomBytes(16).toString("hex"), title: args[3] });
  save();
} else if (command.startsWith("secret list")) {
  const secrets = state.secrets[worker()];
  if (!secrets) {
    console.error(`Worker "${worker()}" not found.`);
    process.exit(1);
  }
  console.log(JSON.stringify(Object.keys(secrets).map((name) => ({ name, type: "secret_text" }))));
} else if (command.startsWith("secret bulk")) {
  state.secrets[worker()] = { ...state.secrets[worker()], ...JSON.parse(stdin) };
  save();
  console.log("Finished processing secrets file");
} else if (command.startsWith("d1 migrations apply") || command.startsWith("deploy")) {
  state.secrets[worker()] ??= {};
  save();
} else process.exit(2);
