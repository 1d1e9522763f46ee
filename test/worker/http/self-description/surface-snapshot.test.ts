import { describe, expect, it } from "vitest";
import { call } from "../../../support/workerd/worker-http";

// The public surface, byte for byte: the OpenAPI document and the /supported body under the local default config.
// Both files were recorded before the source tree was reorganised into one folder per rail; a change to either is a
// change of the public contract and must be deliberate (refresh with `npx vitest run
// test/worker/http/self-description/surface-snapshot.test.ts --update=all`; under vitest 4 a path right after `-u` is
// read as its value and the whole suite runs).
describe("public surface snapshot", () => {
  it("GET /openapi.json is unchanged", async () => {
    const { status, text } = await call("http://facilitator.test/openapi.json");
    expect(status).toBe(200);
    await expect(text).toMatchFileSnapshot("./__surface__/openapi.json");
  });

  it("GET /supported is unchanged", async () => {
    const { status, text } = await call("/supported");
    expect(status).toBe(200);
    await expect(text).toMatchFileSnapshot("./__surface__/supported.json");
  });
});
