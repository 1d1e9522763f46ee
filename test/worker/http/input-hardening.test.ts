import { env } from "cloudflare:test";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { RAILS } from "../../../src/rails/registry";
import { fundedBuyer } from "../../support/workerd/chain";
import { enrichedLine, signedPaymentBody, USDC } from "../../support/workerd/payment-fixtures";
import { signMessage } from "../../support/workerd/seller-fixtures";
import { call, callWithEnv } from "../../support/workerd/worker-http";

/** Issue 8 item 5: smaller holes an anonymous caller or a misconfiguration could open. */
const json = { "Content-Type": "application/json" };
const deeplyNested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("JSON depth is bounded once, at parse time, for every route", () => {
  it(
    "a body nested 30,000 levels deep is a clean 400 on verify, settle, the builder and enrich (never a " + "500)",
    async () => {
      const line = await enrichedLine(USDC, "100000");
      const deepExtra =
        `{"x402Version":2,"paymentPayload":{"x402Version":2,"accepted":${JSON.stringify(line)},` +
        `"payload":{"transaction":"AAAA"}},"paymentRequirements":{"extra":${deeplyNested(30_000)}}}`;
      for (const path of ["/verify", "/settle"]) {
        const answer = await call(path, {
          method: "POST",
          headers: { ...json, "CF-Connecting-IP": crypto.randomUUID() },
          body: deepExtra,
        });
        expect(answer.status, path).toBe(400);
        expect(answer.body.invalidMessage ?? answer.body.errorMessage).toContain("deeper than 32 levels");
      }
      const deepResource =
        `{"payer":"${line.extra.merchantWallet}","accepted":${JSON.stringify(line)},` +
        `"resource":${deeplyNested(30_000)}}`;
      const built = await call("/build-exact-payment-tx", {
        method: "POST",
        headers: { ...json, "CF-Connecting-IP": crypto.randomUUID() },
        body: deepResource,
      });
      expect(built.status).toBe(400);
      expect(built.body).toMatchObject({
        code: "BAD_REQUEST",
        error: expect.stringContaining("deeper than 32 levels"),
      });
      const enrich = await call("/payment-required/enrich", {
        method: "POST",
        headers: json,
        body: `{"x402Version":2,"accepts":${deeplyNested(30_000)}}`,
      });
      expect(enrich.status).toBe(400);
    },
  );

  it("ordinary nesting and brackets inside strings are not counted against the bound", async () => {
    const buyer = await fundedBuyer(5_000_000);
    const body = await signedPaymentBody(buyer, await enrichedLine(USDC, "100000"));
    body.paymentPayload.resource = {
      url: "https://seller.example/a",
      description: "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    };
    expect(
      (await call("/verify", { method: "POST", json: body, headers: { "CF-Connecting-IP": crypto.randomUUID() } }))
        .status,
    ).toBe(200);
  });
});

describe("scheme names are looked up by own keys only", () => {
  it("constructor, __proto__ and toString are unknown schemes everywhere", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    for (const scheme of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const rail = await call(`/sellers/${wallet}/rails/${scheme}`);
      expect(rail.status, scheme).toBe(400);
      expect(rail.body.error).toContain("scheme");
    }
    const line = { ...(await enrichedLine(USDC, "100000")), scheme: "toString" };
    const body = {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: line, payload: { transaction: "AAAA" } },
      paymentRequirements: line,
    };
    for (const path of ["/verify", "/settle"]) {
      const answer = await call(path, {
        method: "POST",
        json: body,
        headers: { "CF-Connecting-IP": crypto.randomUUID() },
      });
      expect(answer.status, path).toBe(400);
      expect(answer.text).not.toContain("function");
      expect(answer.text).not.toContain("[native code]");
    }
  });
});

describe("configuration: a failed read of the D1 parameters never silently reverts to env values", () => {
  it("keeps the last good parameters, and fails closed (503) when there are none", async () => {
    // Real D1, but the parameters query of this wrapper reads a table of its own (so no other test sees the
    // parameter) and can be switched to fail, which the local D1 cannot be made to do on demand.
    const table = `parameters_${crypto.randomUUID().replaceAll("-", "")}`;
    await env.DB.prepare(
      `CREATE TABLE ${table} (key text PRIMARY KEY NOT NULL, value text NOT NULL, updated_at_ms integer NOT NULL)`,
    ).run();
    await env.DB.prepare(`INSERT INTO ${table} VALUES ('SVC_JIT_PROVISIONING_DAILY_CAP', '0', 0)`).run();
    let failing = false;
    const db = new Proxy(env.DB, {
      get(target, property) {
        if (property !== "prepare") return Reflect.get(target, property, target);
        return (sql: string) => {
          if (!/from "parameters"/i.test(sql)) return target.prepare(sql);
          if (failing) throw new Error("D1_ERROR: injected read failure");
          return target.prepare(sql.replace(/"parameters"/gi, `"${table}"`));
        };
      },
    });
    const health = () => callWithEnv({ DB: db }, "/health");
    expect((await health()).body.justInTimeProvisioning.dailyCap).toBe(0);
    failing = true;
    const afterFailure = await health();
    expect(afterFailure.status).toBe(200);
    expect(afterFailure.body.justInTimeProvisioning.dailyCap).toBe(0); // not the env default of 25

    const freshDb = new Proxy(env.DB, {
      get(target, property) {
        if (property !== "prepare") return Reflect.get(target, property, target);
        return (sql: string) => {
          if (/from "parameters"/i.test(sql)) throw new Error("D1_ERROR: injected read failure");
          return target.prepare(sql);
        };
      },
    });
    const closed = await callWithEnv({ DB: freshDb }, "/health");
    expect(closed.status).toBe(503);
    expect(closed.body).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
  });
});

describe("wallet challenges", () => {
  it("a challenge is valid only on the host that issued it", async () => {
    const seller = await generateKeyPairSigner();
    const issued = await call(`/sellers/${seller.address}/challenge?action=seller:register`);
    const message: string = issued.body.message;
    expect(message).toContain("domain: facilitator.test");
    const elsewhere = await call(`http://other-host.test/api/v1/facilitator/sellers/${seller.address}/register`, {
      method: "POST",
      json: { message, signature: await signMessage(seller, message), asset: "USDC" },
    });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.error).toContain("issued for facilitator.test");
  });

  it(
    "a CHALLENGE_MAC_KEY shorter than 32 bytes disables challenges (503) instead of issuing guessable " + "ones",
    async () => {
      const seller = await generateKeyPairSigner();
      const short = await callWithEnv(
        { CHALLENGE_MAC_KEY: "only-31-bytes-long-mac-key-0123" },
        `/sellers/${seller.address}/challenge`,
      );
      expect(short.status).toBe(503);
      expect(short.body.error).toContain("at least 32 bytes");
      const enough = await callWithEnv(
        { CHALLENGE_MAC_KEY: "exactly-32-bytes-long-mac-key-01" },
        `/sellers/${seller.address}/challenge`,
      );
      expect(enough.status).toBe(200);
    },
  );
});

describe("/health never shows the private RPC URL", () => {
  it("shows only the origin unless SOLANA_WALLET_RPC_URL is set explicitly", async () => {
    const rpc = new URL(env.SOLANA_RPC_URL as string);
    const withToken = `${rpc.origin}/v2/abc123secrettoken?x-token=zz`;
    const hidden = await callWithEnv({ SOLANA_RPC_URL: withToken }, "/health");
    expect(hidden.body.solanaWalletRpcUrl.replace(/\/$/, "")).toBe(rpc.origin);
    expect(JSON.stringify(hidden.body)).not.toContain("abc123secrettoken");
    const chosen = await callWithEnv({ SOLANA_WALLET_RPC_URL: "https://wallets.example/rpc" }, "/health");
    expect(chosen.body.solanaWalletRpcUrl).toBe("https://wallets.example/rpc");
  });
});

/**
 * Issue 22 §4: every number a schema accepts is bounded to what the code can use. The fuzzer found `1e308` in
 * `deliveryCutoffOverride` (/build-sla-escrow-payment-v2-tx) and `value` (/build-sla-escrow-mutual-action-tx)
 * answering 500. One case per numeric field of every route; the first test proves the table misses none, by walking
 * the valibot schemas of the route table.
 */
describe("numeric fields: out-of-range numbers are a 400 naming the field, never a 500", async () => {
  const { apiRoutes } = await import("../../../src/http/api-routes");

  /** Dotted paths of every `number` schema inside a valibot schema (objects, optionals, unions, pipes, arrays). */
  function numericPaths(schema: any, path = "", out: string[] = []): string[] {
    if (!schema) return out;
    switch (schema.type) {
      case "object":
      case "loose_object":
      case "strict_object":
        for (const [key, entry] of Object.entries(schema.entries))
          numericPaths(entry, path ? `${path}.${key}` : key, out);
        return out;
      case "optional":
      case "nullable":
      case "nullish":
        return numericPaths(schema.wrapped, path, out);
      case "union":
        for (const option of schema.options) numericPaths(option, path, out);
        return out;
      case "array":
        return numericPaths(schema.item, `${path}[]`, out);
      case "number":
        out.push(path);
        return out;
    }
    if (Array.isArray(schema.pipe)) numericPaths(schema.pipe[0], path, out);
    return out;
  }

  const wallet = "11111111111111111111111111111112";
  const mint = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU";
  const hex32 = "ab".repeat(32);
  const line = {
    scheme: "exact",
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    asset: mint,
    amount: "1000",
    payTo: wallet,
    maxTimeoutSeconds: 60,
    extra: { feePayer: wallet },
  };
  const signed = { message: "m", signature: "s" };
  const uptoPayload = {
    from: wallet,
    maxAmount: "1",
    deposit: "1",
    channelId: wallet,
    authorizedSigner: wallet,
    openTransaction: "AAAA",
    openSlot: "1",
    expiresAt: 2,
    validAfter: 1,
    nonce: "1",
  };
  const v2 = {
    buyer: wallet,
    seller: wallet,
    mint,
    amount: "1",
    ttlSeconds: 3600,
    slaHash: hex32,
    oracleAuthority: wallet,
    closureDelayOverride: 0,
    refundCooldownOverride: 0,
    deliveryCutoffOverride: 0,
    arbitrationWindowSeconds: 0,
  };
  type Case = { method: "POST" | "GET"; path: string; field: string; body: (bad: number) => unknown; route?: string };
  const CASES: Case[] = [
    ...["/verify", "/settle"].flatMap((path): Case[] => [
      {
        method: "POST",
        path,
        field: "paymentRequirements.maxTimeoutSeconds",
        body: (bad) => ({
          x402Version: 2,
          paymentPayload: { x402Version: 2, accepted: line, payload: { transaction: "AAAA" } },
          paymentRequirements: { ...line, maxTimeoutSeconds: bad },
        }),
      },
      {
        method: "POST",
        path,
        field: "paymentPayload.accepted.maxTimeoutSeconds",
        body: (bad) => ({
          x402Version: 2,
          paymentPayload: {
            x402Version: 2,
            accepted: { ...line, maxTimeoutSeconds: bad },
            payload: { transaction: "AAAA" },
          },
          paymentRequirements: line,
        }),
      },
      // The upto payload's own numbers (issue 24).
      ...(["expiresAt", "validAfter"] as const).map(
        (field): Case => ({
          method: "POST",
          path,
          field: `paymentPayload.payload.${field}`,
          body: (bad) => ({
            x402Version: 2,
            paymentPayload: {
              x402Version: 2,
              accepted: { ...line, scheme: "upto" },
              payload: { ...uptoPayload, [field]: bad },
            },
            paymentRequirements: { ...line, scheme: "upto" },
          }),
        }),
      ),
    ]),
    {
      method: "POST",
      path: "/build-exact-payment-tx",
      field: "accepted.maxTimeoutSeconds",
      body: (bad) => ({ payer: wallet, accepted: { ...line, maxTimeoutSeconds: bad } }),
    },
    {
      method: "POST",
      path: "/build-upto-deposit-tx",
      field: "accepted.maxTimeoutSeconds",
      body: (bad) => ({ payer: wallet, accepted: { ...line, scheme: "upto", maxTimeoutSeconds: bad } }),
    },
    {
      method: "POST",
      path: "/build-sla-escrow-payment-tx",
      field: "accepted.maxTimeoutSeconds",
      body: (bad) => ({
        payer: wallet,
        accepted: { ...line, scheme: "sla-escrow", maxTimeoutSeconds: bad },
        slaHash: hex32,
        oracleAuthority: wallet,
      }),
    },
    ...(
      [
        "amount",
        "ttlSeconds",
        "closureDelayOverride",
        "refundCooldownOverride",
        "deliveryCutoffOverride",
        "arbitrationWindowSeconds",
        "minOracleTip",
      ] as const
    ).map(
      (field): Case => ({
        method: "POST",
        path: "/build-sla-escrow-payment-v2-tx",
        field,
        body: (bad) => ({ ...v2, [field]: bad }),
      }),
    ),
    {
      method: "POST",
      path: "/build-sla-escrow-mutual-action-tx",
      field: "value",
      body: (bad) => ({ party: wallet, mint, paymentUidHex: hex32, accept: false, action: 2, value: bad }),
    },
    ...(["sellerBps", "resolutionReason"] as const).map(
      (field): Case => ({
        method: "POST",
        path: "/build-sla-escrow-resolve-split-tx",
        field,
        body: (bad) => ({
          adjudicator: wallet,
          mint,
          paymentUidHex: hex32,
          sellerBps: 0,
          resolutionReason: 0,
          expectedDeliveryHash: hex32,
          seller: wallet,
          buyer: wallet,
          [field]: bad,
        }),
      }),
    ),
    {
      method: "POST",
      path: "/build-refund-tx",
      field: "amount",
      body: (bad) => ({ merchantWallet: wallet, payerWallet: wallet, mint, amount: bad }),
    },
    { method: "POST", path: "/seller/payments", field: "limit", body: (bad) => ({ wallet, ...signed, limit: bad }) },
    { method: "POST", path: "/resources/retire", field: "id", body: (bad) => ({ wallet, ...signed, id: bad }) },
    { method: "POST", path: "/resources/probe", field: "id", body: (bad) => ({ wallet, ...signed, id: bad }) },
    {
      method: "POST",
      path: `/sellers/${wallet}/resources`,
      route: "/sellers/:wallet/resources",
      field: "limit",
      body: (bad) => ({ ...signed, limit: bad }),
    },
    {
      method: "GET",
      path: `/sellers/${wallet}/resources`,
      route: "/sellers/:wallet/resources",
      field: "limit",
      body: (bad) => ({ ...signed, limit: bad }),
    },
    {
      method: "POST",
      path: `/sellers/${wallet}/register/challenge`,
      route: "/sellers/:wallet/register/challenge",
      field: "ttlSeconds",
      body: (bad) => ({ ttlSeconds: bad }),
    },
    { method: "POST", path: "/escrow-keeper", field: "limit", body: (bad) => ({ dryRun: true, limit: bad }) },
    ...(["limit", "cooldownSeconds", "requireRecentSettleWithinSeconds"] as const).map(
      (field): Case => ({ method: "POST", path: "/sweep", field, body: (bad) => ({ dryRun: true, [field]: bad }) }),
    ),
    // pr402's routes (issue 21 §2).
    ...(["resolutionState", "resolutionReason"] as const).map(
      (field): Case => ({
        method: "POST",
        path: "/oracle/build-confirm",
        field,
        body: (bad) => ({
          oracleAuthority: wallet,
          mint,
          paymentUidHex: hex32,
          deliveryHash: hex32,
          resolutionState: 1,
          resolutionReason: 0,
          [field]: bad,
        }),
      }),
    ),
    ...(["limit", "cooldownSeconds", "deadlineSeconds", "lookbackSeconds"] as const).map(
      (field): Case => ({
        method: "POST",
        path: "/sla-escrow-settle",
        field,
        body: (bad) => ({ dryRun: true, [field]: bad }),
      }),
    ),
    { method: "POST", path: "/sla-escrow-close", field: "limit", body: (bad) => ({ dryRun: true, limit: bad }) },
  ];
  const BAD_NUMBERS = [1e308, 2 ** 64, 1.5];

  it("the cases cover every numeric field of every route's body and query", () => {
    const routes = apiRoutes(() => [], RAILS);
    const found = routes.flatMap((route) =>
      [...new Set([...numericPaths(route.body), ...numericPaths(route.query)])].map(
        (field) => `${route.method} ${route.path} ${field}`,
      ),
    );
    const covered = new Set(CASES.map((c) => `${c.method === "GET" ? "GET" : "POST"} ${c.route ?? c.path} ${c.field}`));
    // The GET owner list takes its limit from the query string (a string schema); its POST twin has the number.
    expect(found.filter((entry) => !covered.has(entry))).toEqual([]);
    expect(found.length).toBeGreaterThanOrEqual(20);
  });

  it.each(CASES.map((c) => [`${c.method} ${c.path} ${c.field}`, c] as const))("%s", async (_, testCase) => {
    for (const bad of BAD_NUMBERS) {
      const headers = { ...json, "CF-Connecting-IP": crypto.randomUUID(), Authorization: "Bearer test-operator-token" };
      const body = testCase.body(bad) as Record<string, unknown>;
      const answer =
        testCase.method === "GET"
          ? await call(
              `${testCase.path}?${new URLSearchParams({ message: "m", signature: "s", limit: String(bad) })}`,
              { headers },
            )
          : await call(testCase.path, { method: "POST", headers, body: JSON.stringify(body) });
      expect(answer.status, `${testCase.field} = ${bad}: ${answer.text}`).toBe(400);
      const message = String(answer.body.error ?? answer.body.invalidMessage ?? answer.body.errorMessage ?? "");
      expect(message, `${testCase.field} = ${bad}`).toContain(testCase.field.split(".").pop());
    }
  });
});
