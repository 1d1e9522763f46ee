import type { Config } from "../../platform/config/load-config";
import type { RailRentRows } from "../../store/rail-rent-rows";
import type { RejectionReason } from "../../x402/rejection-reasons";

/**
 * A rail's port into the fee payer's exposure budget (`RailModule.exposure`), for a rail that fronts rent on rows of
 * its own and caps it with caps of its own: the budget counts those rows in every held booking's caps, lists the
 * rail's refusals with its own, and shows the rail's caps in /health, without naming the rail.
 */
export interface RailExposure {
  /** Where it keeps rent the fee payer fronted (the configuration lists them all: `config.railRentRows`). */
  rentRows?: RailRentRows;
  /** The refusals of its caps, listed after the budget's own (the OpenAPI document's order). */
  reasons?: readonly RejectionReason[];
  /** Its part of /health's `feePayerExposure`. */
  health?: RailExposureHealth;
}

export interface RailExposureHealth {
  /** A query of one row: the figures its caps report (read in the same D1 batch as the budget's). */
  figuresSql(nowMs: number): string;
  /**
   * From that row: its members of `feePayerExposure` (after the spent figures) and its caps (after the budget's), each
   * with its key, its limit and the largest use of it.
   */
  report(
    config: Config,
    figures: Record<string, number | string | null>,
  ): { members: Record<string, unknown>; caps: Record<string, RailCapUse> };
}

export interface RailCapUse {
  key: string;
  limit: bigint | number;
  used: bigint | number;
}
