import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { expect } from "vitest";
import { SLA_ESCROW_CLUSTER_DEFAULTS } from "../../../src/rails/sla-escrow/cluster-defaults";
import { decodePayment } from "../../../src/rails/sla-escrow/program/accounts";
import { LOCAL_ORACLE } from "../keys";
import { chainRpc } from "./chain";
import { DEVNET, RESOURCE, signAsBuyer } from "./payment-fixtures";
import { call } from "./worker-http";

/** sla-escrow payments through the HTTP surface: enrich a naive line, build, sign as the buyer. */
export const ESCROW_PROGRAM = address(SLA_ESCROW_CLUSTER_DEFAULTS.devnet.programId);
export const ORACLE = address(LOCAL_ORACLE.address);
export const TTL = 3_600;
export const hex32 = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
let ip = 0;
export const client = () => ({ "CF-Connecting-IP": `10.77.${Math.floor(ip / 250)}.${ip++ % 250}` });

export async function escrowLine(asset: Address, amount: string, seller: Address): Promise<Record<string, any>> {
  const response = await call("/payment-required/enrich", {
    method: "POST",
    json: {
      x402Version: 2,
      resource: RESOURCE,
      accepts: [
        { scheme: "v2:solana:sla-escrow", network: DEVNET, asset, amount, payTo: seller, maxTimeoutSeconds: TTL },
      ],
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.accepts[0];
}

export async function build(buyer: Address, line: Record<string, any>, more: Record<string, unknown> = {}) {
  return call("/build-sla-escrow-payment-tx", {
    method: "POST",
    json: { payer: buyer, accepted: line, resource: RESOURCE, slaHash: hex32(), oracleAuthority: ORACLE, ...more },
    headers: client(),
  });
}

export async function signedEscrowBody(buyer: KeyPairSigner, line: Record<string, any>) {
  const built = await build(buyer.address, line);
  expect(built.status, JSON.stringify(built.body)).toBe(200);
  const body = built.body.verifyBodyTemplate;
  body.paymentPayload.payload.transaction = await signAsBuyer(built.body.transaction, buyer);
  return { body, built: built.body };
}

export const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", json, headers: { ...client(), ...headers } });

export async function paymentAccount(payment: Address) {
  const result = await chainRpc<{ value: { data: [string, string] } | null }>("getAccountInfo", [
    payment,
    { encoding: "base64", commitment: "confirmed" },
  ]);
  return result.value ? decodePayment(Uint8Array.from(atob(result.value.data[0]), (c) => c.charCodeAt(0))) : null;
}
