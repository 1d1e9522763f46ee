import { FacilitatorError, refused } from "../../platform/errors/catalogue";
import { bpsOf, feeOf, type RailFeeQuote } from "../fee-quote";
import { getSlaEscrowFacts } from "./escrow-facts";
import { ESCROW_AMOUNT_REASONS, escrowAmountLimits, escrowAmountViolation } from "./escrow-terms";

/** The `sla-escrow` quote, from the mint's Escrow account: the escrow fee on release, the oracle's tip on a verdict. */
export const slaEscrowFeeQuote: RailFeeQuote = {
  // An escrow not set up for the mint on this cluster (501), and the amounts the escrow refuses.
  reasons: ["not_implemented", ...ESCROW_AMOUNT_REASONS],
  async quote(config, { common, mint, amount }) {
    const facts = await getSlaEscrowFacts(config, mint);
    const escrow = facts.escrowAccount;
    if (!facts.bankAccount || !escrow)
      throw new FacilitatorError(
        "NOT_IMPLEMENTED",
        `the SLA-Escrow rail is not configured for ${mint} on this cluster`,
      );
    // An amount the escrow refuses is refused here as /verify and the builders refuse it, with the escrow's numbers.
    const violation = escrowAmountViolation(escrow, mint, amount);
    if (violation !== null)
      throw refused(violation.reason, `amount: amount ${amount} ${violation.rule}`, escrowAmountLimits(escrow));
    const protocolFee = feeOf(amount, escrow.feeBps, escrow.minFeeAmount);
    const oracleFee = bpsOf(amount, escrow.oracleFeeBps);
    return {
      scheme: "sla-escrow",
      ...common,
      tier: "escrow",
      feeBps: escrow.feeBps,
      minFeeAmount: escrow.minFeeAmount.toString(),
      protocolFee: protocolFee.toString(),
      oracleFee: oracleFee.toString(),
      provisioningRecoveryWithheld: "0",
      sellerNets: (amount - protocolFee).toString(),
      notes: [
        "The escrow fee is taken on the full amount when the payment is released to the seller (SLA-Escrow ABI " +
          "§7.3); a refund returns the amount to the buyer without it.",
        `When an oracle renders a verdict (approval or rejection), its tip ` +
          `of ${escrow.oracleFeeBps} bps (oracleFee) is paid from the escrowed amount on the release or refund: ` +
          `sellerNets less oracleFee then.`,
      ],
    };
  },
};
