/**
 * The Worker as every local server runs it (npm start, npm run dev, the e2e and bench servers of ../serve-worker.ts):
 * src/index.ts, wrangler.toml's `main`, behind the local edge (../local-edge.ts), which strips what only Cloudflare may
 * set on a request. A deployment bundles src/index.ts alone. An entry that wraps the Worker for a benchmark wraps this
 * one. Named index.ts: the bundle takes the entry file's name, and the Worker is served from index.js.
 */
import worker from "../../../src/index";
import { localEdge } from "../local-edge";

export * from "../../../src/index";

export default localEdge(worker);
