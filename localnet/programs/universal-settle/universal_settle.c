/*
 * universal_settle.c - a STAND-IN for the closed-source UniversalSettle split-vault program.
 *
 * DEVELOPMENT AND TEST FIXTURE ONLY. Loaded by the local chain at the devnet program id so that the
 * facilitator's CreateVault and Sweep transactions execute for real. It follows the public ABI
 * (docs/universal-settle-abi.md) where it speaks and documents its own choices where it is
 * silent (localnet/programs/README.md). It is not the real program and must never be deployed.
 *
 * Instructions:
 *   1 CreateVault [1] ‖ seller(32)
 *       payer (s,w), vault PDA (w), vault SOL storage PDA (w), System program
 *   0 Sweep [0] ‖ mint(32) ‖ amount u64 ‖ is_sol u8 ‖ 7 zero bytes
 *       SOL: payer (s,w), vault (w), config, SOL storage (w), seller (w), fee receiver (w), System
 *       SPL: payer (s,w), vault (w), config, vault ATA (w), seller ATA (w), fee ATA (w), mint, token program
 */
#include "../include/sbf.h"
#include "errors.h"

/* ------------------------------------------------------------------------------------------------ */
/* ABI                                                                                              */

#define IX_SWEEP 0
#define IX_CREATE_VAULT 1
#define CREATE_VAULT_DATA_LEN 33
#define SWEEP_DATA_LEN 49

#define DISC_CONFIG 0
#define DISC_SPLIT_VAULT 1

static const char SEED_CONFIG[] = "config";
static const char SEED_VAULT[] = "vault";
static const char SEED_SOL_STORAGE[] = "sol_storage";
static const char SEED_FEE_SHARD[] = "fee_shard";
static const char SEED_FEE_SHARD_SOL[] = "fee_shard_sol";
#define SEED_LEN(s) (sizeof(s) - 1)

/* SplitVault: 8-byte header + 56-byte body (offsets in comments are inside the body). */
typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  SolPubkey seller;       /* @0 */
  uint64_t sol_recovered; /* @32 */
  uint64_t spl_recovered; /* @40 */
  uint8_t is_provisioned; /* @48 */
  uint8_t bump;           /* @49 */
  uint8_t is_sovereign;   /* @50 */
  uint8_t padding[5];     /* @51 */
} SplitVault;
STATIC_ASSERT(sizeof(SplitVault) == 64, "SplitVault is 64 bytes on chain");

/* Config: 8-byte header + 112-byte body. */
typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  SolPubkey authority;           /* @0 */
  SolPubkey fee_destination;     /* @32 */
  int64_t updated_at;            /* @64 */
  uint64_t min_fee_amount;       /* @72 SPL raw units */
  uint64_t min_fee_amount_sol;   /* @80 lamports */
  uint64_t provisioning_fee_sol; /* @88 recovery target */
  uint64_t provisioning_fee_spl; /* @96 recovery target */
  uint16_t fee_bps;              /* @104 standard */
  uint16_t discounted_fee_bps;   /* @106 sovereign vaults */
  uint8_t use_fee_shard;         /* @108 */
  uint8_t shard_count;           /* @109 */
  uint8_t padding[2];            /* @110 */
} Config;
STATIC_ASSERT(sizeof(Config) == 120, "Config is 120 bytes on chain");

/* ------------------------------------------------------------------------------------------------ */
/* Account checks                                                                                   */

static uint64_t require_signer_writable(const SolAccountInfo *a) {
  if (!a->is_signer) return US_ERR_MISSING_SIGNATURE;
  if (!a->is_writable) return US_ERR_ACCOUNT_NOT_WRITABLE;
  return SUCCESS;
}

static uint64_t require_writable(const SolAccountInfo *a) {
  return a->is_writable ? SUCCESS : US_ERR_ACCOUNT_NOT_WRITABLE;
}

/* A System-owned account without data: what a SOL storage PDA is (System transfers out of it need
 * exactly that). An address that never received lamports also qualifies. */
static bool is_system_wallet(const SolAccountInfo *a) {
  return pubkey_eq(a->owner, &SYSTEM_PROGRAM_ID) && a->data_len == 0;
}

static void vault_seeds(PdaSeeds *s, const SolPubkey *seller) {
  s->count = 0;
  seeds_push(s, SEED_VAULT, SEED_LEN(SEED_VAULT));
  seeds_push(s, seller, PUBKEY_BYTES);
}

static void sol_storage_seeds(PdaSeeds *s, const SolPubkey *vault) {
  s->count = 0;
  seeds_push(s, SEED_SOL_STORAGE, SEED_LEN(SEED_SOL_STORAGE));
  seeds_push(s, vault, PUBKEY_BYTES);
}

/* The Config PDA holding a Config record. */
static uint64_t load_config(const SolAccountInfo *account, const SolPubkey *program_id, const Config **out) {
  if (!is_program_account(account, program_id, DISC_CONFIG, sizeof(Config))) return US_ERR_INVALID_CONFIG;
  PdaSeeds s = {.count = 0};
  seeds_push(&s, SEED_CONFIG, SEED_LEN(SEED_CONFIG));
  if (!pda_find_and_match(&s, program_id, account->key)) return US_ERR_INVALID_CONFIG;
  *out = (const Config *)account->data;
  return SUCCESS;
}

/* A vault checked by load_vault: its record and its signer seeds. */
typedef struct {
  const SolAccountInfo *account;
  SplitVault *record;
  PdaSeeds seeds;
} LoadedVault;

/* An initialised, writable vault at PDA("vault", seller, bump). */
static uint64_t load_vault(const SolAccountInfo *account, const SolPubkey *program_id, LoadedVault *out) {
  TRY(require_writable(account));
  if (!is_program_account(account, program_id, DISC_SPLIT_VAULT, sizeof(SplitVault)))
    return US_ERR_INVALID_VAULT_ACCOUNT;
  SplitVault *vault = (SplitVault *)account->data;
  vault_seeds(&out->seeds, &vault->seller);
  if (!pda_match_with_bump(&out->seeds, vault->bump, program_id, account->key)) return US_ERR_INVALID_VAULT_ADDRESS;
  out->account = account;
  out->record = vault;
  return SUCCESS;
}

/* Where the fee of a sweep goes: Config.fee_destination, or with sharding the seller's shard PDA
 * (its token account for SPL) or that shard's SOL storage PDA (SOL). Shard = seller[0] % count. */
static uint64_t expected_fee_owner(const Config *config, const SplitVault *vault, const SolPubkey *program_id,
                                   bool is_sol, SolPubkey *out) {
  if (!config->use_fee_shard) {
    *out = config->fee_destination;
    return SUCCESS;
  }
  if (config->shard_count == 0) return US_ERR_INVALID_CONFIG;
  uint8_t index_le[8];
  write_u64_le(index_le, (uint64_t)(vault->seller.x[0] % config->shard_count));
  PdaSeeds s = {.count = 0};
  seeds_push(&s, SEED_FEE_SHARD, SEED_LEN(SEED_FEE_SHARD));
  seeds_push(&s, index_le, sizeof(index_le));
  SolPubkey shard;
  if (sol_try_find_program_address(s.seeds, s.count, program_id, &shard, &s.bump) != 0) return US_ERR_INVALID_CONFIG;
  if (!is_sol) {
    *out = shard;
    return SUCCESS;
  }
  s.count = 0;
  seeds_push(&s, SEED_FEE_SHARD_SOL, SEED_LEN(SEED_FEE_SHARD_SOL));
  seeds_push(&s, &shard, PUBKEY_BYTES);
  if (sol_try_find_program_address(s.seeds, s.count, program_id, out, &s.bump) != 0) return US_ERR_INVALID_CONFIG;
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* CreateVault                                                                                      */

#define CV_PAYER 0
#define CV_VAULT 1
#define CV_SOL_STORAGE 2
#define CV_SYSTEM 3
#define CV_ACCOUNT_COUNT 4

static uint64_t process_create_vault(SolInput *in) {
  if (in->data_len != CREATE_VAULT_DATA_LEN) return US_ERR_INVALID_INSTRUCTION;
  if (in->account_count < CV_ACCOUNT_COUNT) return US_ERR_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *payer = &in->accounts[CV_PAYER];
  SolAccountInfo *vault = &in->accounts[CV_VAULT];
  const SolAccountInfo *storage = &in->accounts[CV_SOL_STORAGE];
  SolPubkey seller;
  sbf_copy(&seller, in->data + 1, PUBKEY_BYTES);

  TRY(require_signer_writable(payer));
  TRY(require_writable(vault));
  TRY(require_writable(storage));
  if (!pubkey_eq(in->accounts[CV_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return US_ERR_INVALID_SYSTEM_PROGRAM;

  PdaSeeds v;
  vault_seeds(&v, &seller);
  if (!pda_find_and_match(&v, in->program_id, vault->key)) return US_ERR_INVALID_VAULT_ADDRESS;
  PdaSeeds st;
  sol_storage_seeds(&st, vault->key);
  if (!pda_find_and_match(&st, in->program_id, storage->key)) return US_ERR_INVALID_SOL_STORAGE;
  /* An address that only ever received lamports is not a vault yet; anything with an owner other
   * than System or with data is. */
  if (!is_system_wallet(vault)) return US_ERR_VAULT_ALREADY_EXISTS;
  if (!is_system_wallet(storage)) return US_ERR_INVALID_SOL_STORAGE;

  SolSignerSeeds vault_signer = pda_signer(&v);
  TRY(create_pda_account(payer, vault, sizeof(SplitVault), in->program_id, &vault_signer));
  account_refresh_data_len(vault);
  /* The SOL storage stays a System account (so that System can move lamports out of it, signed by
   * its seeds); "creating" it means funding its rent-exempt reserve. Buyers may have paid into it
   * already, in which case only a missing part of the reserve is added. */
  uint64_t storage_reserve = rent_exempt_minimum(0);
  if (*storage->lamports == 0) {
    SolSignerSeeds storage_signer = pda_signer(&st);
    TRY(system_create_account(payer, storage, 0, &SYSTEM_PROGRAM_ID, &storage_signer));
  } else if (*storage->lamports < storage_reserve) {
    TRY(system_transfer(payer, storage, storage_reserve - *storage->lamports, NULL));
  }

  SplitVault *record = (SplitVault *)vault->data;
  bool sovereign = pubkey_eq(payer->key, &seller);
  write_account_header(record->header, DISC_SPLIT_VAULT);
  record->seller = seller;
  record->sol_recovered = 0;
  record->spl_recovered = 0;
  /* A sovereign vault was paid for by its seller: there is nothing to recover. */
  record->is_provisioned = sovereign ? 1 : 0;
  record->bump = v.bump;
  record->is_sovereign = sovereign ? 1 : 0;
  sbf_zero(record->padding, sizeof(record->padding));
  if (sovereign)
    LOG("UniversalSettle stand-in: CreateVault (sovereign)");
  else
    LOG("UniversalSettle stand-in: CreateVault");
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Sweep                                                                                            */

#define SW_PAYER 0
#define SW_VAULT 1
#define SW_CONFIG 2
/* SOL */
#define SW_SOL_STORAGE 3
#define SW_SELLER 4
#define SW_FEE_RECEIVER 5
#define SW_SOL_SYSTEM 6
#define SW_SOL_ACCOUNT_COUNT 7
/* SPL */
#define SW_VAULT_ATA 3
#define SW_SELLER_ATA 4
#define SW_FEE_ATA 5
#define SW_MINT 6
#define SW_TOKEN_PROGRAM 7
#define SW_SPL_ACCOUNT_COUNT 8

typedef struct {
  uint64_t amount;   /* swept out of the vault */
  uint64_t fee;      /* to the fee receiver */
  uint64_t withheld; /* provisioning recovery, also to the fee receiver */
  uint64_t payout;   /* to the seller */
} SweepSplit;

/* The split of a sweep of `amount`, updating the vault's recovery counters. The fee is the larger
 * of fee_bps (discounted_fee_bps for a sovereign vault) of the amount and the Config minimum; a
 * not-yet-provisioned, non-sovereign vault also withholds what is still missing of the recovery
 * target from the seller's share. */
static uint64_t split_sweep(const Config *config, SplitVault *vault, uint64_t amount, bool is_sol, SweepSplit *out) {
  uint64_t min_fee = is_sol ? config->min_fee_amount_sol : config->min_fee_amount;
  if (amount < min_fee) {
    LOG("UniversalSettle stand-in: sweep amount is below the minimum fee");
    return US_ERR_AMOUNT_BELOW_MINIMUM_FEE;
  }
  uint16_t bps = vault->is_sovereign ? config->discounted_fee_bps : config->fee_bps;
  if (bps > BPS_DENOMINATOR) bps = BPS_DENOMINATOR;
  uint64_t fee = min_u64(max_u64(bps_of(amount, bps), min_fee), amount);
  uint64_t net = amount - fee;

  uint64_t withheld = 0;
  if (!vault->is_sovereign && !vault->is_provisioned) {
    uint64_t *recovered = is_sol ? &vault->sol_recovered : &vault->spl_recovered;
    uint64_t target = is_sol ? config->provisioning_fee_sol : config->provisioning_fee_spl;
    withheld = min_u64(net, saturating_sub_u64(target, *recovered));
    *recovered += withheld;
    if (vault->sol_recovered >= config->provisioning_fee_sol || vault->spl_recovered >= config->provisioning_fee_spl)
      vault->is_provisioned = 1;
  }
  out->amount = amount;
  out->fee = fee;
  out->withheld = withheld;
  out->payout = net - withheld;
  sol_log_64_(amount, fee, withheld, out->payout, vault->is_provisioned);
  return SUCCESS;
}

/* amount 0 = everything available; otherwise at most what is available. */
static uint64_t resolve_amount(uint64_t requested, uint64_t available, uint64_t *out) {
  if (requested == 0) {
    if (available == 0) return US_ERR_NOTHING_TO_SWEEP;
    *out = available;
    return SUCCESS;
  }
  if (requested > available) return US_ERR_INSUFFICIENT_VAULT_BALANCE;
  *out = requested;
  return SUCCESS;
}

static uint64_t sweep_sol(const SolInput *in, const Config *config, LoadedVault *loaded, uint64_t requested) {
  if (in->account_count < SW_SOL_ACCOUNT_COUNT) return US_ERR_NOT_ENOUGH_ACCOUNTS;
  SplitVault *vault = loaded->record;
  const SolAccountInfo *vault_account = loaded->account;
  const SolAccountInfo *storage = &in->accounts[SW_SOL_STORAGE];
  const SolAccountInfo *seller = &in->accounts[SW_SELLER];
  const SolAccountInfo *fee_receiver = &in->accounts[SW_FEE_RECEIVER];
  TRY(require_writable(storage));
  TRY(require_writable(seller));
  TRY(require_writable(fee_receiver));
  if (!pubkey_eq(in->accounts[SW_SOL_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return US_ERR_INVALID_SYSTEM_PROGRAM;

  PdaSeeds st;
  sol_storage_seeds(&st, vault_account->key);
  if (!pda_find_and_match(&st, in->program_id, storage->key) || !is_system_wallet(storage))
    return US_ERR_INVALID_SOL_STORAGE;
  if (!pubkey_eq(seller->key, &vault->seller)) return US_ERR_INVALID_SELLER_ACCOUNT;
  SolPubkey fee_owner;
  TRY(expected_fee_owner(config, vault, in->program_id, true, &fee_owner));
  if (!pubkey_eq(fee_receiver->key, &fee_owner)) return US_ERR_INVALID_FEE_RECEIVER;

  /* The storage keeps its rent-exempt reserve: a System account may not drop below it. */
  uint64_t available = saturating_sub_u64(*storage->lamports, rent_exempt_minimum(0));
  uint64_t amount;
  TRY(resolve_amount(requested, available, &amount));
  SweepSplit split;
  TRY(split_sweep(config, vault, amount, true, &split));

  SolSignerSeeds signer = pda_signer(&st);
  if (split.payout > 0) TRY(system_transfer(storage, seller, split.payout, &signer));
  if (split.fee + split.withheld > 0) TRY(system_transfer(storage, fee_receiver, split.fee + split.withheld, &signer));
  LOG("UniversalSettle stand-in: Sweep SOL");
  return SUCCESS;
}

static uint64_t sweep_spl(const SolInput *in, const Config *config, LoadedVault *loaded, const SolPubkey *mint_in_data,
                          uint64_t requested) {
  if (in->account_count < SW_SPL_ACCOUNT_COUNT) return US_ERR_NOT_ENOUGH_ACCOUNTS;
  SplitVault *vault = loaded->record;
  const SolAccountInfo *vault_account = loaded->account;
  const SolAccountInfo *vault_ata = &in->accounts[SW_VAULT_ATA];
  const SolAccountInfo *seller_ata = &in->accounts[SW_SELLER_ATA];
  const SolAccountInfo *fee_ata = &in->accounts[SW_FEE_ATA];
  const SolAccountInfo *mint = &in->accounts[SW_MINT];
  const SolPubkey *token_program = in->accounts[SW_TOKEN_PROGRAM].key;
  TRY(require_writable(vault_ata));
  TRY(require_writable(seller_ata));
  TRY(require_writable(fee_ata));

  if (!is_token_program(token_program)) return US_ERR_INVALID_TOKEN_PROGRAM;
  uint8_t decimals;
  if (!pubkey_eq(mint->key, mint_in_data) || !read_mint_decimals(mint, token_program, &decimals))
    return US_ERR_INVALID_MINT;
  if (!is_token_account_of(vault_ata, token_program, mint->key, vault_account->key))
    return US_ERR_INVALID_VAULT_TOKEN_ACCOUNT;
  if (!is_token_account_of(seller_ata, token_program, mint->key, &vault->seller)) return US_ERR_INVALID_SELLER_ACCOUNT;
  SolPubkey fee_owner;
  TRY(expected_fee_owner(config, vault, in->program_id, false, &fee_owner));
  if (!is_token_account_of(fee_ata, token_program, mint->key, &fee_owner)) return US_ERR_INVALID_FEE_RECEIVER;

  uint64_t amount;
  TRY(resolve_amount(requested, token_account_amount(vault_ata), &amount));
  SweepSplit split;
  TRY(split_sweep(config, vault, amount, false, &split));

  SolSignerSeeds signer = pda_signer(&loaded->seeds);
  TokenTransfer out = {token_program, vault_ata, mint, seller_ata, vault_account, decimals, &signer};
  if (split.payout > 0) TRY(token_transfer_checked(&out, split.payout));
  out.destination = fee_ata;
  if (split.fee + split.withheld > 0) TRY(token_transfer_checked(&out, split.fee + split.withheld));
  LOG("UniversalSettle stand-in: Sweep SPL");
  return SUCCESS;
}

static uint64_t process_sweep(const SolInput *in) {
  if (in->data_len != SWEEP_DATA_LEN) return US_ERR_INVALID_INSTRUCTION;
  if (in->account_count < 3) return US_ERR_NOT_ENOUGH_ACCOUNTS;
  SolPubkey mint;
  sbf_copy(&mint, in->data + 1, PUBKEY_BYTES);
  uint64_t requested = read_u64_le(in->data + 33);
  uint8_t is_sol = in->data[41];
  if (is_sol > 1 || (is_sol == 1) != pubkey_is_zero(&mint)) return US_ERR_INVALID_SOL_FLAG;

  TRY(require_signer_writable(&in->accounts[SW_PAYER]));
  LoadedVault vault;
  TRY(load_vault(&in->accounts[SW_VAULT], in->program_id, &vault));
  const Config *config;
  TRY(load_config(&in->accounts[SW_CONFIG], in->program_id, &config));
  if (is_sol) return sweep_sol(in, config, &vault, requested);
  return sweep_spl(in, config, &vault, &mint, requested);
}

/* ------------------------------------------------------------------------------------------------ */

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  if (!sbf_deserialize(input, &in)) return US_ERR_NOT_ENOUGH_ACCOUNTS;
  if (in.data_len == 0) return US_ERR_INVALID_INSTRUCTION;
  switch (in.data[0]) {
    case IX_SWEEP:
      return process_sweep(&in);
    case IX_CREATE_VAULT:
      return process_create_vault(&in);
    default:
      return US_ERR_INVALID_INSTRUCTION;
  }
}
