/*
 * sla_escrow.c - a STAND-IN for the closed-source SLA-Escrow program.
 *
 * DEVELOPMENT AND TEST FIXTURE ONLY. Loaded by the local chain at the devnet program id so that the
 * facilitator's sla-escrow transactions (funding, delivery, oracle, payouts, disputes) execute for
 * real. Instructions 0-6 follow the normative ABI (its §5: account lists, constraints) and the protocol's
 * settlement table (its §7), both summarised in docs/sla-escrow-abi.md; 7-12 and
 * the extended-payment tail follow pr402's encoders. Where both are silent (PaymentExt layout, fee and
 * tip arithmetic, error codes) the choices are this file's, documented in localnet/programs/README.md
 * and docs/sla-escrow-abi.md. Never deploy it.
 *
 * Bank, Config and Escrow accounts are not created here: the local chain seeds them at their PDAs
 * (the real program has admin instructions for that, which the facilitator does not use).
 *
 * Lifecycle in this stand-in:
 *   FundPayment(V2) -> [SubmitDelivery] -> [ApproveDelivery | ConfirmOracle] -> ReleasePayment
 *                                                                           or RefundPayment
 *   Release/Refund pay the oracle its tip when oracle_fee_bps > 0 and a verdict exists, and close an
 *   extended payment's PaymentExt (rent to the buyer).
 *   V2 payments can also be disputed (state 11) and settled by the adjudicator with ResolveWithSplit,
 *   and their buyer and seller can agree on mutual actions (rotate adjudicator, extend TTL).
 *   ClosePayment returns the Payment account's rent to the buyer once closed_at has come.
 */
#include "../include/sbf.h"
#include "errors.h"

/* ------------------------------------------------------------------------------------------------ */
/* ABI                                                                                              */

enum Instruction {
  IX_FUND_PAYMENT = 0,
  IX_RELEASE_PAYMENT = 1,
  IX_REFUND_PAYMENT = 2,
  IX_CLOSE_PAYMENT = 3,
  IX_EXTEND_PAYMENT_TTL = 4,
  IX_SUBMIT_DELIVERY = 5,
  IX_CONFIRM_ORACLE = 6,
  IX_APPROVE_DELIVERY = 7,
  IX_FUND_PAYMENT_V2 = 8,
  IX_PROPOSE_MUTUAL_ACTION = 9,
  IX_ACCEPT_MUTUAL_ACTION = 10,
  IX_DISPUTE_PAYMENT = 11,
  IX_RESOLVE_WITH_SPLIT = 12,
};

/* Instruction data sizes, discriminator included. */
#define FUND_PAYMENT_DATA_LEN 177
#define FUND_PAYMENT_V2_DATA_LEN 217
#define EMPTY_DATA_LEN 1
#define EXTEND_TTL_DATA_LEN 9
#define DELIVERY_HASH_DATA_LEN 33
#define CONFIRM_ORACLE_DATA_LEN 73
#define MUTUAL_ACTION_DATA_LEN 49
#define DISPUTE_DATA_LEN 33
#define RESOLVE_WITH_SPLIT_DATA_LEN 73

#define DISC_BANK 100
#define DISC_CONFIG 101
#define DISC_ESCROW 102
#define DISC_PAYMENT 103
/* Stand-in choice: the ABI leaves PaymentExt opaque. */
#define DISC_PAYMENT_EXT 105

enum PaymentState {
  STATE_FUNDED = 0,
  STATE_RELEASED = 1,
  STATE_REFUNDED = 2,
  STATE_FUNDED_EXTENDED = 10, /* funded with FundPaymentV2: has a PaymentExt */
  STATE_DISPUTED = 11,        /* stand-in choice: a V2 payment under dispute (Release/Refund blocked) */
};

enum ResolutionState {
  RESOLUTION_PENDING = 0,
  RESOLUTION_APPROVED = 1,
  RESOLUTION_REJECTED = 2,
};

enum MutualAction {
  MUTUAL_ACTION_NONE = 0,
  MUTUAL_ACTION_ROTATE_ADJUDICATOR = 1,
  MUTUAL_ACTION_EXTEND_TTL = 2,
};

enum Party {
  PARTY_BUYER = 1,
  PARTY_SELLER = 2,
};

#define MIN_TTL_SECONDS 60
#define MAX_TTL_SECONDS 2592000
#define HASH_BYTES 32
#define UID_BYTES 32

static const char SEED_BANK[] = "bank";
static const char SEED_CONFIG[] = "config";
static const char SEED_ESCROW[] = "escrow";
static const char SEED_SOL_STORAGE[] = "sol_storage";
static const char SEED_PAYMENT[] = "payment";
static const char SEED_PAYMENT_EXT[] = "payment_ext";
#define SEED_LEN(s) (sizeof(s) - 1)

typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  SolPubkey authority; /* @0 */
  int64_t open_at;     /* @32 */
  uint16_t fee_bps;    /* @40 (unused here: payments take Escrow.fee_bps) */
  uint8_t padding[6];
} Bank;
STATIC_ASSERT(sizeof(Bank) == 56, "Bank is 56 bytes on chain");

typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  int64_t closure_delay_seconds;   /* @0 */
  int64_t refund_cooldown_seconds; /* @8 */
  int64_t delivery_cutoff_seconds; /* @16 */
  int64_t updated_at;              /* @24 */
} Config;
STATIC_ASSERT(sizeof(Config) == 40, "Config is 40 bytes on chain");

typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  SolPubkey mint;              /* @0 zero for native SOL */
  SolPubkey escrow_tokens;     /* @32 SOL storage or escrow ATA; zero = not recorded */
  int64_t open_at;             /* @64 */
  uint64_t fee_balance;        /* @72 fees kept in the escrow's funds */
  uint64_t token_liquidity;    /* @80 sum of the amounts of open payments */
  uint64_t min_payment_amount; /* @88 */
  uint64_t max_payment_amount; /* @96 0 = no maximum */
  uint64_t min_fee_amount;     /* @104 */
  uint16_t fee_bps;            /* @112 */
  uint16_t oracle_fee_bps;     /* @114 */
  uint8_t paused;              /* @116 */
  uint8_t padding[3];
} Escrow;
STATIC_ASSERT(sizeof(Escrow) == 128, "Escrow is 128 bytes on chain");

typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  uint8_t payment_uid[UID_BYTES];         /* @0 */
  SolPubkey escrow;                       /* @32 */
  SolPubkey buyer;                        /* @64 */
  SolPubkey seller;                       /* @96 */
  SolPubkey mint;                         /* @128 */
  SolPubkey oracle_authority;             /* @160 */
  uint8_t sla_hash[HASH_BYTES];           /* @192 */
  uint8_t delivery_hash[HASH_BYTES];      /* @224 */
  uint8_t resolution_hash[HASH_BYTES];    /* @256 */
  uint64_t amount;                        /* @288 */
  uint64_t min_fee_amount;                /* @296 */
  int64_t created_at;                     /* @304 */
  int64_t expires_at;                     /* @312 */
  int64_t closed_at;                      /* @320 */
  int64_t delivery_timestamp;             /* @328 0 = no delivery yet */
  int64_t oracle_authority_set_at;        /* @336 */
  int64_t closure_delay_seconds;          /* @344 */
  int64_t refund_cooldown_seconds;        /* @352 */
  int64_t delivery_cutoff_seconds;        /* @360 */
  uint16_t resolution_reason;             /* @368 */
  uint16_t fee_bps;                       /* @370 */
  uint16_t oracle_fee_bps;                /* @372 */
  uint8_t state;                          /* @374 */
  uint8_t resolution_state;               /* @375 */
} Payment;
STATIC_ASSERT(sizeof(Payment) == 384, "Payment is 384 bytes on chain");

/* PaymentExt (stand-in layout, documented in the README; the facilitator treats it as opaque). */
typedef struct {
  uint8_t header[ACCOUNT_HEADER_BYTES];
  SolPubkey payment;                        /* @0 */
  SolPubkey adjudicator;                    /* @32 signs ResolveWithSplit; starts as the oracle */
  uint8_t dispute_reason_hash[HASH_BYTES];  /* @64 */
  SolPubkey proposed_pubkey;                /* @96 pending mutual action */
  int64_t arbitration_window_seconds;       /* @128 disputes allowed until expires_at + this */
  uint64_t min_oracle_tip;                  /* @136 */
  int64_t disputed_at;                      /* @144 */
  int64_t proposed_value;                   /* @152 */
  uint8_t proposed_action;                  /* @160 MutualAction, 0 = none */
  uint8_t proposed_by;                      /* @161 Party */
  uint8_t is_disputed;                      /* @162 */
  uint8_t bump;                             /* @163 */
  uint8_t padding[4];
} PaymentExt;
STATIC_ASSERT(sizeof(PaymentExt) == 176, "PaymentExt is 176 bytes on chain");

/* ------------------------------------------------------------------------------------------------ */
/* Small checks                                                                                     */

static uint64_t require_signer(const SolAccountInfo *a) { return a->is_signer ? SUCCESS : SLA_ERR_MISSING_SIGNATURE; }

static uint64_t require_writable(const SolAccountInfo *a) {
  return a->is_writable ? SUCCESS : SLA_ERR_ACCOUNT_NOT_WRITABLE;
}

/* The acting party signed and is who the payment names. */
static uint64_t require_party(const SolAccountInfo *signer, const SolPubkey *expected, uint64_t wrong_party_error) {
  TRY(require_signer(signer));
  return pubkey_eq(signer->key, expected) ? SUCCESS : wrong_party_error;
}

static bool is_system_wallet(const SolAccountInfo *a) {
  return pubkey_eq(a->owner, &SYSTEM_PROGRAM_ID) && a->data_len == 0;
}

static bool is_funded_state(uint8_t state) { return state == STATE_FUNDED || state == STATE_FUNDED_EXTENDED; }

/* ------------------------------------------------------------------------------------------------ */
/* Loading the seeded accounts                                                                      */

/* Everything an instruction about one payment needs, loaded and checked. */
typedef struct {
  const SolPubkey *program_id;
  int64_t now;
  const SolAccountInfo *bank_account;
  const Bank *bank;
  const Config *config;
  const SolAccountInfo *escrow_account;
  Escrow *escrow;
  PdaSeeds escrow_seeds; /* signs for the escrow's token account */
  SolAccountInfo *payment_account;
  Payment *payment;
} Ctx;

static uint64_t load_bank(Ctx *ctx, const SolAccountInfo *account) {
  if (!is_program_account(account, ctx->program_id, DISC_BANK, sizeof(Bank))) return SLA_ERR_INVALID_BANK;
  PdaSeeds s = {.count = 0};
  seeds_push(&s, SEED_BANK, SEED_LEN(SEED_BANK));
  if (!pda_find_and_match(&s, ctx->program_id, account->key)) return SLA_ERR_INVALID_BANK;
  ctx->bank_account = account;
  ctx->bank = (const Bank *)account->data;
  return SUCCESS;
}

static uint64_t load_config(Ctx *ctx, const SolAccountInfo *account) {
  if (!is_program_account(account, ctx->program_id, DISC_CONFIG, sizeof(Config))) return SLA_ERR_INVALID_CONFIG;
  PdaSeeds s = {.count = 0};
  seeds_push(&s, SEED_CONFIG, SEED_LEN(SEED_CONFIG));
  if (!pda_find_and_match(&s, ctx->program_id, account->key)) return SLA_ERR_INVALID_CONFIG;
  ctx->config = (const Config *)account->data;
  return SUCCESS;
}

/* The Escrow at PDA("escrow", Escrow.mint, bank). */
static uint64_t load_escrow(Ctx *ctx, const SolAccountInfo *account) {
  if (!is_program_account(account, ctx->program_id, DISC_ESCROW, sizeof(Escrow))) return SLA_ERR_INVALID_ESCROW;
  Escrow *escrow = (Escrow *)account->data;
  PdaSeeds *s = &ctx->escrow_seeds;
  s->count = 0;
  seeds_push(s, SEED_ESCROW, SEED_LEN(SEED_ESCROW));
  seeds_push(s, &escrow->mint, PUBKEY_BYTES);
  seeds_push(s, ctx->bank_account->key, PUBKEY_BYTES);
  if (!pda_find_and_match(s, ctx->program_id, account->key)) return SLA_ERR_INVALID_ESCROW;
  ctx->escrow_account = account;
  ctx->escrow = escrow;
  return SUCCESS;
}

static void payment_seeds(PdaSeeds *s, const uint8_t *uid, const SolPubkey *bank) {
  s->count = 0;
  seeds_push(s, SEED_PAYMENT, SEED_LEN(SEED_PAYMENT));
  seeds_push(s, uid, UID_BYTES);
  seeds_push(s, bank, PUBKEY_BYTES);
}

static void payment_ext_seeds(PdaSeeds *s, const uint8_t *uid, const SolPubkey *bank) {
  s->count = 0;
  seeds_push(s, SEED_PAYMENT_EXT, SEED_LEN(SEED_PAYMENT_EXT));
  seeds_push(s, uid, UID_BYTES);
  seeds_push(s, bank, PUBKEY_BYTES);
}

/* An existing Payment of this escrow at PDA("payment", uid, bank). */
static uint64_t load_payment(Ctx *ctx, SolAccountInfo *account) {
  TRY(require_writable(account));
  if (!is_program_account(account, ctx->program_id, DISC_PAYMENT, sizeof(Payment)))
    return SLA_ERR_INVALID_PAYMENT_ACCOUNT;
  Payment *payment = (Payment *)account->data;
  if (!pubkey_eq(&payment->escrow, ctx->escrow_account->key)) return SLA_ERR_INVALID_PAYMENT_ACCOUNT;
  PdaSeeds s;
  payment_seeds(&s, payment->payment_uid, ctx->bank_account->key);
  if (!pda_find_and_match(&s, ctx->program_id, account->key)) return SLA_ERR_INVALID_PAYMENT_ADDRESS;
  ctx->payment_account = account;
  ctx->payment = payment;
  return SUCCESS;
}

/* Bank, Config and Escrow at accounts[first], [first + 1], [first + 2]. */
static uint64_t load_escrow_context(Ctx *ctx, const SolInput *in, uint64_t first) {
  ctx->program_id = in->program_id;
  ctx->now = clock_now();
  TRY(load_bank(ctx, &in->accounts[first]));
  TRY(load_config(ctx, &in->accounts[first + 1]));
  return load_escrow(ctx, &in->accounts[first + 2]);
}

/* Bank, Config, Escrow and Payment at accounts[first .. first + 3]. */
static uint64_t load_payment_context(Ctx *ctx, SolInput *in, uint64_t first) {
  TRY(load_escrow_context(ctx, in, first));
  return load_payment(ctx, &in->accounts[first + 3]);
}

/* The PaymentExt of ctx->payment. */
static uint64_t load_payment_ext(const Ctx *ctx, const SolAccountInfo *account, PaymentExt **out) {
  TRY(require_writable(account));
  if (!is_program_account(account, ctx->program_id, DISC_PAYMENT_EXT, sizeof(PaymentExt)))
    return SLA_ERR_INVALID_PAYMENT_EXT;
  PaymentExt *ext = (PaymentExt *)account->data;
  if (!pubkey_eq(&ext->payment, ctx->payment_account->key)) return SLA_ERR_INVALID_PAYMENT_EXT;
  PdaSeeds s;
  payment_ext_seeds(&s, ctx->payment->payment_uid, ctx->bank_account->key);
  if (!pda_match_with_bump(&s, ext->bump, ctx->program_id, account->key)) return SLA_ERR_INVALID_PAYMENT_EXT;
  *out = ext;
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* The escrow's funds: SOL storage (System account) or the escrow's token account                  */

typedef struct {
  bool is_sol;
  const SolAccountInfo *source;
  PdaSeeds sol_storage_seeds;
  SolSignerSeeds signer;
  TokenTransfer token; /* SPL: source, mint, authority (the escrow), decimals, signer; destination per payout */
} EscrowFunds;

/* The SOL storage at accounts[index]: PDA("sol_storage", mint, bank, escrow), a System account. */
static uint64_t open_sol_funds(const Ctx *ctx, const SolAccountInfo *storage, EscrowFunds *f) {
  TRY(require_writable(storage));
  PdaSeeds *s = &f->sol_storage_seeds;
  s->count = 0;
  seeds_push(s, SEED_SOL_STORAGE, SEED_LEN(SEED_SOL_STORAGE));
  seeds_push(s, &ctx->escrow->mint, PUBKEY_BYTES);
  seeds_push(s, ctx->bank_account->key, PUBKEY_BYTES);
  seeds_push(s, ctx->escrow_account->key, PUBKEY_BYTES);
  if (!pda_find_and_match(s, ctx->program_id, storage->key) || !is_system_wallet(storage))
    return SLA_ERR_INVALID_SOL_STORAGE;
  if (!pubkey_is_zero(&ctx->escrow->escrow_tokens) && !pubkey_eq(&ctx->escrow->escrow_tokens, storage->key))
    return SLA_ERR_INVALID_SOL_STORAGE;
  f->is_sol = true;
  f->source = storage;
  f->signer = pda_signer(s);
  return SUCCESS;
}

/* The escrow's token account for the escrow's mint, and the token route out of it. */
static uint64_t open_spl_funds(Ctx *ctx, const SolAccountInfo *escrow_ata, const SolAccountInfo *mint,
                               const SolAccountInfo *token_program, EscrowFunds *f) {
  TRY(require_writable(escrow_ata));
  if (!is_token_program(token_program->key)) return SLA_ERR_INVALID_TOKEN_PROGRAM;
  uint8_t decimals;
  if (!read_mint_decimals(mint, token_program->key, &decimals)) return SLA_ERR_INVALID_MINT;
  if (!is_token_account_of(escrow_ata, token_program->key, mint->key, ctx->escrow_account->key))
    return SLA_ERR_INVALID_ESCROW_TOKEN_ACCOUNT;
  if (!pubkey_is_zero(&ctx->escrow->escrow_tokens) && !pubkey_eq(&ctx->escrow->escrow_tokens, escrow_ata->key))
    return SLA_ERR_INVALID_ESCROW_TOKEN_ACCOUNT;
  f->is_sol = false;
  f->source = escrow_ata;
  f->signer = pda_signer(&ctx->escrow_seeds);
  TokenTransfer t = {token_program->key, escrow_ata, mint, NULL, ctx->escrow_account, decimals, &f->signer};
  f->token = t;
  return SUCCESS;
}

/* Pays `amount` out of the escrow's funds to `destination` (a wallet for SOL, a token account for
 * SPL), signed by the SOL storage / escrow PDA. */
static uint64_t pay_out(EscrowFunds *f, const SolAccountInfo *destination, uint64_t amount) {
  if (amount == 0) return SUCCESS;
  if (f->is_sol) return system_transfer(f->source, destination, amount, &f->signer);
  f->token.destination = destination;
  return token_transfer_checked(&f->token, amount);
}

/* Opens the funds from the account list that follows "mint" (index 5) in Fund/Release/Refund/
 * Resolve: SOL storage at [6]; or escrow ATA at [6] with the token program at `token_program_index`. */
static uint64_t open_funds(Ctx *ctx, const SolInput *in, uint64_t token_program_index, EscrowFunds *f) {
  const SolAccountInfo *mint = &in->accounts[5];
  if (!pubkey_eq(mint->key, &ctx->escrow->mint)) return SLA_ERR_INVALID_MINT;
  if (pubkey_is_zero(&ctx->escrow->mint)) return open_sol_funds(ctx, &in->accounts[6], f);
  return open_spl_funds(ctx, &in->accounts[6], mint, &in->accounts[token_program_index], f);
}

/* ------------------------------------------------------------------------------------------------ */
/* Fee arithmetic (stand-in choice, see the README)                                                 */

/* The escrow fee on `gross`: fee_bps of it, at least the payment's minimum fee, never more than `gross`.
 * Nothing is charged on nothing. On a release `gross` is the full amount (NORMATIVE v1.1 §7.3:
 * min(amount, max(min_fee_amount, floor(amount x fee_bps / 10^4)))); ResolveWithSplit, which no normative
 * text covers, charges it on the seller's share only. */
static uint64_t escrow_fee(const Payment *p, uint64_t gross) {
  if (gross == 0) return 0;
  uint16_t bps = p->fee_bps > BPS_DENOMINATOR ? BPS_DENOMINATOR : p->fee_bps;
  return min_u64(max_u64(bps_of(gross, bps), p->min_fee_amount), gross);
}

/* The oracle's (adjudicator's) tip: oracle_fee_bps of the amount, at least the V2 min_oracle_tip
 * (`ext` may be NULL for a V1 payment), never more than the amount. */
static uint64_t oracle_tip(const Payment *p, const PaymentExt *ext) {
  uint16_t bps = p->oracle_fee_bps > BPS_DENOMINATOR ? BPS_DENOMINATOR : p->oracle_fee_bps;
  uint64_t min_tip = ext ? ext->min_oracle_tip : 0;
  return min_u64(max_u64(bps_of(p->amount, bps), min_tip), p->amount);
}

/* docs/sla-escrow-abi.md, ABI §5.3 / §5.4: the tip accounts are required (and a tip paid) iff oracle_fee_bps > 0 and a
 * verdict exists; docs/sla-escrow-abi.md, protocol §5.3: paid on approval and rejection alike. */
static bool is_tip_due(const Payment *p) { return p->oracle_fee_bps > 0 && p->resolution_state != RESOLUTION_PENDING; }

/* ------------------------------------------------------------------------------------------------ */
/* FundPayment (0) / FundPaymentV2 (8)                                                              */

#define FUND_BUYER 0
#define FUND_BANK 1
#define FUND_PAYMENT 4
#define FUND_MINT 5
/* SOL */
#define FUND_SOL_STORAGE 6
#define FUND_SOL_SYSTEM 7
#define FUND_SOL_ACCOUNT_COUNT 8
/* SPL */
#define FUND_ESCROW_ATA 6
#define FUND_BUYER_ATA 7
#define FUND_TOKEN_PROGRAM 8
#define FUND_SPL_SYSTEM 9
#define FUND_SPL_ACCOUNT_COUNT 10

/* FundPayment body, decoded (offsets are into the instruction data, discriminator at 0). */
typedef struct {
  SolPubkey seller;            /* @1 */
  SolPubkey mint;              /* @33 */
  SolPubkey oracle_authority;  /* @65 */
  uint8_t payment_uid[UID_BYTES]; /* @97 */
  uint8_t sla_hash[HASH_BYTES];   /* @129 */
  uint64_t amount;             /* @161 */
  int64_t ttl_seconds;         /* @169 */
  /* V2 (zero for V1) */
  int64_t closure_delay_override;   /* @177 */
  int64_t refund_cooldown_override; /* @185 */
  int64_t delivery_cutoff_override; /* @193 */
  int64_t arbitration_window_seconds; /* @201 */
  uint64_t min_oracle_tip;          /* @209 */
  bool is_v2;
} FundArgs;

static void decode_fund_args(const SolInput *in, FundArgs *a) {
  const uint8_t *d = in->data;
  sbf_copy(&a->seller, d + 1, PUBKEY_BYTES);
  sbf_copy(&a->mint, d + 33, PUBKEY_BYTES);
  sbf_copy(&a->oracle_authority, d + 65, PUBKEY_BYTES);
  sbf_copy(a->payment_uid, d + 97, UID_BYTES);
  sbf_copy(a->sla_hash, d + 129, HASH_BYTES);
  a->amount = read_u64_le(d + 161);
  a->ttl_seconds = read_i64_le(d + 169);
  a->is_v2 = d[0] == IX_FUND_PAYMENT_V2;
  if (!a->is_v2) {
    a->closure_delay_override = a->refund_cooldown_override = a->delivery_cutoff_override = 0;
    a->arbitration_window_seconds = 0;
    a->min_oracle_tip = 0;
    return;
  }
  a->closure_delay_override = read_i64_le(d + 177);
  a->refund_cooldown_override = read_i64_le(d + 185);
  a->delivery_cutoff_override = read_i64_le(d + 193);
  a->arbitration_window_seconds = read_i64_le(d + 201);
  a->min_oracle_tip = read_u64_le(d + 209);
}

/* A V2 override replaces the Config default when positive (stand-in choice). */
static int64_t override_or(int64_t override_value, int64_t default_value) {
  return override_value > 0 ? override_value : default_value;
}

static uint64_t check_fund_args(const Ctx *ctx, const FundArgs *a) {
  const Escrow *e = ctx->escrow;
  if (e->paused) return SLA_ERR_ESCROW_PAUSED;
  if (ctx->now < ctx->bank->open_at || ctx->now < e->open_at) return SLA_ERR_ESCROW_NOT_OPEN;
  if (!pubkey_eq(&a->mint, &e->mint)) return SLA_ERR_INVALID_MINT;
  if (a->amount == 0 || a->amount < e->min_payment_amount) return SLA_ERR_AMOUNT_OUT_OF_RANGE;
  if (e->max_payment_amount != 0 && a->amount > e->max_payment_amount) return SLA_ERR_AMOUNT_OUT_OF_RANGE;
  if (a->ttl_seconds < MIN_TTL_SECONDS || a->ttl_seconds > MAX_TTL_SECONDS) return SLA_ERR_INVALID_TTL;
  if (pubkey_is_zero(&a->seller) || pubkey_eq(&a->seller, ctx->escrow_account->key)) return SLA_ERR_INVALID_SELLER;
  return SUCCESS;
}

/* Moves the buyer's amount into the escrow's funds. SOL: a System transfer into the SOL storage,
 * plus whatever its rent-exempt reserve still lacks (the first payment into a fresh storage). */
static uint64_t collect_payment(Ctx *ctx, const SolInput *in, const FundArgs *a) {
  const SolAccountInfo *buyer = &in->accounts[FUND_BUYER];
  if (pubkey_is_zero(&a->mint)) {
    if (!pubkey_eq(in->accounts[FUND_SOL_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
    EscrowFunds f;
    const SolAccountInfo *storage = &in->accounts[FUND_SOL_STORAGE];
    TRY(open_sol_funds(ctx, storage, &f));
    uint64_t reserve = rent_exempt_minimum(0);
    uint64_t missing = saturating_sub_u64(reserve, *storage->lamports);
    return system_transfer(buyer, storage, a->amount + missing, NULL);
  }
  if (!pubkey_eq(in->accounts[FUND_SPL_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
  EscrowFunds f;
  TRY(open_funds(ctx, in, FUND_TOKEN_PROGRAM, &f));
  const SolAccountInfo *buyer_ata = &in->accounts[FUND_BUYER_ATA];
  TRY(require_writable(buyer_ata));
  /* The buyer's own token account, moved with the buyer's signature (not the escrow's). */
  TokenTransfer t = {f.token.token_program, buyer_ata, f.token.mint, f.source, buyer, f.token.decimals, NULL};
  return token_transfer_checked(&t, a->amount);
}

static void write_payment(const Ctx *ctx, const SolInput *in, const FundArgs *a, Payment *p) {
  sbf_zero(p, sizeof(Payment));
  write_account_header(p->header, DISC_PAYMENT);
  sbf_copy(p->payment_uid, a->payment_uid, UID_BYTES);
  p->escrow = *ctx->escrow_account->key;
  p->buyer = *in->accounts[FUND_BUYER].key;
  p->seller = a->seller;
  p->mint = a->mint;
  p->oracle_authority = a->oracle_authority;
  sbf_copy(p->sla_hash, a->sla_hash, HASH_BYTES);
  p->amount = a->amount;
  p->min_fee_amount = ctx->escrow->min_fee_amount;
  p->created_at = ctx->now;
  p->expires_at = ctx->now + a->ttl_seconds;
  p->oracle_authority_set_at = ctx->now;
  p->closure_delay_seconds = override_or(a->closure_delay_override, ctx->config->closure_delay_seconds);
  p->refund_cooldown_seconds = override_or(a->refund_cooldown_override, ctx->config->refund_cooldown_seconds);
  p->delivery_cutoff_seconds = override_or(a->delivery_cutoff_override, ctx->config->delivery_cutoff_seconds);
  p->fee_bps = ctx->escrow->fee_bps;
  p->oracle_fee_bps = ctx->escrow->oracle_fee_bps;
  p->state = a->is_v2 ? STATE_FUNDED_EXTENDED : STATE_FUNDED;
  p->resolution_state = RESOLUTION_PENDING;
}

/* Creates the PaymentExt of a V2 payment at PDA("payment_ext", uid, bank). */
static uint64_t create_payment_ext(const Ctx *ctx, const SolInput *in, const FundArgs *a, SolAccountInfo *ext_account) {
  TRY(require_writable(ext_account));
  PdaSeeds s;
  payment_ext_seeds(&s, a->payment_uid, ctx->bank_account->key);
  if (!pda_find_and_match(&s, ctx->program_id, ext_account->key)) return SLA_ERR_INVALID_PAYMENT_EXT;
  if (!is_system_wallet(ext_account)) return SLA_ERR_PAYMENT_ALREADY_EXISTS;
  SolSignerSeeds signer = pda_signer(&s);
  TRY(create_pda_account(&in->accounts[FUND_BUYER], ext_account, sizeof(PaymentExt), ctx->program_id, &signer));
  account_refresh_data_len(ext_account);
  PaymentExt *ext = (PaymentExt *)ext_account->data;
  sbf_zero(ext, sizeof(PaymentExt));
  write_account_header(ext->header, DISC_PAYMENT_EXT);
  ext->payment = *ctx->payment_account->key;
  ext->adjudicator = a->oracle_authority;
  ext->arbitration_window_seconds = a->arbitration_window_seconds > 0 ? a->arbitration_window_seconds : 0;
  ext->min_oracle_tip = a->min_oracle_tip;
  ext->bump = s.bump;
  return SUCCESS;
}

__attribute__((noinline)) static uint64_t process_fund_payment(SolInput *in) {
  bool is_v2 = in->data[0] == IX_FUND_PAYMENT_V2;
  if (in->data_len != (is_v2 ? FUND_PAYMENT_V2_DATA_LEN : FUND_PAYMENT_DATA_LEN)) return SLA_ERR_INVALID_INSTRUCTION;
  FundArgs a;
  decode_fund_args(in, &a);
  uint64_t base_count = pubkey_is_zero(&a.mint) ? FUND_SOL_ACCOUNT_COUNT : FUND_SPL_ACCOUNT_COUNT;
  if (in->account_count < base_count + (is_v2 ? 1 : 0)) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;

  const SolAccountInfo *buyer = &in->accounts[FUND_BUYER];
  TRY(require_signer(buyer));
  TRY(require_writable(buyer));
  Ctx ctx;
  TRY(load_escrow_context(&ctx, in, FUND_BANK));
  TRY(require_writable(ctx.escrow_account));
  if (!pubkey_eq(in->accounts[FUND_MINT].key, &a.mint)) return SLA_ERR_INVALID_MINT;
  TRY(check_fund_args(&ctx, &a));

  SolAccountInfo *payment_account = &in->accounts[FUND_PAYMENT];
  TRY(require_writable(payment_account));
  PdaSeeds ps;
  payment_seeds(&ps, a.payment_uid, ctx.bank_account->key);
  if (!pda_find_and_match(&ps, ctx.program_id, payment_account->key)) return SLA_ERR_INVALID_PAYMENT_ADDRESS;
  if (!is_system_wallet(payment_account)) return SLA_ERR_PAYMENT_ALREADY_EXISTS;

  TRY(collect_payment(&ctx, in, &a));
  SolSignerSeeds signer = pda_signer(&ps);
  TRY(create_pda_account(buyer, payment_account, sizeof(Payment), ctx.program_id, &signer));
  account_refresh_data_len(payment_account);
  ctx.payment_account = payment_account;
  ctx.payment = (Payment *)payment_account->data;
  write_payment(&ctx, in, &a, ctx.payment);
  if (is_v2) TRY(create_payment_ext(&ctx, in, &a, &in->accounts[base_count]));
  ctx.escrow->token_liquidity += a.amount;
  LOG("SLA-Escrow stand-in: payment funded");
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Token accounts a payout may create (ATA program, paid by the caller)                             */

#define ATA_IX_CREATE_IDEMPOTENT 1

/* The programs a token-account creation needs, by their account slots. */
typedef struct {
  const SolAccountInfo *ata_program;
  const SolAccountInfo *system;
  const SolAccountInfo *token_program;
} AtaCreation;

/* The wallet's associated token account: created (paid by `payer`) when missing, so that a party
 * without a token account can still be paid. The ATA program checks the address. */
static uint64_t ensure_token_account(const AtaCreation *c, const EscrowFunds *f, SolAccountInfo *ata,
                                     const SolAccountInfo *wallet, const SolAccountInfo *payer) {
  TRY(require_writable(ata));
  if (is_token_account_of(ata, f->token.token_program, f->token.mint->key, wallet->key)) return SUCCESS;
  if (!is_system_wallet(ata)) return SLA_ERR_INVALID_RECIPIENT;
  if (!pubkey_eq(c->ata_program->key, &ASSOCIATED_TOKEN_PROGRAM_ID) || !pubkey_eq(c->system->key, &SYSTEM_PROGRAM_ID))
    return SLA_ERR_INVALID_SYSTEM_PROGRAM;
  uint8_t data[1] = {ATA_IX_CREATE_IDEMPOTENT};
  SolAccountMeta metas[6] = {meta_of(payer, true, true),   meta_of(ata, true, false),
                             meta_of(wallet, false, false), meta_of(f->token.mint, false, false),
                             meta_of(c->system, false, false), meta_of(c->token_program, false, false)};
  SolInstruction ix = {&ASSOCIATED_TOKEN_PROGRAM_ID, metas, 6, data, sizeof(data)};
  SolAccountInfo infos[6] = {*payer, *ata, *wallet, *f->token.mint, *c->system, *c->token_program};
  TRY(sol_invoke_signed_c(&ix, infos, 6, NULL, 0));
  account_refresh_data_len(ata);
  return is_token_account_of(ata, f->token.token_program, f->token.mint->key, wallet->key) ? SUCCESS
                                                                                          : SLA_ERR_INVALID_RECIPIENT;
}

/* ------------------------------------------------------------------------------------------------ */
/* ReleasePayment (1) / RefundPayment (2), docs/sla-escrow-abi.md, ABI §5.3 / §5.4                 */
/*   caller (s,w), bank, config, escrow (w), payment (w), mint, then                                */
/*   Release SOL: SOL storage (w), seller (w), System                                               */
/*   Release SPL: escrow ATA (w), seller ATA (w, created if absent), seller (w), token, ATA, System */
/*   Refund  SOL: SOL storage (w), buyer (w), System                                                */
/*   Refund  SPL: escrow ATA (w), buyer token account (w), token                                    */
/*   then, for an extended payment (state 10): PaymentExt (w), buyer (w, its rent recipient);       */
/*   then, when a tip is due: SOL oracle (w); SPL oracle ATA (w), oracle (w) [, ATA, System: refund] */

#define PAYOUT_CALLER 0
#define PAYOUT_BANK 1
#define PAYOUT_RECIPIENT 7
#define PAYOUT_SOL_SYSTEM 8
#define PAYOUT_SOL_ACCOUNT_COUNT 9
#define RELEASE_SPL_SELLER 8
#define RELEASE_SPL_TOKEN_PROGRAM 9
#define RELEASE_SPL_ATA_PROGRAM 10
#define RELEASE_SPL_SYSTEM 11
#define RELEASE_SPL_ACCOUNT_COUNT 12
#define REFUND_SPL_TOKEN_PROGRAM 8
#define REFUND_SPL_ACCOUNT_COUNT 9

static bool is_expired(const Ctx *ctx) { return ctx->now > ctx->payment->expires_at; }
static bool is_bank_authority(const Ctx *ctx, const SolAccountInfo *a) { return pubkey_eq(a->key, &ctx->bank->authority); }

/* docs/sla-escrow-abi.md, Protocol §7: anyone may release once approved, or once expired with a delivery nobody rejected;
 * before any outcome (pending, not expired) only the bank authority may (admin override). */
static uint64_t check_release_allowed(const Ctx *ctx, const SolAccountInfo *caller) {
  const Payment *p = ctx->payment;
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (!is_funded_state(p->state)) return SLA_ERR_PAYMENT_NOT_FUNDED;
  if (p->resolution_state == RESOLUTION_REJECTED) return SLA_ERR_DELIVERY_REJECTED;
  if (p->resolution_state == RESOLUTION_APPROVED) return SUCCESS;
  if (is_expired(ctx)) return p->delivery_timestamp != 0 ? SUCCESS : SLA_ERR_DELIVERY_NOT_SUBMITTED;
  if (is_bank_authority(ctx, caller)) return SUCCESS;
  return p->delivery_timestamp != 0 ? SLA_ERR_RELEASE_NOT_YET_AVAILABLE : SLA_ERR_DELIVERY_NOT_SUBMITTED;
}

/* docs/sla-escrow-abi.md, Protocol §7: anyone may refund once rejected, or once expired with no delivery. Before any
 * outcome (pending, not expired) it is a cancellation: the seller or the bank authority at any
 * time, the buyer once refund_cooldown_seconds have passed since funding (0 = the buyer may not). */
static uint64_t check_refund_allowed(const Ctx *ctx, const SolAccountInfo *caller) {
  const Payment *p = ctx->payment;
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (!is_funded_state(p->state)) return SLA_ERR_PAYMENT_NOT_FUNDED;
  if (p->resolution_state == RESOLUTION_REJECTED) return SUCCESS;
  if (p->resolution_state == RESOLUTION_APPROVED) return SLA_ERR_DELIVERY_APPROVED;
  if (is_expired(ctx)) return p->delivery_timestamp == 0 ? SUCCESS : SLA_ERR_DELIVERY_APPROVED;
  if (pubkey_eq(caller->key, &p->seller) || is_bank_authority(ctx, caller)) return SUCCESS;
  if (pubkey_eq(caller->key, &p->buyer) && p->refund_cooldown_seconds > 0 &&
      ctx->now >= p->created_at + p->refund_cooldown_seconds)
    return SUCCESS;
  return SLA_ERR_REFUND_NOT_YET_AVAILABLE;
}

/* closed_at is the moment ClosePayment becomes possible: settlement time + closure delay (docs/sla-escrow-abi.md, ABI §4.4). */
static void settle(Ctx *ctx, uint8_t state, uint64_t fee) {
  ctx->payment->state = state;
  ctx->payment->closed_at = ctx->now + ctx->payment->closure_delay_seconds;
  ctx->escrow->token_liquidity = saturating_sub_u64(ctx->escrow->token_liquidity, ctx->payment->amount);
  ctx->escrow->fee_balance += fee;
}

/* Closes a program-owned account: its lamports go to `recipient`, its data is cleared, and the
 * runtime removes it at the end of the transaction (no lamports left). */
static void close_account(SolAccountInfo *account, const SolAccountInfo *recipient) {
  *recipient->lamports += *account->lamports;
  *account->lamports = 0;
  sbf_zero(account->data, account->data_len);
}

/* Where a payout's tail accounts sit, once the fixed list is known. */
typedef struct {
  SolAccountInfo *ext;          /* NULL for a V1 payment */
  const SolAccountInfo *rent;   /* the PaymentExt's rent recipient */
  SolAccountInfo *oracle_dest;  /* SOL: the oracle wallet; SPL: the oracle's token account */
  const SolAccountInfo *oracle; /* the oracle wallet */
  AtaCreation ata;              /* SPL: what may create the recipient / oracle token accounts */
} PayoutTail;

static uint64_t open_payout_tail(SolInput *in, const Ctx *ctx, bool is_release, uint64_t index, PayoutTail *t) {
  const Payment *p = ctx->payment;
  bool is_sol = pubkey_is_zero(&ctx->escrow->mint);
  t->ext = NULL;
  t->oracle_dest = NULL;
  if (p->state == STATE_FUNDED_EXTENDED) {
    if (in->account_count < index + 2) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
    t->ext = &in->accounts[index];
    t->rent = &in->accounts[index + 1];
    TRY(require_writable(t->rent));
    if (!pubkey_eq(t->rent->key, &p->buyer)) return SLA_ERR_INVALID_RECIPIENT;
    index += 2;
  }
  if (!is_tip_due(p)) return SUCCESS;
  uint64_t tip_accounts = is_sol ? 1 : (is_release ? 2 : 4);
  if (in->account_count < index + tip_accounts) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  t->oracle_dest = &in->accounts[index];
  t->oracle = &in->accounts[is_sol ? index : index + 1];
  TRY(require_writable(t->oracle_dest));
  TRY(require_writable(t->oracle));
  if (!pubkey_eq(t->oracle->key, &p->oracle_authority)) return SLA_ERR_INVALID_RECIPIENT;
  if (!is_sol && !is_release) {
    t->ata.ata_program = &in->accounts[index + 2];
    t->ata.system = &in->accounts[index + 3];
  }
  return SUCCESS;
}

__attribute__((noinline)) static uint64_t process_payout(SolInput *in, bool is_release) {
  if (in->data_len != EMPTY_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < PAYOUT_SOL_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *caller = &in->accounts[PAYOUT_CALLER];
  TRY(require_signer(caller));
  TRY(require_writable(caller));
  Ctx ctx;
  TRY(load_payment_context(&ctx, in, PAYOUT_BANK));
  TRY(require_writable(ctx.escrow_account));
  TRY(is_release ? check_release_allowed(&ctx, caller) : check_refund_allowed(&ctx, caller));
  const Payment *p = ctx.payment;
  bool is_sol = pubkey_is_zero(&ctx.escrow->mint);

  uint64_t fixed = is_sol ? PAYOUT_SOL_ACCOUNT_COUNT : (is_release ? RELEASE_SPL_ACCOUNT_COUNT : REFUND_SPL_ACCOUNT_COUNT);
  if (in->account_count < fixed) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  uint64_t token_index = is_release ? RELEASE_SPL_TOKEN_PROGRAM : REFUND_SPL_TOKEN_PROGRAM;
  EscrowFunds f;
  TRY(open_funds(&ctx, in, token_index, &f));
  PayoutTail t;
  TRY(open_payout_tail(in, &ctx, is_release, fixed, &t));
  PaymentExt *ext = NULL;
  if (t.ext) TRY(load_payment_ext(&ctx, t.ext, &ext));

  SolAccountInfo *recipient = &in->accounts[PAYOUT_RECIPIENT];
  const SolPubkey *wallet = is_release ? &p->seller : &p->buyer;
  TRY(require_writable(recipient));
  if (is_sol) {
    if (!pubkey_eq(in->accounts[PAYOUT_SOL_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
    if (!pubkey_eq(recipient->key, wallet)) return SLA_ERR_INVALID_RECIPIENT;
  } else if (is_release) {
    /* The seller's token account is created when absent (docs/sla-escrow-abi.md, ABI §5.3), paid by the caller. */
    const SolAccountInfo *seller = &in->accounts[RELEASE_SPL_SELLER];
    TRY(require_writable(seller));
    if (!pubkey_eq(seller->key, wallet)) return SLA_ERR_INVALID_RECIPIENT;
    AtaCreation c = {&in->accounts[RELEASE_SPL_ATA_PROGRAM], &in->accounts[RELEASE_SPL_SYSTEM], &in->accounts[token_index]};
    t.ata = c;
    TRY(ensure_token_account(&c, &f, recipient, seller, caller));
  } else if (!is_token_account_of(recipient, f.token.token_program, f.token.mint->key, wallet)) {
    return SLA_ERR_INVALID_RECIPIENT;
  }

  /* The tip, and on a release the protocol fee on the full amount (NORMATIVE v1.1 §7.3); the rest to the
   * recipient. Where tip and fee together exceed the amount (the ABI is silent) the fee gives way. */
  uint64_t tip = t.oracle_dest ? oracle_tip(p, ext) : 0;
  uint64_t fee = is_release ? min_u64(escrow_fee(p, p->amount), p->amount - tip) : 0;
  uint64_t net = p->amount - tip - fee;
  if (t.oracle_dest && !is_sol && tip > 0) {
    t.ata.token_program = &in->accounts[token_index];
    TRY(ensure_token_account(&t.ata, &f, t.oracle_dest, t.oracle, caller));
  }
  TRY(pay_out(&f, recipient, net));
  if (t.oracle_dest) TRY(pay_out(&f, t.oracle_dest, tip));
  settle(&ctx, is_release ? STATE_RELEASED : STATE_REFUNDED, fee);
  sol_log_64_(p->amount, fee, tip, net, is_release);
  /* Last, after every CPI: direct lamport moves must not precede a CPI that reads the accounts. */
  if (t.ext) close_account(t.ext, t.rent);
  if (is_release)
    LOG("SLA-Escrow stand-in: payment released");
  else
    LOG("SLA-Escrow stand-in: payment refunded");
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* ClosePayment (3), docs/sla-escrow-abi.md, ABI §5.5: caller (s), buyer (w), bank, config, escrow (w), payment (w), System */

#define CLOSE_CALLER 0
#define CLOSE_BUYER 1
#define CLOSE_BANK 2
#define CLOSE_SYSTEM 6
#define CLOSE_ACCOUNT_COUNT 7

__attribute__((noinline)) static uint64_t process_close_payment(SolInput *in) {
  if (in->data_len != EMPTY_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < CLOSE_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  TRY(require_signer(&in->accounts[CLOSE_CALLER]));
  Ctx ctx;
  TRY(load_payment_context(&ctx, in, CLOSE_BANK));
  TRY(require_writable(ctx.escrow_account));
  if (!pubkey_eq(in->accounts[CLOSE_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
  const Payment *p = ctx.payment;
  if (p->state != STATE_RELEASED && p->state != STATE_REFUNDED) return SLA_ERR_PAYMENT_NOT_SETTLED;
  /* docs/sla-escrow-abi.md, Protocol §7: "terminal state AND now >= closed_at". */
  if (ctx.now < p->closed_at) return SLA_ERR_CLOSE_NOT_YET_AVAILABLE;
  const SolAccountInfo *buyer = &in->accounts[CLOSE_BUYER];
  TRY(require_writable(buyer));
  if (!pubkey_eq(buyer->key, &p->buyer)) return SLA_ERR_INVALID_RECIPIENT;
  close_account(ctx.payment_account, buyer);
  LOG("SLA-Escrow stand-in: payment closed");
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Party instructions: signer (s,w), bank, config, escrow, payment (w) [, PaymentExt (w)]          */

#define PARTY_SIGNER 0
#define PARTY_BANK 1
#define PARTY_EXT 5
#define PARTY_ACCOUNT_COUNT 5
#define PARTY_EXT_ACCOUNT_COUNT 6

/* ExtendPaymentTTL (4), docs/sla-escrow-abi.md, ABI §5.6: buyer (s), bank, config, escrow, payment (w), System, Rent sysvar.
 * While funded and not expired; the total TTL from created_at stays within MAX_TTL_SECONDS. */
#define EXTEND_SYSTEM 5
#define EXTEND_RENT_SYSVAR 6
#define EXTEND_ACCOUNT_COUNT 7
/* SysvarRent111111111111111111111111111111111 */
static const SolPubkey RENT_SYSVAR_ID = {{0x06, 0xa7, 0xd5, 0x17, 0x19, 0x2c, 0x5c, 0x51, 0x21, 0x8c, 0xc9,
                                           0x4c, 0x3d, 0x4a, 0xf1, 0x7f, 0x58, 0xda, 0xee, 0x08, 0x9b, 0xa1,
                                           0xfd, 0x44, 0xe3, 0xdb, 0xd9, 0x8a, 0x00, 0x00, 0x00, 0x00}};

__attribute__((noinline)) static uint64_t process_extend_ttl(SolInput *in) {
  if (in->data_len != EXTEND_TTL_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < EXTEND_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  if (!pubkey_eq(in->accounts[EXTEND_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
  if (!pubkey_eq(in->accounts[EXTEND_RENT_SYSVAR].key, &RENT_SYSVAR_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
  Ctx ctx;
  TRY(load_payment_context(&ctx, in, PARTY_BANK));
  Payment *p = ctx.payment;
  TRY(require_party(&in->accounts[PARTY_SIGNER], &p->buyer, SLA_ERR_NOT_PAYMENT_BUYER));
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (!is_funded_state(p->state)) return SLA_ERR_PAYMENT_NOT_FUNDED;
  if (is_expired(&ctx)) return SLA_ERR_PAYMENT_EXPIRED;
  int64_t additional = read_i64_le(in->data + 1);
  if (additional < 1 || additional > MAX_TTL_SECONDS) return SLA_ERR_INVALID_TTL_EXTENSION;
  if (p->expires_at + additional - p->created_at > MAX_TTL_SECONDS) return SLA_ERR_INVALID_TTL_EXTENSION;
  p->expires_at += additional;
  return SUCCESS;
}

static bool is_zero_hash(const uint8_t *h) { return sbf_is_zero(h, HASH_BYTES); }

/* SubmitDelivery (5): the seller records the delivery hash, early enough for the oracle. */
__attribute__((noinline)) static uint64_t process_submit_delivery(SolInput *in) {
  if (in->data_len != DELIVERY_HASH_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < PARTY_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  Ctx ctx;
  TRY(load_payment_context(&ctx, in, PARTY_BANK));
  Payment *p = ctx.payment;
  /* docs/sla-escrow-abi.md, ABI §5.7: the seller, or the bank authority. */
  const SolAccountInfo *signer = &in->accounts[PARTY_SIGNER];
  if (!is_bank_authority(&ctx, signer)) TRY(require_party(signer, &p->seller, SLA_ERR_NOT_PAYMENT_SELLER));
  TRY(require_signer(signer));
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (!is_funded_state(p->state)) return SLA_ERR_PAYMENT_NOT_FUNDED;
  if (p->delivery_timestamp != 0) return SLA_ERR_DELIVERY_ALREADY_SUBMITTED;
  /* An oracle that already rejected the payment (no delivery) has closed the matter. */
  if (p->resolution_state != RESOLUTION_PENDING) return SLA_ERR_RESOLUTION_ALREADY_SET;
  const uint8_t *hash = in->data + 1;
  if (is_zero_hash(hash)) return SLA_ERR_INVALID_DELIVERY_HASH;
  if (ctx.now > p->expires_at - p->delivery_cutoff_seconds) {
    LOG("SLA-Escrow stand-in: DeliveryTooLateForOracle");
    return SLA_ERR_DELIVERY_TOO_LATE_FOR_ORACLE;
  }
  sbf_copy(p->delivery_hash, hash, HASH_BYTES);
  p->delivery_timestamp = ctx.now;
  return SUCCESS;
}

/* ConfirmOracle (6): the payment's oracle approves or rejects the delivery. */
__attribute__((noinline)) static uint64_t process_confirm_oracle(SolInput *in) {
  if (in->data_len != CONFIRM_ORACLE_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < PARTY_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  Ctx ctx;
  TRY(load_payment_context(&ctx, in, PARTY_BANK));
  Payment *p = ctx.payment;
  TRY(require_party(&in->accounts[PARTY_SIGNER], &p->oracle_authority, SLA_ERR_NOT_PAYMENT_ORACLE));
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (!is_funded_state(p->state)) return SLA_ERR_PAYMENT_NOT_FUNDED;
  if (p->resolution_state != RESOLUTION_PENDING) return SLA_ERR_RESOLUTION_ALREADY_SET;
  const uint8_t *delivery_hash = in->data + 1;
  const uint8_t *resolution_hash = in->data + 33;
  uint16_t reason = read_u16_le(in->data + 65);
  uint8_t state = in->data[67];
  if (state != RESOLUTION_APPROVED && state != RESOLUTION_REJECTED) return SLA_ERR_INVALID_RESOLUTION_STATE;
  /* docs/sla-escrow-abi.md, ABI §5.8: a verdict needs a delivery (docs/sla-escrow-abi.md, protocol §8), and comes no later than expires_at. */
  if (p->delivery_timestamp == 0) return SLA_ERR_DELIVERY_NOT_SUBMITTED;
  if (is_expired(&ctx)) return SLA_ERR_PAYMENT_EXPIRED;
  if (!sbf_equal(delivery_hash, p->delivery_hash, HASH_BYTES)) return SLA_ERR_DELIVERY_HASH_MISMATCH;
  sbf_copy(p->resolution_hash, resolution_hash, HASH_BYTES);
  p->resolution_reason = reason;
  p->resolution_state = state;
  return SUCCESS;
}

/* ApproveDelivery (7): the buyer accepts the delivery, which allows an immediate release. */
__attribute__((noinline)) static uint64_t process_approve_delivery(SolInput *in) {
  if (in->data_len != DELIVERY_HASH_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < PARTY_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  Ctx ctx;
  TRY(load_payment_context(&ctx, in, PARTY_BANK));
  Payment *p = ctx.payment;
  TRY(require_party(&in->accounts[PARTY_SIGNER], &p->buyer, SLA_ERR_NOT_PAYMENT_BUYER));
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (!is_funded_state(p->state)) return SLA_ERR_PAYMENT_NOT_FUNDED;
  if (p->delivery_timestamp == 0) return SLA_ERR_DELIVERY_NOT_SUBMITTED;
  if (p->resolution_state != RESOLUTION_PENDING) return SLA_ERR_RESOLUTION_ALREADY_SET;
  if (!sbf_equal(in->data + 1, p->delivery_hash, HASH_BYTES)) return SLA_ERR_DELIVERY_HASH_MISMATCH;
  p->resolution_state = RESOLUTION_APPROVED;
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* V2: mutual actions, disputes, adjudication                                                       */

/* Loads payment + PaymentExt for a V2 party instruction and tells which party signed. */
static uint64_t load_v2_party(SolInput *in, Ctx *ctx, PaymentExt **ext, uint8_t *party) {
  if (in->account_count < PARTY_EXT_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  TRY(load_payment_context(ctx, in, PARTY_BANK));
  TRY(load_payment_ext(ctx, &in->accounts[PARTY_EXT], ext));
  const SolAccountInfo *signer = &in->accounts[PARTY_SIGNER];
  TRY(require_signer(signer));
  if (pubkey_eq(signer->key, &ctx->payment->buyer))
    *party = PARTY_BUYER;
  else if (pubkey_eq(signer->key, &ctx->payment->seller))
    *party = PARTY_SELLER;
  else
    return SLA_ERR_NOT_PAYMENT_PARTY;
  if (ctx->payment->state != STATE_FUNDED_EXTENDED && ctx->payment->state != STATE_DISPUTED)
    return SLA_ERR_PAYMENT_NOT_FUNDED;
  return SUCCESS;
}

typedef struct {
  uint8_t action;    /* @1 */
  int64_t value;     /* @9 */
  SolPubkey pubkey;  /* @17 */
} MutualActionArgs;

static uint64_t decode_mutual_action(const SolInput *in, MutualActionArgs *m) {
  if (in->data_len != MUTUAL_ACTION_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  m->action = in->data[1];
  m->value = read_i64_le(in->data + 9);
  sbf_copy(&m->pubkey, in->data + 17, PUBKEY_BYTES);
  if (m->action == MUTUAL_ACTION_ROTATE_ADJUDICATOR) return pubkey_is_zero(&m->pubkey) ? SLA_ERR_INVALID_MUTUAL_ACTION : SUCCESS;
  if (m->action == MUTUAL_ACTION_EXTEND_TTL)
    return (m->value >= 1 && m->value <= MAX_TTL_SECONDS) ? SUCCESS : SLA_ERR_INVALID_MUTUAL_ACTION;
  return SLA_ERR_INVALID_MUTUAL_ACTION;
}

/* ProposeMutualAction (9): one party proposes; a new proposal replaces a pending one. */
__attribute__((noinline)) static uint64_t process_propose_mutual_action(SolInput *in) {
  MutualActionArgs m;
  TRY(decode_mutual_action(in, &m));
  Ctx ctx;
  PaymentExt *ext;
  uint8_t party;
  TRY(load_v2_party(in, &ctx, &ext, &party));
  ext->proposed_action = m.action;
  ext->proposed_value = m.value;
  ext->proposed_pubkey = m.pubkey;
  ext->proposed_by = party;
  return SUCCESS;
}

/* AcceptMutualAction (10): the other party accepts exactly what was proposed; it takes effect. */
__attribute__((noinline)) static uint64_t process_accept_mutual_action(SolInput *in) {
  MutualActionArgs m;
  TRY(decode_mutual_action(in, &m));
  Ctx ctx;
  PaymentExt *ext;
  uint8_t party;
  TRY(load_v2_party(in, &ctx, &ext, &party));
  if (ext->proposed_action == MUTUAL_ACTION_NONE) return SLA_ERR_NO_PENDING_PROPOSAL;
  if (ext->proposed_by == party) return SLA_ERR_CANNOT_ACCEPT_OWN_PROPOSAL;
  if (ext->proposed_action != m.action || ext->proposed_value != m.value || !pubkey_eq(&ext->proposed_pubkey, &m.pubkey))
    return SLA_ERR_PROPOSAL_MISMATCH;
  if (m.action == MUTUAL_ACTION_ROTATE_ADJUDICATOR)
    ext->adjudicator = m.pubkey;
  else
    ctx.payment->expires_at += m.value;
  ext->proposed_action = MUTUAL_ACTION_NONE;
  ext->proposed_by = 0;
  ext->proposed_value = 0;
  sbf_zero(&ext->proposed_pubkey, PUBKEY_BYTES);
  return SUCCESS;
}

/* DisputePayment (11): the buyer opens a dispute (V2 payments, until expires_at + arbitration
 * window). Release and Refund are then blocked; only the adjudicator settles. */
__attribute__((noinline)) static uint64_t process_dispute_payment(SolInput *in) {
  if (in->data_len != DISPUTE_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  Ctx ctx;
  PaymentExt *ext;
  uint8_t party;
  TRY(load_v2_party(in, &ctx, &ext, &party));
  if (party != PARTY_BUYER) return SLA_ERR_NOT_PAYMENT_BUYER;
  Payment *p = ctx.payment;
  if (p->state == STATE_DISPUTED) return SLA_ERR_PAYMENT_DISPUTED;
  if (ctx.now > p->expires_at + ext->arbitration_window_seconds) return SLA_ERR_DISPUTE_WINDOW_CLOSED;
  sbf_copy(ext->dispute_reason_hash, in->data + 1, HASH_BYTES);
  ext->is_disputed = 1;
  ext->disputed_at = ctx.now;
  p->state = STATE_DISPUTED;
  return SUCCESS;
}

/* ResolveWithSplit (12)
 *   adjudicator (s,w), bank, config, escrow (w), payment (w), mint, then
 *   SOL: SOL storage (w), seller (w), buyer (w), System, PaymentExt (w), buyer (w, rent recipient)
 *   SPL: escrow ATA (w), seller ATA (w), seller, buyer ATA (w), buyer, token program, ATA program,
 *        System, PaymentExt (w), buyer (w, rent recipient), adjudicator ATA (w)               */

#define RWS_ADJUDICATOR 0
#define RWS_BANK 1
#define RWS_SOL_SELLER 7
#define RWS_SOL_BUYER 8
#define RWS_SOL_SYSTEM 9
#define RWS_SOL_EXT 10
#define RWS_SOL_RENT 11
#define RWS_SOL_ACCOUNT_COUNT 12
#define RWS_SPL_SELLER_ATA 7
#define RWS_SPL_SELLER 8
#define RWS_SPL_BUYER_ATA 9
#define RWS_SPL_BUYER 10
#define RWS_SPL_TOKEN_PROGRAM 11
#define RWS_SPL_ATA_PROGRAM 12
#define RWS_SPL_SYSTEM 13
#define RWS_SPL_EXT 14
#define RWS_SPL_RENT 15
#define RWS_SPL_ADJUDICATOR_ATA 16
#define RWS_SPL_ACCOUNT_COUNT 17

typedef struct {
  uint64_t tip;          /* to the adjudicator */
  uint64_t seller_gross; /* the seller's share before the escrow fee */
  uint64_t fee;          /* escrow fee on the seller's share, kept in the escrow */
  uint64_t seller_net;
  uint64_t buyer_share;
} ResolveSplit;

/* tip first (oracle_fee_bps of the amount, at least min_oracle_tip); the rest split by seller_bps;
 * the escrow fee only on the seller's share. */
static void split_resolution(const Payment *p, const PaymentExt *ext, uint16_t seller_bps, ResolveSplit *s) {
  s->tip = oracle_tip(p, ext);
  uint64_t rest = p->amount - s->tip;
  s->seller_gross = bps_of(rest, seller_bps);
  s->fee = escrow_fee(p, s->seller_gross);
  s->seller_net = s->seller_gross - s->fee;
  s->buyer_share = rest - s->seller_gross;
}

/* Where the three shares go; checked against the payment. */
typedef struct {
  const SolAccountInfo *seller;
  const SolAccountInfo *buyer;
  const SolAccountInfo *adjudicator;
  SolAccountInfo *ext;
  const SolAccountInfo *rent_recipient;
} ResolveAccounts;

static uint64_t resolve_accounts_sol(SolInput *in, const Ctx *ctx, ResolveAccounts *r) {
  if (in->account_count < RWS_SOL_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  if (!pubkey_eq(in->accounts[RWS_SOL_SYSTEM].key, &SYSTEM_PROGRAM_ID)) return SLA_ERR_INVALID_SYSTEM_PROGRAM;
  r->seller = &in->accounts[RWS_SOL_SELLER];
  r->buyer = &in->accounts[RWS_SOL_BUYER];
  r->adjudicator = &in->accounts[RWS_ADJUDICATOR];
  r->ext = &in->accounts[RWS_SOL_EXT];
  r->rent_recipient = &in->accounts[RWS_SOL_RENT];
  TRY(require_writable(r->seller));
  TRY(require_writable(r->buyer));
  TRY(require_writable(r->adjudicator));
  if (!pubkey_eq(r->seller->key, &ctx->payment->seller) || !pubkey_eq(r->buyer->key, &ctx->payment->buyer))
    return SLA_ERR_INVALID_RECIPIENT;
  return SUCCESS;
}

static uint64_t resolve_accounts_spl(SolInput *in, const Ctx *ctx, const EscrowFunds *f, const ResolveSplit *split,
                                     ResolveAccounts *r) {
  if (in->account_count < RWS_SPL_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  const SolAccountInfo *adjudicator = &in->accounts[RWS_ADJUDICATOR];
  const SolAccountInfo *seller_wallet = &in->accounts[RWS_SPL_SELLER];
  const SolAccountInfo *buyer_wallet = &in->accounts[RWS_SPL_BUYER];
  if (!pubkey_eq(seller_wallet->key, &ctx->payment->seller) || !pubkey_eq(buyer_wallet->key, &ctx->payment->buyer))
    return SLA_ERR_INVALID_RECIPIENT;
  r->seller = &in->accounts[RWS_SPL_SELLER_ATA];
  r->buyer = &in->accounts[RWS_SPL_BUYER_ATA];
  r->adjudicator = &in->accounts[RWS_SPL_ADJUDICATOR_ATA];
  r->ext = &in->accounts[RWS_SPL_EXT];
  r->rent_recipient = &in->accounts[RWS_SPL_RENT];
  /* Accounts that receive nothing need not exist. */
  AtaCreation c = {&in->accounts[RWS_SPL_ATA_PROGRAM], &in->accounts[RWS_SPL_SYSTEM], &in->accounts[RWS_SPL_TOKEN_PROGRAM]};
  if (split->seller_net > 0) TRY(ensure_token_account(&c, f, &in->accounts[RWS_SPL_SELLER_ATA], seller_wallet, adjudicator));
  if (split->buyer_share > 0) TRY(ensure_token_account(&c, f, &in->accounts[RWS_SPL_BUYER_ATA], buyer_wallet, adjudicator));
  if (split->tip > 0) TRY(ensure_token_account(&c, f, &in->accounts[RWS_SPL_ADJUDICATOR_ATA], adjudicator, adjudicator));
  return SUCCESS;
}

__attribute__((noinline)) static uint64_t process_resolve_with_split(SolInput *in) {
  if (in->data_len != RESOLVE_WITH_SPLIT_DATA_LEN) return SLA_ERR_INVALID_INSTRUCTION;
  if (in->account_count < RWS_SOL_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  uint16_t seller_bps = read_u16_le(in->data + 1);
  uint16_t reason = read_u16_le(in->data + 3);
  const uint8_t *resolution_hash = in->data + 9;
  const uint8_t *expected_delivery_hash = in->data + 41;
  if (seller_bps > BPS_DENOMINATOR) return SLA_ERR_INVALID_SPLIT;

  Ctx ctx;
  TRY(load_payment_context(&ctx, in, RWS_BANK));
  TRY(require_writable(ctx.escrow_account));
  Payment *p = ctx.payment;
  if (p->state != STATE_FUNDED_EXTENDED && p->state != STATE_DISPUTED) {
    /* A V1 payment has no PaymentExt and hence no adjudicator. */
    return p->state == STATE_FUNDED ? SLA_ERR_INVALID_PAYMENT_EXT : SLA_ERR_PAYMENT_NOT_FUNDED;
  }
  bool is_sol = pubkey_is_zero(&ctx.escrow->mint);
  const SolAccountInfo *ext_account = &in->accounts[is_sol ? RWS_SOL_EXT : RWS_SPL_EXT];
  if (!is_sol && in->account_count < RWS_SPL_ACCOUNT_COUNT) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  PaymentExt *ext;
  TRY(load_payment_ext(&ctx, ext_account, &ext));
  const SolAccountInfo *adjudicator = &in->accounts[RWS_ADJUDICATOR];
  TRY(require_party(adjudicator, &ext->adjudicator, SLA_ERR_NOT_ADJUDICATOR));
  if (!sbf_equal(expected_delivery_hash, p->delivery_hash, HASH_BYTES)) return SLA_ERR_DELIVERY_HASH_MISMATCH;

  EscrowFunds f;
  TRY(open_funds(&ctx, in, RWS_SPL_TOKEN_PROGRAM, &f));
  ResolveSplit split;
  split_resolution(p, ext, seller_bps, &split);
  ResolveAccounts r;
  if (is_sol)
    TRY(resolve_accounts_sol(in, &ctx, &r));
  else
    TRY(resolve_accounts_spl(in, &ctx, &f, &split, &r));
  TRY(require_writable(r.rent_recipient));
  if (!pubkey_eq(r.rent_recipient->key, &p->buyer)) return SLA_ERR_INVALID_RECIPIENT;

  TRY(pay_out(&f, r.seller, split.seller_net));
  TRY(pay_out(&f, r.buyer, split.buyer_share));
  TRY(pay_out(&f, r.adjudicator, split.tip));
  sol_log_64_(split.tip, split.seller_gross, split.fee, split.seller_net, split.buyer_share);

  sbf_copy(p->resolution_hash, resolution_hash, HASH_BYTES);
  p->resolution_reason = reason;
  p->resolution_state = seller_bps > 0 ? RESOLUTION_APPROVED : RESOLUTION_REJECTED;
  settle(&ctx, seller_bps > 0 ? STATE_RELEASED : STATE_REFUNDED, split.fee);
  /* Last, after every CPI: direct lamport moves must not precede a CPI that reads the accounts. */
  close_account(r.ext, r.rent_recipient);
  LOG("SLA-Escrow stand-in: payment resolved with a split");
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  if (!sbf_deserialize(input, &in)) return SLA_ERR_NOT_ENOUGH_ACCOUNTS;
  if (in.data_len == 0) return SLA_ERR_INVALID_INSTRUCTION;
  switch (in.data[0]) {
    case IX_FUND_PAYMENT:
    case IX_FUND_PAYMENT_V2:
      return process_fund_payment(&in);
    case IX_RELEASE_PAYMENT:
      return process_payout(&in, true);
    case IX_REFUND_PAYMENT:
      return process_payout(&in, false);
    case IX_CLOSE_PAYMENT:
      return process_close_payment(&in);
    case IX_EXTEND_PAYMENT_TTL:
      return process_extend_ttl(&in);
    case IX_SUBMIT_DELIVERY:
      return process_submit_delivery(&in);
    case IX_CONFIRM_ORACLE:
      return process_confirm_oracle(&in);
    case IX_APPROVE_DELIVERY:
      return process_approve_delivery(&in);
    case IX_PROPOSE_MUTUAL_ACTION:
      return process_propose_mutual_action(&in);
    case IX_ACCEPT_MUTUAL_ACTION:
      return process_accept_mutual_action(&in);
    case IX_DISPUTE_PAYMENT:
      return process_dispute_payment(&in);
    case IX_RESOLVE_WITH_SPLIT:
      return process_resolve_with_split(&in);
    default:
      return SLA_ERR_INVALID_INSTRUCTION;
  }
}
