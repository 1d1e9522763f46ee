import { type RouteDef, route } from "../../../http/route-def";
import { RAIL_SWITCH_REASONS } from "../../../platform/config/rail-switches";
import { VaultSnapshotQuerySchema } from "../sweep/sweep-inputs";
import { buildVaultSnapshot, integerJson } from "../sweep/vault-snapshot";
import { VaultSnapshotResponseSchema } from "./responses";

/** `/vault-snapshot`: a seller's split-vault balances (pr402's route). Public: the balances are on chain anyway. */
export function vaultSnapshotRoutes(): RouteDef[] {
  return [
    route({
      key: "vaultSnapshot",
      reasons: [...RAIL_SWITCH_REASONS],
      method: "GET",
      path: "/vault-snapshot",
      tag: "Sellers",
      summary:
        "A seller's split-vault balances: spendable SOL and, with ?spl_mint=, the vault token account " +
        "(?spl_balance_scope=owner_wallet: the seller wallet's own balance; ?spl_token_program= must match the mint)",
      query: VaultSnapshotQuerySchema,
      response: VaultSnapshotResponseSchema,
      handler: async (c, { query }) => {
        const snapshot = await buildVaultSnapshot(c.var.config, query.wallet, query.spl_mint, {
          splTokenProgram: query.spl_token_program,
          splBalanceScope: query.spl_balance_scope,
        });
        return c.body(integerJson(snapshot), 200, { "Content-Type": "application/json; charset=UTF-8" });
      },
    }),
  ];
}
