import * as v from "valibot";
import { Address } from "../responses/fields";

/** Success bodies of `/supported` and `/capabilities` (routes/discovery.ts). */

export const SupportedResponseSchema = v.looseObject({
  kinds: v.array(
    v.looseObject({
      x402Version: v.literal(2),
      scheme: v.string(),
      network: v.string(),
      extra: v.record(v.string(), v.unknown()),
    }),
  ),
  extensions: v.array(v.string()),
  signers: v.record(v.string(), v.array(Address)),
});

export const CapabilitiesResponseSchema = v.looseObject({
  schemaVersion: v.string(),
  x402Version: v.literal(2),
  network: v.string(),
  feePayer: Address,
  supported: SupportedResponseSchema,
  features: v.record(v.string(), v.boolean()),
  httpEndpoints: v.record(v.string(), v.looseObject({ method: v.string(), path: v.string() })),
  agentManifest: v.record(v.string(), v.string()),
});
