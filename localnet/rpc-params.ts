/**
 * Reading JSON-RPC params the way Agave validates them (positional array, optional trailing config
 * object), with its error messages for the common mistakes.
 */
import type { JsonValue } from "./json-bigint";
import type { LocalChain } from "./local-chain";
import { invalidParams, invalidPubkeyParam, minContextSlotNotReached } from "./rpc-errors";
import { decodeBase58 } from "./wire-transaction";

export type RpcParams = readonly JsonValue[];
export type RpcConfig = { [key: string]: JsonValue | undefined };

const COMMITMENTS = new Set(["processed", "confirmed", "finalized", "recent", "single", "singleGossip", "root", "max"]);

export function requiredParam(params: RpcParams, index: number, what: string): JsonValue {
  const value = params[index];
  if (value === undefined) throw invalidParams(`Invalid params: missing ${what}`);
  return value;
}

export function pubkeyParam(value: JsonValue | undefined): string {
  if (typeof value !== "string" || value.length < 32 || value.length > 44) throw invalidPubkeyParam();
  try {
    if (decodeBase58(value).length !== 32) throw invalidPubkeyParam();
  } catch {
    throw invalidPubkeyParam();
  }
  return value;
}

export function signatureParam(value: JsonValue | undefined): string {
  if (typeof value !== "string") throw invalidParams("Invalid param: Invalid");
  try {
    if (decodeBase58(value).length !== 64) throw new Error("length");
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
  return value;
}

/** The optional config object at `index`; commitment is accepted loosely (everything is final). */
export function configParam(params: RpcParams, index: number): RpcConfig {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw invalidParams("Invalid params: invalid type: expected struct config");
  }
  const commitment = value.commitment;
  if (commitment !== undefined && (typeof commitment !== "string" || !COMMITMENTS.has(commitment))) {
    throw invalidParams(
      `Invalid params: unknown variant ` +
        `\`${String(commitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``,
    );
  }
  return value;
}

/** A u64 given as a JSON number (possibly big) or a decimal string. */
export function u64Param(value: JsonValue | undefined, what: string): bigint {
  let result: bigint | undefined;
  if (typeof value === "bigint") result = value;
  else if (typeof value === "number" && Number.isSafeInteger(value)) result = BigInt(value);
  else if (typeof value === "string" && /^\d+$/.test(value)) result = BigInt(value);
  if (result === undefined || result < 0n || result > 0xffff_ffff_ffff_ffffn) {
    throw invalidParams(`Invalid params: ${what} must be an unsigned 64-bit integer`);
  }
  return result;
}

export function booleanOption(config: RpcConfig, key: string, fallback: boolean): boolean {
  const value = config[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw invalidParams(`Invalid params: ${key} must be a boolean`);
  return value;
}

/** Rejects a request whose minContextSlot is ahead of the chain (-32016), like a lagging node. */
export function checkMinContextSlot(chain: LocalChain, config: RpcConfig): void {
  const raw = config.minContextSlot;
  if (raw === undefined || raw === null) return;
  const minContextSlot = u64Param(raw, "minContextSlot");
  const { slot } = chain.sync();
  if (slot < minContextSlot) throw minContextSlotNotReached(slot);
}
