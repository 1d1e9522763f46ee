import type { SettlementRow } from "../store/settlements";

/**
 * One payment, one delivery. Sellers deliver on `success: true` alone, and the body of /settle may come verbatim
 * from the buyer's PAYMENT-SIGNATURE, so nothing in the body can earn a second success. Only the seller's own
 * retry can: the spec tells a retrying seller to reuse its `X-Correlation-ID` header, so a call that carries the
 * header of the call that heard success, within the line's maxTimeoutSeconds, hears it again. Anything else
 * about an already-reported payment is a `duplicate_settlement`.
 */
export function isSellerRetryOfReportedSuccess(
  row: SettlementRow,
  callerCorrelationId: string | null,
  nowMs: number,
): boolean {
  if (callerCorrelationId === null || row.successCorrelationId === null || row.successReportedAtMs === null)
    return false;
  if (callerCorrelationId !== row.successCorrelationId) return false;
  return nowMs <= row.successReportedAtMs + row.maxTimeoutSeconds * 1000;
}
