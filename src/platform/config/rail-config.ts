import type { KeyPairSigner } from "@solana/kit";
import type * as v from "valibot";
import type { RailRentRows } from "../../store/rail-rent-rows";
import type { ClusterName } from "./networks";

/**
 * A rail's slice of the configuration: its keys (env var and D1 `parameters` names, with validation and default) and
 * how its typed members of `Config` are read from them. Each rail declares its slice in `rails/<scheme>/config.ts`;
 * load-config.ts validates the core's keys and every slice's together and merges what the slices read into `Config`
 * (a member object the core also has, such as `limits`, gains the slice's fields).
 */
export interface RailConfigSlice<Entries extends v.ObjectEntries, Members extends object> {
  keys: Entries;
  /** Keys only ever read from the Worker's own env (secrets, what decides what is allowed), never from the database. */
  envOnlyKeys?: readonly (keyof Entries & string)[];
  /** Keys that are Worker secrets: never echoed. */
  secretKeys?: readonly (keyof Entries & string)[];
  /** The slice's members, from its validated keys; a bad combination throws `ConfigError` naming the key. */
  read(input: RailConfigInput<Entries>, context: RailConfigContext): Promise<Members> | Members;
}

/** A slice's validated keys. */
export type RailConfigInput<Entries extends v.ObjectEntries> = v.InferOutput<v.ObjectSchema<Entries, undefined>>;

/** What a slice may read of the core's configuration. */
export interface RailConfigContext {
  environment: "local" | "preview" | "production";
  /** The cluster (a rail keeps its own public defaults per cluster in its folder). */
  cluster: ClusterName;
  feePayer: KeyPairSigner;
}

/** Declares a slice with its types inferred. */
export function railConfigSlice<Entries extends v.ObjectEntries, Members extends object>(
  slice: RailConfigSlice<Entries, Members>,
): RailConfigSlice<Entries, Members> {
  return slice;
}

/** Any rail's slice, as the loader reads it (its keys' and members' types erased). */
// biome-ignore lint/suspicious/noExplicitAny: a slice is typed by its own keys, so no narrower type holds them all
export type AnyRailConfigSlice = RailConfigSlice<any, object>;

/**
 * A rails list as the configuration sees it: each rail's optional slice (`RailModule.config`) and where it keeps rent
 * the fee payer fronted (`RailModule.exposure.rentRows`).
 */
export type ConfigRails = readonly { config?: AnyRailConfigSlice; exposure?: { rentRows?: RailRentRows } }[];

type Intersection<U> = (U extends unknown ? (members: U) => void : never) extends (members: infer I) => void
  ? I
  : never;

/**
 * The members each rail adds to `Config`, one key per rail. A rail adds its own by declaration merging, from its
 * `config.ts`: `declare module "../../platform/config/rail-config" { interface RailConfigMembersByRail { <scheme>:
 * ItsConfigMembers } }`. So `Config` is typed without the core importing the registry or a rail (no import circle); a
 * rail outside src/ (the test fixture) is not in it and reads its members through a cast.
 */
// biome-ignore lint/suspicious/noEmptyInterface: rails add to it by declaration merging; a type alias takes none
export interface RailConfigMembersByRail {}

/** What the rails' slices add to `Config` (a member object the core also has, such as `rails`, gains their fields). */
export type RailConfigMembers = Intersection<RailConfigMembersByRail[keyof RailConfigMembersByRail]>;
