import { type Address, isOffCurveAddress } from "@solana/kit";

/**
 * The most addresses remembered; past it the memory starts over (a flood of distinct addresses costs only the check).
 */
const MAX_REMEMBERED = 4096;
const remembered = new Map<Address, boolean>();

/**
 * Whether `address` is off the ed25519 curve (a program-derived address, never a wallet's key), remembered per isolate.
 * kit's check decodes the address through BigInt and takes a square root in the field in BigInt arithmetic: in
 * workerd about a tenth of a whole /verify's CPU and much of its garbage (profiled). The answer is a fact of the
 * address alone, so it is safe to keep; a seller's lines repeat the same `payTo`.
 */
export function isOffCurve(address: Address): boolean {
  let offCurve = remembered.get(address);
  if (offCurve === undefined) {
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    offCurve = isOffCurveAddress(address);
    remembered.set(address, offCurve);
  }
  return offCurve;
}
