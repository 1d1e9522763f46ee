/**
 * The JSON-RPC 2.0 envelope: single and batch requests, notifications, and mapping failures to
 * error objects. Method semantics live in methods/*.
 */
import { JsonSyntaxError, type JsonValue, parseJsonWithBigInts, stringifyJsonWithBigInts } from "./json-bigint";
import { methodNotFound, RPC_ERROR_CODE, RpcError } from "./rpc-errors";
import type { RpcParams } from "./rpc-params";

export type RpcMethod = (params: RpcParams) => unknown;
export type RpcMethodTable = Record<string, RpcMethod>;

type RequestId = string | number | bigint | null;

interface RpcResponse {
  jsonrpc: "2.0";
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  id: RequestId;
}

export interface DispatchOptions {
  /** Called for unexpected exceptions (bugs), which clients only see as -32603. */
  onInternalError?: (method: string, error: unknown) => void;
  /** Called with each well-formed request's method name before it runs (the benchmark's request log). */
  onMethod?: (method: string) => void;
}

/** Handles one HTTP body; returns the response body, or null when nothing must be sent back. */
export async function dispatchRpcBody(
  body: string,
  methods: RpcMethodTable,
  options: DispatchOptions = {},
): Promise<string | null> {
  let parsed: JsonValue;
  try {
    parsed = parseJsonWithBigInts(body);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    return stringifyJsonWithBigInts(errorResponse(null, new RpcError(RPC_ERROR_CODE.PARSE_ERROR, "Parse error")));
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) {
      return stringifyJsonWithBigInts(
        errorResponse(null, new RpcError(RPC_ERROR_CODE.INVALID_REQUEST, "Invalid request")),
      );
    }
    const responses: RpcResponse[] = [];
    // Sequential on purpose: a batch observes its own earlier effects, as on a single node.
    for (const request of parsed) {
      const response = await dispatchOne(request, methods, options);
      if (response !== null) responses.push(response);
    }
    return responses.length === 0 ? null : stringifyJsonWithBigInts(responses);
  }
  const response = await dispatchOne(parsed, methods, options);
  return response === null ? null : stringifyJsonWithBigInts(response);
}

async function dispatchOne(
  request: JsonValue,
  methods: RpcMethodTable,
  options: DispatchOptions,
): Promise<RpcResponse | null> {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return errorResponse(null, new RpcError(RPC_ERROR_CODE.INVALID_REQUEST, "Invalid request"));
  }
  const hasId = "id" in request;
  const id = toRequestId(request.id);
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string") {
    return errorResponse(id, new RpcError(RPC_ERROR_CODE.INVALID_REQUEST, "Invalid request"));
  }
  options.onMethod?.(request.method);
  const params = request.params ?? [];
  const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
  let response: RpcResponse;
  if (method === undefined) {
    response = errorResponse(id, methodNotFound());
  } else if (!Array.isArray(params)) {
    response = errorResponse(id, new RpcError(RPC_ERROR_CODE.INVALID_PARAMS, "Invalid params: expected an array"));
  } else {
    try {
      response = { jsonrpc: "2.0", result: await method(params), id };
    } catch (error) {
      if (error instanceof RpcError) {
        response = errorResponse(id, error);
      } else {
        options.onInternalError?.(request.method, error);
        const message = error instanceof Error ? error.message : String(error);
        response = errorResponse(id, new RpcError(RPC_ERROR_CODE.INTERNAL_ERROR, `Internal error: ${message}`));
      }
    }
  }
  // A request without an id is a notification: it runs, but gets no answer.
  return hasId ? response : null;
}

function toRequestId(raw: JsonValue | undefined): RequestId {
  if (typeof raw === "string" || typeof raw === "number" || typeof raw === "bigint") return raw;
  return null;
}

function errorResponse(id: RequestId, error: RpcError): RpcResponse {
  const body: RpcResponse["error"] = { code: error.code, message: error.message };
  if (error.data !== undefined) body.data = error.data;
  return { jsonrpc: "2.0", error: body, id };
}
