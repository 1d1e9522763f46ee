/**
 * JSON-RPC errors with the codes and messages a Solana (Agave) node uses, so clients that branch on
 * them (kit maps -32002 to a preflight failure, -32016 to "min context slot not reached", …) behave
 * as against a real cluster.
 */

export const RPC_ERROR_CODE = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SEND_TRANSACTION_PREFLIGHT_FAILURE: -32002,
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE: -32003,
  TRANSACTION_SIGNATURE_LEN_MISMATCH: -32013,
  UNSUPPORTED_TRANSACTION_VERSION: -32015,
  MIN_CONTEXT_SLOT_NOT_REACHED: -32016,
} as const;

export class RpcError extends Error {
  override name = "RpcError";

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function invalidParams(message: string): RpcError {
  return new RpcError(RPC_ERROR_CODE.INVALID_PARAMS, message);
}

/** The message Agave gives for a base58 string that is not a 32-byte public key. */
export function invalidPubkeyParam(): RpcError {
  return invalidParams("Invalid param: Invalid");
}

export function methodNotFound(): RpcError {
  return new RpcError(RPC_ERROR_CODE.METHOD_NOT_FOUND, "Method not found");
}

export function minContextSlotNotReached(contextSlot: bigint): RpcError {
  return new RpcError(RPC_ERROR_CODE.MIN_CONTEXT_SLOT_NOT_REACHED, "Minimum context slot has not been reached", {
    contextSlot,
  });
}
