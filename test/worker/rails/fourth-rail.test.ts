import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import * as v from "valibot";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app";
import type { Env } from "../../../src/env";
import { API_PREFIX, type AppEnv } from "../../../src/http/context";
import { mountRoutes } from "../../../src/http/route-def";
import { buildSupported } from "../../../src/http/self-description/supported";
import { CORE_JOBS_CRON, jobsByCron, RAIL_JOBS_CRON, runScheduled } from "../../../src/jobs/scheduled";
import { type Config, configOf } from "../../../src/platform/config/load-config";
import { CLUSTERS } from "../../../src/platform/config/networks";
import {
  enrichWithRails,
  loadConfig,
  RAILS,
  railJobs,
  railRoutes,
  railsBySchemeOf,
  verifySettleBodySchemaOf,
} from "../../../src/rails/registry";
import { checkCommonRequirementsAmong } from "../../../src/x402/common-checks";
import { fourthRail, fourthTicketPurges } from "../../support/fourth-rail/module";

/**
 * A new rail is one folder plus one registry line: the fixture rail (test/support/fourth-rail/, never shipped) added
 * to the registry's list is served by everything the registry builds — /supported, the verify/settle body, the
 * common checks, the route table and the Cron jobs — with no other file changed. Nothing here is mocked: the
 * registry's builders run over the real rails plus the fixture, with this Worker's configuration.
 */
const WITH_FOURTH = [...RAILS, fourthRail]; // the one registry line
let config: Config;

beforeAll(async () => {
  config = await loadConfig(env as unknown as Env);
});

const line = () => ({
  scheme: "fourth",
  network: config.network,
  asset: CLUSTERS.devnet.usdcMint,
  amount: "5",
  payTo: config.feePayer.address,
  maxTimeoutSeconds: 60,
  extra: {},
});
const body = (scheme = "fourth") => ({
  x402Version: 2,
  paymentPayload: { x402Version: 2, accepted: { ...line(), scheme }, payload: { ticket: "t-1", payer: "buyer" } },
  paymentRequirements: { ...line(), scheme },
});

describe("a fourth rail plugged in with one registry line", () => {
  it("is listed in /supported after the shipped rails, with its own extra", async () => {
    const supported = await buildSupported(await configOf(WITH_FOURTH).load(env as unknown as Env), WITH_FOURTH);
    expect(supported.kinds.at(-1)).toEqual({
      x402Version: 2,
      scheme: "fourth",
      network: config.network,
      extra: { feePayer: config.feePayer.address, ticketsOnly: "true", ticketFee: "7" },
    });
    expect((await buildSupported(config, RAILS)).kinds.map((k) => k.scheme)).not.toContain("fourth");
  });

  it("its payload shape joins the verify/settle body, and its transaction field is read as the transaction", () => {
    const parsed = v.safeParse(verifySettleBodySchemaOf(WITH_FOURTH), body());
    if (!parsed.success) throw new Error(parsed.issues[0].message);
    expect(parsed.output.paymentPayload.payload.transaction).toBe("t-1");
    const shipped = v.safeParse(verifySettleBodySchemaOf(RAILS), body());
    expect(shipped.success).toBe(false);
    const bad = v.safeParse(verifySettleBodySchemaOf(WITH_FOURTH), {
      ...body(),
      paymentPayload: { ...body().paymentPayload, payload: { nothing: 1 } },
    });
    expect(bad.issues?.[0]?.message).toMatch(/ or a fourth-rail ticket \(`ticket`\)$/);
  });

  it("passes the common checks under its name and its alias, and is unsupported without the line", () => {
    const parsed = v.parse(verifySettleBodySchemaOf(WITH_FOURTH), body());
    expect(checkCommonRequirementsAmong(config, parsed, railsBySchemeOf(WITH_FOURTH))).toMatchObject({
      scheme: "fourth",
      amount: 5n,
    });
    const aliased = v.parse(verifySettleBodySchemaOf(WITH_FOURTH), body("v2:solana:fourth"));
    expect(checkCommonRequirementsAmong(config, aliased, railsBySchemeOf(WITH_FOURTH))).toMatchObject({
      scheme: "fourth",
    });
    expect(checkCommonRequirementsAmong(config, parsed, railsBySchemeOf(RAILS))).toMatchObject({
      ok: false,
      reason: "unsupported_scheme",
    });
  });

  it("dispatches verify to it by scheme", async () => {
    const parsed = v.parse(verifySettleBodySchemaOf(WITH_FOURTH), body());
    const accepted = checkCommonRequirementsAmong(config, parsed, railsBySchemeOf(WITH_FOURTH));
    if ("ok" in accepted) throw new Error(accepted.message);
    expect(
      await railsBySchemeOf(WITH_FOURTH).get("fourth")!.verify(config, parsed, accepted, { simulate: true }),
    ).toEqual({ ok: true, payer: "buyer" });
  });

  it("its builder route joins the route table after the shipped builders and answers over HTTP", async () => {
    const builders = railRoutes("builders", WITH_FOURTH);
    expect(builders.map((r) => r.key).slice(0, -1)).toEqual(railRoutes("builders", RAILS).map((r) => r.key));
    expect(builders.at(-1)!.key).toBe("buildFourthTicket");
    const app = new Hono<AppEnv>();
    mountRoutes(app, builders.slice(-1));
    const response = await app.request(
      `${API_PREFIX}/build-fourth-ticket`,
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ payer: "buyer" }) },
      env,
    );
    expect(await response.json()).toEqual({ ticket: "ticket-for-buyer" });
  });

  it("its job runs on the rails' Cron trigger after the shipped rails' jobs", () => {
    expect(railJobs(WITH_FOURTH).map((job) => job.name)).toEqual([
      ...railJobs(RAILS).map((job) => job.name),
      "fourth-keeper",
    ]);
  });

  it("enrich runs its transform on its lines, after the shipped rails' (which leave them alone)", async () => {
    const required = { x402Version: 2 as const, resource: { url: "https://example.test/r" }, accepts: [line()] };
    expect(await enrichWithRails(RAILS, config, required)).toEqual(required);
    const withFourth = await configOf(WITH_FOURTH).load(env as unknown as Env);
    expect((await enrichWithRails(WITH_FOURTH, withFourth, required)).accepts).toEqual([
      { ...line(), extra: { ticketFee: "7" } },
    ]);
  });
});

describe("a fourth rail's configuration comes with its module (no second list)", () => {
  const workerEnv = (extra: Record<string, string> = {}) => ({ ...(env as unknown as Env), ...extra }) as Env;

  it("its keys join the configuration of the rails list it is in, with their defaults and validation", async () => {
    expect(configOf(WITH_FOURTH).keys).toContain("SVC_FOURTH_TICKET_FEE");
    expect(configOf(RAILS).keys).not.toContain("SVC_FOURTH_TICKET_FEE");
    expect(((await configOf(WITH_FOURTH).load(workerEnv())) as unknown as { fourth: unknown }).fourth).toEqual({
      ticketFee: 7,
    });
    expect(
      ((await configOf(WITH_FOURTH).load(workerEnv({ SVC_FOURTH_TICKET_FEE: "9" }))) as unknown as { fourth: unknown })
        .fourth,
    ).toEqual({ ticketFee: 9 });
    await expect(configOf(WITH_FOURTH).load(workerEnv({ SVC_FOURTH_TICKET_FEE: "lots" }))).rejects.toThrow(
      /SVC_FOURTH_TICKET_FEE/,
    );
    // The Worker's own configuration neither reads nor validates the fixture's key.
    expect("fourth" in (await loadConfig(workerEnv({ SVC_FOURTH_TICKET_FEE: "lots" })))).toBe(false);
  });

  it("every shipped rail's keys are the Worker's: the configuration is built from RAILS' modules", () => {
    for (const rail of RAILS)
      for (const key of Object.keys(rail.config?.keys ?? {})) expect(configOf(RAILS).keys).toContain(key);
  });

  it("the app built with it reads its key: /supported shows the configured fee", async () => {
    const ctx = createExecutionContext();
    const answer = await buildApp(WITH_FOURTH).fetch(
      new Request(`http://facilitator.test${API_PREFIX}/supported`),
      workerEnv({ SVC_FOURTH_TICKET_FEE: "11" }),
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(
      ((await answer.json()) as { kinds: { extra: Record<string, string> }[] }).kinds.at(-1)!.extra.ticketFee,
    ).toBe("11");
  });
});

describe("a fourth rail served by the Worker's app (buildApp with the rails list)", () => {
  // The real Hono app, middleware, payment routes and error handling, built over the longer list: the Worker builds
  // the same app over RAILS (src/index.ts).
  const post = async (app: ReturnType<typeof buildApp>, path: string, json: unknown) => {
    const ctx = createExecutionContext();
    const request = new Request(`http://facilitator.test${API_PREFIX}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(json),
    });
    const response = await app.fetch(request, env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("POST /verify dispatches to it and answers valid with its payer", async () => {
    const answer = await post(buildApp(WITH_FOURTH), "/verify", body());
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ isValid: true, payer: "buyer" });
    // Its alias too, through the same common checks.
    expect((await post(buildApp(WITH_FOURTH), "/verify", body("v2:solana:fourth"))).body).toMatchObject({
      isValid: true,
      payer: "buyer",
    });
  });

  it("POST /settle dispatches to its settle and answers in the settle shape", async () => {
    const answer = await post(buildApp(WITH_FOURTH), "/settle", body());
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      success: false,
      errorReason: "invalid_payload",
      errorMessage: "the fixture rail settles nothing",
      network: config.network,
    });
  });

  const get = async (app: ReturnType<typeof buildApp>, path: string) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request(`http://facilitator.test${API_PREFIX}${path}`), env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it(
    "GET /capabilities of that app lists it among the supported kinds, with its feature flag and its own " + "member",
    async () => {
      const { status, body } = await get(buildApp(WITH_FOURTH), "/capabilities");
      expect(status).toBe(200);
      expect(body.supported.kinds.at(-1).scheme).toBe("fourth");
      expect(body.features.fourthTickets).toBe(true);
      expect(body.fourthTicketGuide).toBe("http://facilitator.test/fourth-tickets.md");
      const shipped = (await get(buildApp(RAILS), "/capabilities")).body;
      expect(shipped.features).not.toHaveProperty("fourthTickets");
      expect(shipped).not.toHaveProperty("fourthTicketGuide");
    },
  );

  it("GET /health of that app carries its report and its Cron job", async () => {
    const { body } = await get(buildApp(WITH_FOURTH), "/health");
    expect(body.fourthTickets).toEqual({ ticketFee: 7 });
    expect(Object.keys(body.settlementKeeper.jobs)).toContain("fourth-keeper");
    const shipped = (await get(buildApp(RAILS), "/health")).body;
    expect(shipped).not.toHaveProperty("fourthTickets");
    expect(Object.keys(shipped.settlementKeeper.jobs)).not.toContain("fourth-keeper");
  });

  it(
    "GET /fee-quote?scheme=fourth of that app is its quote, from its configured fee; the Worker's app refuses the " +
      "scheme",
    async () => {
      const params = { wallet: config.feePayer.address, asset: "USDC", amount: "100", scheme: "fourth" };
      const query = `/fee-quote?${new URLSearchParams(params)}`;
      const { status, body } = await get(buildApp(WITH_FOURTH), query);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({
        scheme: "fourth",
        tier: "ticket",
        protocolFee: "7",
        sellerNets: "93",
        amount: "100",
      });
      const shipped = await get(buildApp(RAILS), query);
      expect(shipped.status).toBe(400);
      expect(JSON.stringify(shipped.body)).toMatch(/scheme/);
    },
  );

  it(
    "POST /payment-required/enrich of that app runs its transform on its lines; the Worker's app leaves them " +
      "alone",
    async () => {
      const required = { x402Version: 2, resource: { url: "https://example.test/r" }, accepts: [line()] };
      const enriched = await post(buildApp(WITH_FOURTH), "/payment-required/enrich", required);
      expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
      expect((enriched.body.accepts as { extra: Record<string, string> }[])[0]!.extra.ticketFee).toBe("7");
      const shipped = await post(buildApp(RAILS), "/payment-required/enrich", required);
      expect((shipped.body.accepts as { extra: Record<string, string> }[])[0]!.extra).toEqual({});
    },
  );

  it(
    "GET /sellers/{wallet}/rails/fourth of that app is its seller lookup; the Worker's app refuses the " + "scheme",
    async () => {
      const wallet = config.feePayer.address;
      const { status, body } = await get(buildApp(WITH_FOURTH), `/sellers/${wallet}/rails/fourth`);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toEqual({ scheme: "fourth", payTo: wallet, ticketDesk: true });
      expect((await get(buildApp(RAILS), `/sellers/${wallet}/rails/fourth`)).status).toBe(400);
    },
  );

  it(
    "the scheduled handler over that list runs its job on the rails' trigger, after the shipped rails' " + "jobs",
    async () => {
      const outcome = await runScheduled(WITH_FOURTH, RAIL_JOBS_CRON, env as unknown as Env);
      expect(outcome.results?.map((r) => r.name)).toEqual([...railJobs(RAILS).map((job) => job.name), "fourth-keeper"]);
      expect(outcome.results?.at(-1)).toEqual({ name: "fourth-keeper", ok: true });
    },
  );

  it("the retention job over that list purges its table after the core's and the shipped rails' tables", async () => {
    const withFourth = await configOf(WITH_FOURTH).load(env as unknown as Env);
    const retention = jobsByCron(WITH_FOURTH)[CORE_JOBS_CRON]!.find((job) => job.name === "retention")!;
    const outcome = (await retention.run(withFourth, env as unknown as Env)) as Record<string, number>;
    expect(Object.keys(outcome)).toEqual([
      "paymentAttemptsDeleted",
      "challengesDeleted",
      "spendHoursDeleted",
      "escrowWatchRowsDeleted",
      "sponsoredFailuresDeleted",
      "uptoChannelRowsDeleted",
      "fourthTicketsDeleted",
    ]);
    // its cutoff, from its configured fee (7 s)
    expect(fourthTicketPurges.at(-1)!.beforeMs).toBeLessThan(Date.now() - 6_000);
    const shipped = jobsByCron(RAILS)[CORE_JOBS_CRON]!.find((job) => job.name === "retention")!;
    expect(Object.keys((await shipped.run(config, env as unknown as Env)) as object)).not.toContain(
      "fourthTicketsDeleted",
    );
  });

  it("GET /supported of that app lists it; the Worker's own app (RAILS) refuses its payments", async () => {
    const ctx = createExecutionContext();
    const supported = await buildApp(WITH_FOURTH).fetch(
      new Request(`http://facilitator.test${API_PREFIX}/supported`),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(((await supported.json()) as { kinds: { scheme: string }[] }).kinds.at(-1)!.scheme).toBe("fourth");
    const shipped = await post(buildApp(), "/verify", body());
    expect(shipped.body).toMatchObject({ isValid: false, invalidReason: "invalid_payload" });
  });
});
