import * as v from "valibot";
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../../../chain/token-programs";
import { Base58Address } from "../../../x402/schemas";

/** Request shapes of the operator routes, validated at the edge (400 naming the field). */

const Seconds = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number of seconds`),
    v.integer(`${what} must be a whole number`),
    v.minValue(0, `${what} must not be negative`),
    v.maxValue(31_536_000, `${what} must be at most one year`),
  );

/** POST /sweep: every field optional; an empty body means the configured defaults. */
export const SweepBodySchema = v.strictObject(
  {
    dryRun: v.optional(v.boolean("must be true or false")),
    limit: v.optional(
      v.pipe(
        v.number("must be a number"),
        v.integer("must be a whole number"),
        v.minValue(1, "must be at least 1"),
        v.maxValue(1_000, "must be at most 1000"),
      ),
    ),
    cooldownSeconds: v.optional(Seconds("cooldownSeconds")),
    requireRecentSettleWithinSeconds: v.optional(Seconds("requireRecentSettleWithinSeconds")),
  },
  "only dryRun, limit, cooldownSeconds and requireRecentSettleWithinSeconds are accepted",
);
export type SweepBody = v.InferOutput<typeof SweepBodySchema>;

/** pr402 accepts these spellings of the wallet scope (src/bin/handlers/sweep.rs). */
const OWNER_WALLET_SCOPES = ["owner_wallet", "owner_mint", "get_token_accounts_by_owner"] as const;

/** GET /vault-snapshot?wallet=&spl_mint=&spl_token_program=&spl_balance_scope= (pr402's scope parameters). */
export const VaultSnapshotQuerySchema = v.object({
  wallet: Base58Address,
  spl_mint: v.optional(Base58Address),
  spl_token_program: v.optional(
    v.picklist([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS], "must be the SPL Token or Token-2022 program"),
  ),
  spl_balance_scope: v.optional(
    v.pipe(
      v.picklist(["vault_ata", ...OWNER_WALLET_SCOPES], `must be vault_ata or owner_wallet`),
      v.transform((scope): "vault_ata" | "owner_wallet" => (scope === "vault_ata" ? "vault_ata" : "owner_wallet")),
    ),
  ),
});
