/**
 * Bundle stand-in for `ajv` and `ajv-formats` (wrangler.toml [alias]). The MCP SDK imports ajv for its default JSON
 * Schema validator, which a server uses only to check elicitation answers; this server never elicits and passes
 * its own validator, so ajv (~60 KiB gzip, and code generation that workerd forbids anyway) stays out of the Worker.
 */
export default class NoAjv {
  constructor() {
    throw new Error("ajv is not bundled in the Worker (see src/http/mcp/no-ajv.ts)");
  }
}
