import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { probeResource } from "../../../../src/directory/resources/probe";
import { sellerOrigin, setSellerBehaviour } from "../../../support/workerd/directory-fixtures";
import { callWithEnv } from "../../../support/workerd/worker-http";

async function hits(path: string): Promise<number> {
  const counts = (await (await fetch(`${sellerOrigin()}/__hits`)).json()) as Record<string, number>;
  return counts[path] ?? 0;
}

const fresh = (name: string) => `/${name}-${crypto.randomUUID().slice(0, 8)}`;

describe("the 402 probe against hostile targets (real loopback server)", () => {
  it("does not follow a redirect", async () => {
    const path = fresh("redirect");
    await setSellerBehaviour({ path, mode: "redirect" });
    const result = await probeResource(
      { resourceUrl: sellerOrigin() + path, httpMethod: "GET" },
      { allowLoopback: true },
    );
    expect(result).toMatchObject({ ok: false, httpStatus: 302 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(await hits("/redirect-target")).toBe(0);
  });

  it("gives up on a target that never answers, and on a body that never ends, at the deadline", async () => {
    for (const mode of ["hang", "slow-body"]) {
      const path = fresh(mode);
      await setSellerBehaviour({ path, mode });
      const started = Date.now();
      const result = await probeResource(
        { resourceUrl: sellerOrigin() + path, httpMethod: "GET" },
        { allowLoopback: true, timeoutMs: 800 },
      );
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/within 800 ms/);
    }
  });

  it("stops reading a huge streamed body at the size cap", async () => {
    const path = fresh("huge");
    await setSellerBehaviour({ path, mode: "huge" });
    const started = Date.now();
    const result = await probeResource(
      { resourceUrl: sellerOrigin() + path, httpMethod: "GET" },
      { allowLoopback: true },
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result).toMatchObject({ ok: false, httpStatus: 402 });
    expect(result.error).toMatch(/exceeds 65536 bytes/);
  });

  it("fails a 402 whose resource.url names another path, and reads the PAYMENT-REQUIRED header", async () => {
    const wrong = fresh("wrong");
    await setSellerBehaviour({ path: wrong, mode: "wrong-url" });
    const mismatch = await probeResource(
      { resourceUrl: sellerOrigin() + wrong, httpMethod: "GET" },
      { allowLoopback: true },
    );
    expect(mismatch.error).toMatch(/does not match/);
    const header = fresh("header");
    await setSellerBehaviour({ path: header, mode: "402-header" });
    expect(
      await probeResource({ resourceUrl: sellerOrigin() + header, httpMethod: "GET" }, { allowLoopback: true }),
    ).toMatchObject({ ok: true, scheme: "exact" });
  });

  it("never reaches a loopback target written in another notation when loopback is not allowed", async () => {
    const port = new URL(sellerOrigin()).port;
    const path = fresh("ssrf");
    for (const host of [
      "127.0.0.1",
      "2130706433",
      "0x7f.0.0.1",
      "0177.0.0.1",
      "127.1",
      "[::ffff:127.0.0.1]",
      "[::1]",
      "localhost",
      "a.localhost",
    ]) {
      const result = await probeResource(
        { resourceUrl: `http://${host}:${port}${path}`, httpMethod: "GET" },
        { allowLoopback: false },
      );
      expect(result.ok, host).toBe(false);
      expect(result.error, host).toMatch(/^refused/);
    }
    expect(await hits(path)).toBe(0);
  });

  it("loopback probing can never be switched on outside the local environment", async () => {
    const bad = await callWithEnv(
      { ENVIRONMENT: "production", SOLANA_CLUSTER: "mainnet", SVC_PROBE_ALLOW_LOOPBACK: "true" },
      "/health",
    );
    expect(bad.status).toBe(500);
    expect(JSON.stringify(bad.body)).toMatch(/SVC_PROBE_ALLOW_LOOPBACK/);
    const { getConfig } = await import("../../../../src/rails/registry");
    // (Outside local the demo oracle the local vars name is refused too, so the preview env names none.)
    expect(
      (
        await getConfig({
          ...(env as never as object),
          ENVIRONMENT: "preview",
          SVC_SLA_ESCROW_ORACLE_AUTHORITIES: "",
        } as never)
      ).probe.allowLoopback,
    ).toBe(false);
    expect((await getConfig(env as never)).probe.allowLoopback).toBe(true);
  });
});
