/**
 * Where a rail keeps rent the fee payer fronted on its own rows rather than in `fee_payer_exposure` (a rail's port
 * into the exposure budget, `RailModule.exposure.rentRows`): every held booking's caps, whichever rail or job books,
 * count these rows with the held bookings, and /health shows them under the rail's name. The table has the columns
 * `payer`, `pay_to` and `fee_payer` as `fee_payer_exposure` has them. Every value is SQL text the rail writes, never
 * a caller's.
 */
export interface RailRentRows {
  /** The rail's name in /health's rent out by rail. */
  rail: string;
  table: string;
  /** The column of the rent (lamports) the row fronted. */
  lamportsColumn: string;
  /** The condition of a row whose rent is out now (e.g. the account is not closed yet). */
  outWhere: string;
}
