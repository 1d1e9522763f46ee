/*
 * sbf.h - a tiny, self-contained view of the Solana SBF program ABI for C stand-in programs.
 *
 * DEVELOPMENT AND TEST FIXTURE CODE ONLY. The programs built on this header imitate closed-source
 * programs on the local chain (litesvm) so that the facilitator's transactions execute for real in
 * tests and `npm start`. They are not audited, not the real programs, and must never be deployed.
 *
 * What is here and why:
 *   - fixed-width types (no libc: the programs are freestanding),
 *   - the loader's serialized input (aligned format, used by BPF Loader 2 / Upgradeable) turned into
 *     SolAccountInfo records that point INTO the input region, so lamport / data writes are seen by
 *     the runtime and by cross-program invocations,
 *   - syscall declarations (the post-linker turns calls to them into R_BPF_64_32 relocations that
 *     the loader resolves by murmur3 hash of the name),
 *   - helpers for CPI into System and SPL Token, PDAs, the Clock and Rent sysvars, logging.
 *
 * Constraints this code lives with: BPF v2 instruction set, no signed division, no writable globals
 * (the loader rejects .data/.bss), no libc calls (memcpy & co are written out below), at most five
 * arguments per function (the BPF calling convention), one 4 KiB stack frame per call.
 */
#ifndef SBF_H
#define SBF_H

typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef signed long long int64_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

#define STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)

/* ------------------------------------------------------------------------------------------------ */
/* Results                                                                                          */

/* The entrypoint returns 0 for success. A non-zero value below 2^32 is ProgramError::Custom(value);
 * built-in errors are encoded in the upper 32 bits. Only the built-ins used here are listed. */
#define SUCCESS 0ULL
#define BUILTIN_ERROR(n) ((uint64_t)(n) << 32)
#define ERROR_INVALID_ARGUMENT BUILTIN_ERROR(2)
#define ERROR_INVALID_INSTRUCTION_DATA BUILTIN_ERROR(3)
#define ERROR_NOT_ENOUGH_ACCOUNT_KEYS BUILTIN_ERROR(11)

/* Propagate a non-zero result to the caller. */
#define TRY(expr)                                                                                 \
  do {                                                                                            \
    uint64_t try_result_ = (expr);                                                                \
    if (try_result_ != SUCCESS) return try_result_;                                               \
  } while (0)

/* ------------------------------------------------------------------------------------------------ */
/* Memory helpers (no libc)                                                                         */

static inline void sbf_copy(void *dst, const void *src, uint64_t len) {
  uint8_t *d = (uint8_t *)dst;
  const uint8_t *s = (const uint8_t *)src;
  for (uint64_t i = 0; i < len; i++) d[i] = s[i];
}

static inline void sbf_zero(void *dst, uint64_t len) {
  uint8_t *d = (uint8_t *)dst;
  for (uint64_t i = 0; i < len; i++) d[i] = 0;
}

static inline bool sbf_equal(const void *a, const void *b, uint64_t len) {
  const uint8_t *x = (const uint8_t *)a;
  const uint8_t *y = (const uint8_t *)b;
  for (uint64_t i = 0; i < len; i++)
    if (x[i] != y[i]) return false;
  return true;
}

static inline bool sbf_is_zero(const void *p, uint64_t len) {
  const uint8_t *x = (const uint8_t *)p;
  for (uint64_t i = 0; i < len; i++)
    if (x[i] != 0) return false;
  return true;
}

/* Little-endian reads and writes at any alignment (instruction data is not aligned). */
static inline uint64_t read_u64_le(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static inline int64_t read_i64_le(const uint8_t *p) { return (int64_t)read_u64_le(p); }
static inline uint16_t read_u16_le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline void write_u64_le(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t saturating_sub_u64(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

#define BPS_DENOMINATOR 10000ULL

/* floor(amount * bps / 10_000) without a 128-bit product: split amount = q * 10_000 + r, then
 * amount * bps / 10_000 = q * bps + r * bps / 10_000 exactly, and neither term overflows for
 * bps <= 10_000. */
static inline uint64_t bps_of(uint64_t amount, uint16_t bps) {
  uint64_t q = amount / BPS_DENOMINATOR;
  uint64_t r = amount % BPS_DENOMINATOR;
  return q * bps + (r * bps) / BPS_DENOMINATOR;
}

/* ------------------------------------------------------------------------------------------------ */
/* Keys and account records                                                                         */

#define PUBKEY_BYTES 32
typedef struct {
  uint8_t x[PUBKEY_BYTES];
} SolPubkey;

static inline bool pubkey_eq(const SolPubkey *a, const SolPubkey *b) {
  return sbf_equal(a->x, b->x, PUBKEY_BYTES);
}
static inline bool pubkey_is_zero(const SolPubkey *a) { return sbf_is_zero(a->x, PUBKEY_BYTES); }

/* The C ABI account record, also what sol_invoke_signed_c expects for CPI. */
typedef struct {
  SolPubkey *key;
  uint64_t *lamports;
  uint64_t data_len;
  uint8_t *data;
  SolPubkey *owner;
  uint64_t rent_epoch;
  bool is_signer;
  bool is_writable;
  bool executable;
} SolAccountInfo;

/* Well-known program ids, as raw bytes. The System program id is 32 zero bytes. */
static const SolPubkey SYSTEM_PROGRAM_ID = {{0}};
/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const SolPubkey TOKEN_PROGRAM_ID = {{0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1,
                                             0x46, 0xce, 0xeb, 0x79, 0xac, 0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b,
                                             0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9}};
/* TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb */
static const SolPubkey TOKEN_2022_PROGRAM_ID = {{0x06, 0xdd, 0xf6, 0xe1, 0xee, 0x75, 0x8f, 0xde, 0x18, 0x42, 0x5d,
                                                  0xbc, 0xe4, 0x6c, 0xcd, 0xda, 0xb6, 0x1a, 0xfc, 0x4d, 0x83, 0xb9,
                                                  0x0d, 0x27, 0xfe, 0xbd, 0xf9, 0x28, 0xd8, 0xa1, 0x8b, 0xfc}};
/* ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL */
static const SolPubkey ASSOCIATED_TOKEN_PROGRAM_ID = {{0x8c, 0x97, 0x25, 0x8f, 0x4e, 0x24, 0x89, 0xf1, 0xbb, 0x3d, 0x10,
                                                        0x29, 0x14, 0x8e, 0x0d, 0x83, 0x0b, 0x5a, 0x13, 0x99, 0xda, 0xff,
                                                        0x10, 0x84, 0x04, 0x8e, 0x7b, 0xd8, 0xdb, 0xe9, 0xf8, 0x59}};

/* ------------------------------------------------------------------------------------------------ */
/* Entrypoint input                                                                                 */

/* Each account's data is followed by this much spare room for realloc, then padding to 8. */
#define MAX_PERMITTED_DATA_INCREASE (10 * 1024)
/* dup_info value of an account that is not a duplicate of an earlier one. */
#define NON_DUP_MARKER 0xff
/* The largest account list any stand-in instruction takes (ResolveWithSplit SPL: 17) plus slack. */
#define MAX_ACCOUNTS 24

typedef struct {
  SolAccountInfo accounts[MAX_ACCOUNTS];
  uint64_t account_count;
  const uint8_t *data;
  uint64_t data_len;
  const SolPubkey *program_id;
} SolInput;

/* Walks the aligned serialization written by the loader:
 *   u64 account count, then per account either
 *     u8 0xff, u8 is_signer, u8 is_writable, u8 executable, 4 bytes padding, key 32, owner 32,
 *     u64 lamports, u64 data_len, data, 10 KiB spare, pad to 8, u64 rent_epoch
 *   or u8 index-of-original followed by 7 bytes padding (a duplicate),
 *   then u64 instruction data length, the data, and the 32-byte program id.
 * Returns false when more accounts were passed than MAX_ACCOUNTS. */
static inline bool sbf_deserialize(uint8_t *input, SolInput *out) {
  uint8_t *p = input;
  uint64_t count = *(uint64_t *)p;
  p += sizeof(uint64_t);
  if (count > MAX_ACCOUNTS) return false;
  for (uint64_t i = 0; i < count; i++) {
    SolAccountInfo *info = &out->accounts[i];
    uint8_t dup_info = *p;
    p += 1;
    if (dup_info != NON_DUP_MARKER) {
      *info = out->accounts[dup_info];
      p += 7;
      continue;
    }
    info->is_signer = p[0] != 0;
    info->is_writable = p[1] != 0;
    info->executable = p[2] != 0;
    p += 3 + 4;
    info->key = (SolPubkey *)p;
    p += PUBKEY_BYTES;
    info->owner = (SolPubkey *)p;
    p += PUBKEY_BYTES;
    info->lamports = (uint64_t *)p;
    p += sizeof(uint64_t);
    info->data_len = *(uint64_t *)p;
    p += sizeof(uint64_t);
    info->data = p;
    p += info->data_len + MAX_PERMITTED_DATA_INCREASE;
    p = (uint8_t *)(((uint64_t)p + 7) & ~7ULL);
    info->rent_epoch = *(uint64_t *)p;
    p += sizeof(uint64_t);
  }
  out->account_count = count;
  out->data_len = *(uint64_t *)p;
  p += sizeof(uint64_t);
  out->data = p;
  p += out->data_len;
  out->program_id = (const SolPubkey *)p;
  return true;
}

/* A CPI that creates or resizes an account updates the length stored just before its data in the
 * input buffer (and the callee's view), not the caller's SolAccountInfo copy: re-read it. */
static inline void account_refresh_data_len(SolAccountInfo *a) {
  a->data_len = *(uint64_t *)(a->data - sizeof(uint64_t));
}

/* ------------------------------------------------------------------------------------------------ */
/* Syscalls (resolved by the loader from the symbol name)                                           */

typedef struct {
  const uint8_t *addr;
  uint64_t len;
} SolSignerSeed;

typedef struct {
  const SolSignerSeed *addr;
  uint64_t len;
} SolSignerSeeds;

typedef struct {
  SolPubkey *pubkey;
  bool is_writable;
  bool is_signer;
} SolAccountMeta;

typedef struct {
  const SolPubkey *program_id;
  SolAccountMeta *accounts;
  uint64_t account_len;
  uint8_t *data;
  uint64_t data_len;
} SolInstruction;

typedef struct {
  uint64_t slot;
  int64_t epoch_start_timestamp;
  uint64_t epoch;
  uint64_t leader_schedule_epoch;
  int64_t unix_timestamp;
} SolClock;

typedef struct {
  uint64_t lamports_per_byte_year;
  uint64_t exemption_threshold_f64_bits; /* an f64, read as bits: this code does no floating point */
  uint8_t burn_percent;
} SolRent;

extern void sol_log_(const char *message, uint64_t len);
extern void sol_log_64_(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);
extern void sol_log_pubkey(const SolPubkey *key);
extern uint64_t sol_invoke_signed_c(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                                    int account_infos_len, const SolSignerSeeds *signers_seeds, int signers_len);
extern uint64_t sol_create_program_address(const SolSignerSeed *seeds, uint64_t seeds_len,
                                           const SolPubkey *program_id, SolPubkey *address);
extern uint64_t sol_try_find_program_address(const SolSignerSeed *seeds, uint64_t seeds_len,
                                             const SolPubkey *program_id, SolPubkey *address, uint8_t *bump);
extern uint64_t sol_get_clock_sysvar(SolClock *clock);
extern uint64_t sol_get_rent_sysvar(SolRent *rent);

/* Log a string literal (length known at compile time, no terminator logged). */
#define LOG(literal) sol_log_((literal), sizeof(literal) - 1)

/* ------------------------------------------------------------------------------------------------ */
/* Sysvars                                                                                          */

static inline int64_t clock_now(void) {
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  return clock.unix_timestamp;
}

/* Account overhead the rent formula charges for besides the data (bytes). */
#define ACCOUNT_STORAGE_OVERHEAD 128ULL

/* An f64 holding a small non-negative integer (the rent exemption threshold, 2.0 or 1.0) as an
 * integer; 0 when it is not such a value. IEEE 754: 1 sign bit, 11 exponent bits (bias 1023),
 * 52 mantissa bits with an implicit leading 1. */
static inline uint64_t f64_bits_to_small_uint(uint64_t bits) {
  if (bits == 0) return 0;
  uint64_t exponent = (bits >> 52) & 0x7ff;
  uint64_t mantissa = bits & ((1ULL << 52) - 1);
  if ((bits >> 63) != 0 || exponent < 1023 || exponent > 1023 + 52) return 0;
  uint64_t shift = 52 - (exponent - 1023);
  uint64_t full = mantissa | (1ULL << 52);
  if ((full & ((1ULL << shift) - 1)) != 0) return 0; /* has a fractional part */
  return full >> shift;
}

/* The rent-exempt minimum balance of an account with data_len bytes. */
static inline uint64_t rent_exempt_minimum(uint64_t data_len) {
  SolRent rent;
  sol_get_rent_sysvar(&rent);
  uint64_t threshold = f64_bits_to_small_uint(rent.exemption_threshold_f64_bits);
  if (threshold == 0) threshold = 2; /* the long-standing default, if the sysvar holds a fraction */
  return (ACCOUNT_STORAGE_OVERHEAD + data_len) * rent.lamports_per_byte_year * threshold;
}

/* ------------------------------------------------------------------------------------------------ */
/* Program derived addresses                                                                        */

#ifndef MAX_SEEDS /* a program may need more (the runtime takes 16) */
#define MAX_SEEDS 5
#endif

/* Seeds for one PDA, including the bump when it is known. */
typedef struct {
  SolSignerSeed seeds[MAX_SEEDS];
  uint64_t count;
  uint8_t bump;
} PdaSeeds;

static inline void seeds_push(PdaSeeds *s, const void *bytes, uint64_t len) {
  s->seeds[s->count].addr = (const uint8_t *)bytes;
  s->seeds[s->count].len = len;
  s->count++;
}

/* Finds the canonical bump of `s` and checks that `expected` is that address. The bump is then
 * appended as the last seed, ready for signing. */
static inline bool pda_find_and_match(PdaSeeds *s, const SolPubkey *program_id, const SolPubkey *expected) {
  SolPubkey derived;
  if (sol_try_find_program_address(s->seeds, s->count, program_id, &derived, &s->bump) != 0) return false;
  seeds_push(s, &s->bump, 1);
  return pubkey_eq(&derived, expected);
}

/* Checks `expected` against the address of `s` with a bump already known (stored on chain). */
static inline bool pda_match_with_bump(PdaSeeds *s, uint8_t bump, const SolPubkey *program_id, const SolPubkey *expected) {
  SolPubkey derived;
  s->bump = bump;
  seeds_push(s, &s->bump, 1);
  if (sol_create_program_address(s->seeds, s->count, program_id, &derived) != 0) return false;
  return pubkey_eq(&derived, expected);
}

static inline SolSignerSeeds pda_signer(const PdaSeeds *s) {
  SolSignerSeeds signer = {s->seeds, s->count};
  return signer;
}

/* ------------------------------------------------------------------------------------------------ */
/* Cross-program invocation: System program                                                        */

#define SYSTEM_IX_CREATE_ACCOUNT 0
#define SYSTEM_IX_ASSIGN 1
#define SYSTEM_IX_TRANSFER 2
#define SYSTEM_IX_ALLOCATE 8

static inline void write_u32_le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline SolAccountMeta meta_of(const SolAccountInfo *a, bool is_writable, bool is_signer) {
  SolAccountMeta m = {a->key, is_writable, is_signer};
  return m;
}

/* CreateAccount with the rent-exempt minimum for `space` bytes: from (s,w), new (s,w). `signer`
 * signs for a PDA (NULL when no PDA is involved). */
static inline uint64_t system_create_account(const SolAccountInfo *from, const SolAccountInfo *to, uint64_t space,
                                             const SolPubkey *owner, const SolSignerSeeds *signer) {
  uint8_t data[4 + 8 + 8 + 32];
  write_u32_le(data, SYSTEM_IX_CREATE_ACCOUNT);
  write_u64_le(data + 4, rent_exempt_minimum(space));
  write_u64_le(data + 12, space);
  sbf_copy(data + 20, owner, PUBKEY_BYTES);
  SolAccountMeta metas[2] = {meta_of(from, true, true), meta_of(to, true, true)};
  SolInstruction ix = {&SYSTEM_PROGRAM_ID, metas, 2, data, sizeof(data)};
  SolAccountInfo infos[2] = {*from, *to};
  return sol_invoke_signed_c(&ix, infos, 2, signer, signer ? 1 : 0);
}

/* Transfer(lamports): from (s,w), to (w). */
static inline uint64_t system_transfer(const SolAccountInfo *from, const SolAccountInfo *to, uint64_t lamports,
                                const SolSignerSeeds *signer) {
  uint8_t data[4 + 8];
  write_u32_le(data, SYSTEM_IX_TRANSFER);
  write_u64_le(data + 4, lamports);
  SolAccountMeta metas[2] = {meta_of(from, true, true), meta_of(to, true, false)};
  SolInstruction ix = {&SYSTEM_PROGRAM_ID, metas, 2, data, sizeof(data)};
  SolAccountInfo infos[2] = {*from, *to};
  return sol_invoke_signed_c(&ix, infos, 2, signer, signer ? 1 : 0);
}

/* Allocate(space) then Assign(owner) on a PDA that already holds lamports: CreateAccount refuses an
 * address with a balance, and anyone can send lamports to a PDA before it is created. */
static inline uint64_t system_allocate_and_assign(const SolAccountInfo *account, uint64_t space, const SolPubkey *owner,
                                           const SolSignerSeeds *signer) {
  SolAccountMeta metas[1] = {meta_of(account, true, true)};
  SolAccountInfo infos[1] = {*account};
  uint8_t allocate[4 + 8];
  write_u32_le(allocate, SYSTEM_IX_ALLOCATE);
  write_u64_le(allocate + 4, space);
  SolInstruction ix = {&SYSTEM_PROGRAM_ID, metas, 1, allocate, sizeof(allocate)};
  TRY(sol_invoke_signed_c(&ix, infos, 1, signer, 1));
  uint8_t assign[4 + 32];
  write_u32_le(assign, SYSTEM_IX_ASSIGN);
  sbf_copy(assign + 4, owner, PUBKEY_BYTES);
  SolInstruction ix2 = {&SYSTEM_PROGRAM_ID, metas, 1, assign, sizeof(assign)};
  return sol_invoke_signed_c(&ix2, infos, 1, signer, 1);
}

/* Creates the PDA `account` with `space` bytes owned by `owner`, rent paid by `payer`, whether or
 * not someone already sent lamports to the address. The caller has checked it is not in use. */
static inline uint64_t create_pda_account(const SolAccountInfo *payer, const SolAccountInfo *account, uint64_t space,
                                   const SolPubkey *owner, const SolSignerSeeds *signer) {
  uint64_t required = rent_exempt_minimum(space);
  if (*account->lamports == 0) return system_create_account(payer, account, space, owner, signer);
  if (*account->lamports < required) TRY(system_transfer(payer, account, required - *account->lamports, NULL));
  if (space == 0 && pubkey_eq(owner, &SYSTEM_PROGRAM_ID)) return SUCCESS;
  return system_allocate_and_assign(account, space, owner, signer);
}

/* ------------------------------------------------------------------------------------------------ */
/* Cross-program invocation: SPL Token (Token and Token-2022 share these layouts)                 */

#define TOKEN_IX_TRANSFER 3
#define TOKEN_IX_TRANSFER_CHECKED 12
/* Token account (165 bytes in both programs): mint @0, owner @32, amount @64, state @108. */
#define TOKEN_ACCOUNT_MIN_LEN 165
#define TOKEN_ACCOUNT_MINT_OFFSET 0
#define TOKEN_ACCOUNT_OWNER_OFFSET 32
#define TOKEN_ACCOUNT_AMOUNT_OFFSET 64
#define TOKEN_ACCOUNT_STATE_OFFSET 108
#define TOKEN_ACCOUNT_STATE_INITIALIZED 1
/* Mint (82 bytes base): decimals @44, is_initialized @45. */
#define MINT_MIN_LEN 82
#define MINT_DECIMALS_OFFSET 44

static inline bool is_token_program(const SolPubkey *key) {
  return pubkey_eq(key, &TOKEN_PROGRAM_ID) || pubkey_eq(key, &TOKEN_2022_PROGRAM_ID);
}

/* An initialized token account of `token_program` for `mint`, owned (the token-level owner) by
 * `wallet`. A Token-2022 account may be longer than 165 bytes (extensions). */
static inline bool is_token_account_of(const SolAccountInfo *account, const SolPubkey *token_program, const SolPubkey *mint,
                                const SolPubkey *wallet) {
  if (!pubkey_eq(account->owner, token_program) || account->data_len < TOKEN_ACCOUNT_MIN_LEN) return false;
  if (account->data[TOKEN_ACCOUNT_STATE_OFFSET] != TOKEN_ACCOUNT_STATE_INITIALIZED) return false;
  return sbf_equal(account->data + TOKEN_ACCOUNT_MINT_OFFSET, mint, PUBKEY_BYTES) &&
         sbf_equal(account->data + TOKEN_ACCOUNT_OWNER_OFFSET, wallet, PUBKEY_BYTES);
}

static inline uint64_t token_account_amount(const SolAccountInfo *account) {
  return read_u64_le(account->data + TOKEN_ACCOUNT_AMOUNT_OFFSET);
}

/* A mint of `token_program`; its decimals go to *decimals. */
static inline bool read_mint_decimals(const SolAccountInfo *mint, const SolPubkey *token_program, uint8_t *decimals) {
  if (!pubkey_eq(mint->owner, token_program) || mint->data_len < MINT_MIN_LEN) return false;
  *decimals = mint->data[MINT_DECIMALS_OFFSET];
  return true;
}

/* A token movement route: the accounts of a transfer, reused for several amounts / destinations
 * (a struct because BPF calls take at most five arguments). */
typedef struct {
  const SolPubkey *token_program;
  const SolAccountInfo *source;
  const SolAccountInfo *mint;
  const SolAccountInfo *destination;
  const SolAccountInfo *authority;
  uint8_t decimals;
  const SolSignerSeeds *signer; /* signs for a PDA authority; NULL when the authority signed the tx */
} TokenTransfer;

/* TransferChecked(amount, decimals): source (w), mint, destination (w), authority (s).
 * TransferChecked rather than Transfer because Token-2022 mints with some extensions refuse the
 * unchecked form. */
static inline uint64_t token_transfer_checked(const TokenTransfer *t, uint64_t amount) {
  uint8_t data[1 + 8 + 1];
  data[0] = TOKEN_IX_TRANSFER_CHECKED;
  write_u64_le(data + 1, amount);
  data[9] = t->decimals;
  SolAccountMeta metas[4] = {meta_of(t->source, true, false), meta_of(t->mint, false, false),
                             meta_of(t->destination, true, false), meta_of(t->authority, false, true)};
  SolInstruction ix = {t->token_program, metas, 4, data, sizeof(data)};
  SolAccountInfo infos[4] = {*t->source, *t->mint, *t->destination, *t->authority};
  return sol_invoke_signed_c(&ix, infos, 4, t->signer, t->signer ? 1 : 0);
}

/* Transfer(amount): source (w), destination (w), authority (s); `mint` and `decimals` unused.
 * Kept for completeness; the stand-ins use TransferChecked. */
static inline uint64_t token_transfer(const TokenTransfer *t, uint64_t amount) {
  uint8_t data[1 + 8];
  data[0] = TOKEN_IX_TRANSFER;
  write_u64_le(data + 1, amount);
  SolAccountMeta metas[3] = {meta_of(t->source, true, false), meta_of(t->destination, true, false),
                             meta_of(t->authority, false, true)};
  SolInstruction ix = {t->token_program, metas, 3, data, sizeof(data)};
  SolAccountInfo infos[3] = {*t->source, *t->destination, *t->authority};
  return sol_invoke_signed_c(&ix, infos, 3, t->signer, t->signer ? 1 : 0);
}

/* ------------------------------------------------------------------------------------------------ */
/* Program-owned account headers (Steel-style: byte 0 discriminator, bytes 1..7 zero)               */

#define ACCOUNT_HEADER_BYTES 8

/* `account` is owned by `program_id`, `size` bytes long and starts with discriminator `disc`. */
static inline bool is_program_account(const SolAccountInfo *account, const SolPubkey *program_id, uint8_t disc,
                               uint64_t size) {
  return pubkey_eq(account->owner, program_id) && account->data_len == size && account->data[0] == disc;
}

static inline void write_account_header(uint8_t *data, uint8_t disc) {
  sbf_zero(data, ACCOUNT_HEADER_BYTES);
  data[0] = disc;
}

#endif /* SBF_H */
