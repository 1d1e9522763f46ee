import * as v from "valibot";
import { route } from "../../../src/http/route-def";
import { integer } from "../../../src/platform/config/fields";
import type { Config } from "../../../src/platform/config/load-config";
import { railConfigSlice } from "../../../src/platform/config/rail-config";
import type { RailModule } from "../../../src/rails/rail";
import { settledWith } from "../../../src/settlement/settle-engine";
import { rejection } from "../../../src/x402/payment-verdict";

/**
 * A throwaway fourth rail, never shipped: it shows that a rail is one folder (this one) plus one registry line. Its
 * payload is a `ticket`; it verifies any ticket naming a payer, settles nothing, has one configuration key, one builder
 * route, one job, an enrich transform, a fee quote, a /health member, a /capabilities member, a
 * seller lookup and a retention part.
 */
const TicketPayloadSchema = v.looseObject({
  ticket: v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty")),
  payer: v.string(),
});

/** Its configuration: one key, read into `config.fourth` by the app built with it (never by the Worker's). */
export interface FourthConfigMembers {
  fourth: { ticketFee: number };
}
const fourthConfig = railConfigSlice({
  keys: { SVC_FOURTH_TICKET_FEE: integer(0, 1_000, 7) },
  read: (input): FourthConfigMembers => ({ fourth: { ticketFee: input.SVC_FOURTH_TICKET_FEE } }),
});
/** The cutoffs its retention part was called with (what a test reads, the fixture having no table). */
export const fourthTicketPurges: { beforeMs: number }[] = [];

/** `Config`'s type holds the registry's rails' members; an app built with this rail has its members too. */
const fourthOf = (config: Config) => (config as Config & FourthConfigMembers).fourth;

export const fourthRail: RailModule<FourthConfigMembers> = {
  scheme: "fourth",
  config: fourthConfig,
  payload: { schema: TicketPayloadSchema, describe: "a fourth-rail ticket (`ticket`)", transactionField: "ticket" },
  async supportedExtra(config) {
    return { feePayer: config.feePayer.address, ticketsOnly: "true", ticketFee: String(fourthOf(config).ticketFee) };
  },
  async verify(_config, body) {
    const payer = body.paymentPayload.payload.payer;
    return typeof payer === "string" ? { ok: true, payer } : rejection("invalid_payload", "a ticket names its payer");
  },
  async settle() {
    return settledWith(rejection("invalid_payload", "the fixture rail settles nothing"));
  },
  routes: [
    {
      slot: "builders",
      routes: () => [
        route({
          key: "buildFourthTicket",
          method: "POST",
          path: "/build-fourth-ticket",
          tag: "Tx Build",
          summary: "A ticket for the fixture rail",
          body: v.looseObject({ payer: v.string() }),
          handler: (c, { body }) => c.json({ ticket: `ticket-for-${body.payer}` }),
        }),
      ],
    },
  ],
  jobs: [
    {
      name: "fourth-keeper",
      run: async () => ({ closed: 0 }),
      summarize: () => ({ outcome: "ok", lamportsSpent: 0n, detail: null }),
    },
  ],
  // Its own lines gain the configured ticket fee; other lines are left alone.
  enrich: {
    reasons: [],
    run: async (config, body) => ({
      ...body,
      accepts: body.accepts.map((line) =>
        isFourthLine(line)
          ? { ...line, extra: { ...line.extra, ticketFee: String(fourthOf(config).ticketFee) } }
          : line,
      ),
    }),
  },
  // A flat configured fee per payment, nothing fronted.
  quote: {
    reasons: [],
    quote: async (config, { common, amount }) => {
      const fee = BigInt(fourthOf(config).ticketFee);
      return {
        scheme: "fourth",
        ...common,
        tier: "ticket",
        feeBps: 0,
        minFeeAmount: fee.toString(),
        protocolFee: fee.toString(),
        oracleFee: "0",
        provisioningRecoveryWithheld: "0",
        sellerNets: (amount - fee).toString(),
        notes: [],
      };
    },
  },
  // Its table's old rows: the fixture has no table, so its purge records the cutoff it was given and deletes nothing.
  retention: [
    {
      outcome: "fourthTicketsDeleted",
      before: (config, nowMs) => nowMs - fourthOf(config).ticketFee * 1_000,
      purge: async (_db, beforeMs) => {
        fourthTicketPurges.push({ beforeMs });
        return 0;
      },
    },
  ],
  // Its seller lookup: a ticket desk per wallet (the wallet itself, the fixture having no program).
  seller: { lookup: async (_config, wallet) => ({ scheme: "fourth", payTo: wallet, ticketDesk: true }) },
  health: { report: async (config) => ({ fourthTickets: { ticketFee: fourthOf(config).ticketFee } }) },
  describe: {
    features: (served) => ({ fourthTickets: served }),
    capabilities: (_config, artifact) => ({ fourthTicketGuide: artifact("/fourth-tickets.md") }),
  },
};

function isFourthLine(line: unknown): line is { scheme: "fourth"; extra?: Record<string, unknown> } {
  return typeof line === "object" && line !== null && (line as { scheme?: unknown }).scheme === "fourth";
}
