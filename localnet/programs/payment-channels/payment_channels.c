/*
 * payment_channels.c - a STAND-IN for the Solana Foundation's payment-channels program
 * (CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX), the on-chain half of the x402 `upto` scheme.
 *
 * DEVELOPMENT AND TEST FIXTURE ONLY. The real program is open source (Rust, Pinocchio) but its
 * build needs the Solana platform tools, which this machine does not have; this C program was
 * written from its public source and IDL so that the official upto client, server and facilitator
 * transactions execute for real on the local chain. Account layout, instruction data, account
 * lists, PDA seeds and error codes are the real program's (docs/payment-channels.md cites the
 * source files); the differences are listed in localnet/programs/README.md. Never deploy it.
 *
 * Instructions (byte 0 of the data):
 *   1 Open            salt u64 | deposit u64 | grace_period u32 | open_slot u64 | u32 n | n x (recipient 32, bps u16)
 *   2 Settle          (voucher in the Ed25519 instruction just before)
 *   3 TopUp           amount u64
 *   4 SettleAndSeal   has_voucher u8
 *   5 RequestClose
 *   6 Seal
 *   7 Distribute      u32 n | n x (recipient 32, bps u16)
 *   8 WithdrawPayer
 *   9 Reclaim
 * 228 EmitEvent       (self-CPI target of the event pipeline)
 */
#include "../include/sbf.h"
#include "errors.h"

/* ------------------------------------------------------------------------------------------------ */
/* Constants of the real program                                                                   */

#define IX_OPEN 1
#define IX_SETTLE 2
#define IX_TOP_UP 3
#define IX_SETTLE_AND_SEAL 4
#define IX_REQUEST_CLOSE 5
#define IX_SEAL 6
#define IX_DISTRIBUTE 7
#define IX_WITHDRAW_PAYER 8
#define IX_RECLAIM 9
#define IX_EMIT_EVENT 228

/* Built-in ProgramError values the real program returns (upper 32 bits, see sbf.h). */
#define ERROR_INVALID_ACCOUNT_DATA BUILTIN_ERROR(4)
#define ERROR_UNSUPPORTED_SYSVAR BUILTIN_ERROR(17)
#define ERROR_INVALID_ACCOUNT_OWNER BUILTIN_ERROR(23)
#define ERROR_ARITHMETIC_OVERFLOW BUILTIN_ERROR(24)

/* constants.rs: slot window of `open` and of the final deallocation / reclaim gate. */
#define OPEN_SLOT_WINDOW 1500ULL
#define MAX_DISTRIBUTION_RECIPIENTS 32

/* Channel (state/channel.rs): 256 bytes, byte offsets. */
#define CHANNEL_LEN 256
#define CH_DISCRIMINATOR 0
#define CH_VERSION 1
#define CH_BUMP 2
#define CH_STATUS 3
#define CH_SALT 4
#define CH_DEPOSIT 12
#define CH_SETTLED 20
#define CH_PAYOUT_WATERMARK 28
#define CH_CLOSURE_STARTED_AT 36
#define CH_PAYER_WITHDRAWN_AT 44
#define CH_GRACE_PERIOD 52
#define CH_DISTRIBUTION_HASH 56
#define CH_PAYER 88
#define CH_PAYEE 120
#define CH_AUTHORIZED_SIGNER 152
#define CH_MINT 184
#define CH_RENT_PAYER 216
#define CH_OPEN_SLOT 248

#define ACCOUNT_DISCRIMINATOR_CHANNEL 1
#define CURRENT_CHANNEL_VERSION 1

#define STATUS_OPEN 0
#define STATUS_SEALED 1
#define STATUS_CLOSING 2
#define STATUS_DISTRIBUTED 3

/* Voucher (instructions/mod.rs VoucherArgs): magic 'V' 0x01 | channel_id 32 | cumulative u64 | expires_at i64. */
#define VOUCHER_PAYLOAD_SIZE 50
#define VOUCHER_MAGIC_0 0x56
#define VOUCHER_MAGIC_1 0x01

/* The canonical single-signature Ed25519 precompile layout (helpers/ed25519). */
#define ED25519_PUBKEY_OFFSET 16
#define ED25519_SIGNATURE_OFFSET 48
#define ED25519_MESSAGE_OFFSET 112
#define ED25519_IX_DATA_LEN (ED25519_MESSAGE_OFFSET + VOUCHER_PAYLOAD_SIZE)

/* OpenArgs header: salt 8, deposit 8, grace_period 4, open_slot 8. */
#define OPEN_HEADER_LEN 28
#define DISTRIBUTION_ENTRY_LEN 34

/* Token programs (Token and Token-2022 share the base layouts). */
#define TOKEN_IX_CLOSE_ACCOUNT 9
#define ATA_IX_CREATE_IDEMPOTENT 1
#define TOKEN_ACCOUNT_STATE_INITIALIZED_VALUE 1
#define T22_TLV_START 166 /* base account (165) + account type byte */
#define EXT_IMMUTABLE_OWNER 7
#define EXT_METADATA_POINTER 18
#define EXT_TOKEN_GROUP_MEMBER 23

/* CHNLxYvVA28MJP9PrFuDXccuoGXAx7jBacfLEkahyGsX is taken from the loader's input (program_id). */

/* PDA("event_authority") of the program id, bump 249 (event_engine.rs derives it at compile time). */
static const SolPubkey EVENT_AUTHORITY_ID = {{0x5a, 0x54, 0x0d, 0x7b, 0x6b, 0x1e, 0x2b, 0x2b, 0xb5, 0x17, 0x52,
                                               0x19, 0xc9, 0xa3, 0xf0, 0x60, 0x10, 0x92, 0x41, 0xca, 0x8c, 0x4f,
                                               0x17, 0x0c, 0xc1, 0xca, 0x2d, 0x48, 0xee, 0xea, 0xf9, 0xd0}};
#define EVENT_AUTHORITY_BUMP 249
static const char SEED_EVENT_AUTHORITY[] = "event_authority";
static const char SEED_CHANNEL[] = "channel";
#define SEED_LEN(s) (sizeof(s) - 1)

/* TREASURY_OWNER. The real source ships a 0xBEEF placeholder for non-mainnet builds; the official
 * @x402/svm facilitator derives the devnet treasury from 4zTeC5mVqWLruDexgU2mV66p9t5vCA9JyiZqdGDUspap,
 * and the local chain imitates devnet, so the stand-in uses that owner. */
static const SolPubkey TREASURY_OWNER = {{0x3b, 0x4b, 0x4a, 0x4c, 0x3e, 0xcd, 0x7e, 0x59, 0xd6, 0x34, 0xae,
                                           0x67, 0xe5, 0xde, 0xbb, 0xec, 0x0a, 0xd0, 0x6f, 0x20, 0x4d, 0xf0,
                                           0x13, 0xa6, 0x95, 0xa3, 0x37, 0x6a, 0x57, 0xb9, 0x8d, 0x05}};
/* Ed25519SigVerify111111111111111111111111111 */
static const SolPubkey ED25519_PROGRAM_ID = {{0x03, 0x7d, 0x46, 0xd6, 0x7c, 0x93, 0xfb, 0xbe, 0x12, 0xf9, 0x42,
                                               0x8f, 0x83, 0x8d, 0x40, 0xff, 0x05, 0x70, 0x74, 0x49, 0x27, 0xf4,
                                               0x8a, 0x64, 0xfc, 0xca, 0x70, 0x44, 0x80, 0x00, 0x00, 0x00}};
/* Sysvar1nstructions1111111111111111111111111 */
static const SolPubkey INSTRUCTIONS_SYSVAR_ID = {{0x06, 0xa7, 0xd5, 0x17, 0x18, 0x7b, 0xd1, 0x66, 0x35, 0xda, 0xd4,
                                                   0x04, 0x55, 0xfd, 0xc2, 0xc0, 0xc1, 0x24, 0xc6, 0x8f, 0x21, 0x56,
                                                   0x75, 0xa5, 0xdb, 0xba, 0xcb, 0x5f, 0x08, 0x00, 0x00, 0x00}};
/* SysvarRent111111111111111111111111111111111 */
static const SolPubkey RENT_SYSVAR_ID = {{0x06, 0xa7, 0xd5, 0x17, 0x19, 0x2c, 0x5c, 0x51, 0x21, 0x8c, 0xc9,
                                           0x4c, 0x3d, 0x4a, 0xf1, 0x7f, 0x58, 0xda, 0xee, 0x08, 0x9b, 0xa1,
                                           0xfd, 0x44, 0xe3, 0xdb, 0xd9, 0x8a, 0x00, 0x00, 0x00, 0x00}};

/* Event wire format (event_engine.rs): EVENT_IX_TAG (u64 LE) | Anchor discriminator sha256("event:Name")[..8] | Borsh body. */
static const uint8_t EVENT_IX_TAG_LE[8] = {0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d};
static const uint8_t EVENT_OPENED_DISC[8] = {0xa6, 0xac, 0x61, 0x09, 0x4d, 0x4c, 0xbd, 0x6d};
static const uint8_t EVENT_PAYOUT_REDIRECTED_DISC[8] = {0xd1, 0x16, 0xb9, 0xd7, 0x54, 0xa7, 0x54, 0x50};

/* Syscalls beyond sbf.h. sol_sha256 takes an array of (ptr, len) slices, laid out like SolSignerSeed. */
extern uint64_t sol_sha256(const SolSignerSeed *slices, uint64_t count, uint8_t *result);
/* curve id 0 = Edwards25519; returns 0 when the 32 bytes are a point on the curve. */
extern uint64_t sol_curve_validate_point(uint64_t curve_id, const uint8_t *point, uint8_t *result);
#define CURVE25519_EDWARDS 0

/* ------------------------------------------------------------------------------------------------ */
/* Small helpers                                                                                    */

static inline uint32_t read_u32_le(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline bool key_at(const uint8_t *bytes, const SolPubkey *key) { return sbf_equal(bytes, key->x, PUBKEY_BYTES); }

/* floor(amount * bps / 10_000) without 128-bit arithmetic (bps <= 10_000 keeps every term in u64). */
static inline uint64_t floor_bps_share(uint64_t amount, uint32_t bps) {
  uint64_t q = amount / BPS_DENOMINATOR;
  uint64_t r = amount % BPS_DENOMINATOR;
  return q * bps + (r * bps) / BPS_DENOMINATOR;
}

/* The Channel account of this program: owner, exact length, discriminator, version (Channel::load). */
static uint64_t check_channel(const SolAccountInfo *channel, const SolPubkey *program_id) {
  if (!pubkey_eq(channel->owner, program_id)) return ERROR_INVALID_ACCOUNT_OWNER;
  if (channel->data_len != CHANNEL_LEN) return ERROR_INVALID_ACCOUNT_DATA;
  if (channel->data[CH_DISCRIMINATOR] != ACCOUNT_DISCRIMINATOR_CHANNEL) return PC_ERR_INVALID_ACCOUNT_DISCRIMINATOR;
  if (channel->data[CH_VERSION] != CURRENT_CHANNEL_VERSION) return PC_ERR_UNSUPPORTED_CHANNEL_VERSION;
  return SUCCESS;
}

/* Signer seeds of a channel PDA: "channel", payer, payee, mint, authorized_signer, salt LE, open_slot LE, bump. */
typedef struct {
  SolSignerSeed seeds[8];
} ChannelSeeds;

static void channel_seeds_from_state(ChannelSeeds *s, const uint8_t *ch) {
  s->seeds[0] = (SolSignerSeed){(const uint8_t *)SEED_CHANNEL, SEED_LEN(SEED_CHANNEL)};
  s->seeds[1] = (SolSignerSeed){ch + CH_PAYER, PUBKEY_BYTES};
  s->seeds[2] = (SolSignerSeed){ch + CH_PAYEE, PUBKEY_BYTES};
  s->seeds[3] = (SolSignerSeed){ch + CH_MINT, PUBKEY_BYTES};
  s->seeds[4] = (SolSignerSeed){ch + CH_AUTHORIZED_SIGNER, PUBKEY_BYTES};
  s->seeds[5] = (SolSignerSeed){ch + CH_SALT, 8}; /* stored little-endian, as the seed wants */
  s->seeds[6] = (SolSignerSeed){ch + CH_OPEN_SLOT, 8};
  s->seeds[7] = (SolSignerSeed){ch + CH_BUMP, 1};
}

/* ------------------------------------------------------------------------------------------------ */
/* Token accounts and mints (helpers/accounts/validation.rs, helpers/token.rs)                      */

typedef struct {
  const SolAccountInfo *mint;
  const SolAccountInfo *token_program;
  uint8_t decimals;
  bool is_2022;
} TokenCtx;

/* AccountValidationError of validation.rs. */
enum {
  AV_OK = 0,
  AV_ADDRESS_MISMATCH,
  AV_OWNER_MISMATCH,
  AV_NOT_INITIALIZED,
  AV_MALFORMED,
  AV_EXTENSION_UNSUPPORTED,
  AV_EXTENSION_MALFORMED,
};

/* Walks a Token-2022 TLV trailer; `for_mint` picks the extension policy (mint: metadata / group
 * extensions, 18..23; token account: ImmutableOwner only). */
static int scan_tlv_extensions(const uint8_t *p, uint64_t len, bool for_mint) {
  while (true) {
    if (len < 2) return sbf_is_zero(p, len) ? AV_OK : AV_EXTENSION_MALFORMED;
    uint16_t kind = read_u16_le(p);
    if (kind == 0) return AV_OK;
    if (len < 4) return AV_EXTENSION_MALFORMED;
    bool known = kind == EXT_IMMUTABLE_OWNER || (kind >= EXT_METADATA_POINTER && kind <= EXT_TOKEN_GROUP_MEMBER);
    if (!known) return AV_EXTENSION_UNSUPPORTED;
    uint64_t next = 4 + (uint64_t)read_u16_le(p + 2);
    if (next > len) return AV_EXTENSION_MALFORMED;
    bool allowed = for_mint ? kind != EXT_IMMUTABLE_OWNER : kind == EXT_IMMUTABLE_OWNER;
    if (!allowed) return AV_EXTENSION_UNSUPPORTED;
    p += next;
    len -= next;
  }
}

/* TokenContext::new: the token program is Token or Token-2022, the mint parses, a Token-2022 mint
 * carries only allowed extensions. */
static uint64_t token_ctx_new(TokenCtx *t, const SolAccountInfo *mint, const SolAccountInfo *token_program) {
  t->mint = mint;
  t->token_program = token_program;
  if (pubkey_eq(token_program->key, &TOKEN_PROGRAM_ID)) {
    t->is_2022 = false;
  } else if (pubkey_eq(token_program->key, &TOKEN_2022_PROGRAM_ID)) {
    t->is_2022 = true;
  } else {
    return PC_ERR_INVALID_MINT_TOKEN_PROGRAM;
  }
  if (!pubkey_eq(mint->owner, token_program->key)) return PC_ERR_MINT_ACCOUNT_MISMATCH;
  if (t->is_2022 ? mint->data_len < MINT_MIN_LEN : mint->data_len != MINT_MIN_LEN) return PC_ERR_MINT_ACCOUNT_MISMATCH;
  t->decimals = mint->data[MINT_DECIMALS_OFFSET];
  if (t->is_2022 && mint->data_len > MINT_MIN_LEN) {
    if (mint->data_len < T22_TLV_START || !sbf_is_zero(mint->data + MINT_MIN_LEN, TOKEN_ACCOUNT_MIN_LEN - MINT_MIN_LEN))
      return PC_ERR_MALFORMED_MINT_TOKEN_ACCOUNT_DATA;
    if (scan_tlv_extensions(mint->data + T22_TLV_START, mint->data_len - T22_TLV_START, true) != AV_OK)
      return PC_ERR_MALFORMED_MINT_TOKEN_EXTENSIONS;
  }
  return SUCCESS;
}

/* `account` is ATA(owner, token_program, mint). */
static bool is_ata_address(const SolAccountInfo *account, const SolPubkey *owner, const TokenCtx *t) {
  SolSignerSeed seeds[3] = {
      {owner->x, PUBKEY_BYTES}, {t->token_program->key->x, PUBKEY_BYTES}, {t->mint->key->x, PUBKEY_BYTES}};
  SolPubkey derived;
  uint8_t bump;
  if (sol_try_find_program_address(seeds, 3, &ASSOCIATED_TOKEN_PROGRAM_ID, &derived, &bump) != 0) return false;
  return pubkey_eq(&derived, account->key);
}

/* validate_as_ata_checked: the canonical ATA, an initialized token account of the mint owned by
 * `owner`, and (Token-2022) only the ImmutableOwner extension. */
static int validate_ata_checked(const SolAccountInfo *account, const SolPubkey *owner, const TokenCtx *t) {
  if (!is_ata_address(account, owner, t)) return AV_ADDRESS_MISMATCH;
  if (!pubkey_eq(account->owner, t->token_program->key)) return AV_MALFORMED;
  if (t->is_2022 ? account->data_len < TOKEN_ACCOUNT_MIN_LEN : account->data_len != TOKEN_ACCOUNT_MIN_LEN)
    return AV_MALFORMED;
  if (account->data[TOKEN_ACCOUNT_STATE_OFFSET] != TOKEN_ACCOUNT_STATE_INITIALIZED_VALUE) return AV_NOT_INITIALIZED;
  if (!key_at(account->data + TOKEN_ACCOUNT_MINT_OFFSET, t->mint->key) ||
      !key_at(account->data + TOKEN_ACCOUNT_OWNER_OFFSET, owner))
    return AV_OWNER_MISMATCH;
  if (t->is_2022 && account->data_len > TOKEN_ACCOUNT_MIN_LEN) {
    if (account->data_len < T22_TLV_START) return AV_EXTENSION_MALFORMED;
    return scan_tlv_extensions(account->data + T22_TLV_START, account->data_len - T22_TLV_START, false);
  }
  return AV_OK;
}

/* Maps a validation result to the three codes of one role (mismatch, invalid, extensions), the
 * way view.rs does for the channel, payer and treasury token accounts. */
static uint64_t map_validation(int result, uint64_t mismatch, uint64_t invalid, uint64_t extensions) {
  switch (result) {
    case AV_OK:
      return SUCCESS;
    case AV_ADDRESS_MISMATCH:
    case AV_OWNER_MISMATCH:
    case AV_NOT_INITIALIZED:
      return mismatch;
    case AV_MALFORMED:
      return invalid;
    default:
      return extensions;
  }
}

/* A TransferChecked route of the channel's mint (sbf.h's TokenTransfer). */
static inline TokenTransfer route(const TokenCtx *t, const SolAccountInfo *from, const SolAccountInfo *to,
                                  const SolAccountInfo *authority, const SolSignerSeeds *signer) {
  TokenTransfer transfer = {t->token_program->key, from, t->mint, to, authority, t->decimals, signer};
  return transfer;
}

/* ------------------------------------------------------------------------------------------------ */
/* Events: a self-CPI signed by the event authority PDA (event_engine.rs)                          */

static uint64_t emit_event(const SolPubkey *program_id, const SolAccountInfo *event_authority,
                           const SolAccountInfo *self_program, uint8_t *data, uint64_t len) {
  if (!pubkey_eq(event_authority->key, &EVENT_AUTHORITY_ID)) return PC_ERR_INVALID_EVENT_AUTHORITY;
  uint8_t bump = EVENT_AUTHORITY_BUMP;
  SolSignerSeed seeds[2] = {{(const uint8_t *)SEED_EVENT_AUTHORITY, SEED_LEN(SEED_EVENT_AUTHORITY)}, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  SolAccountMeta metas[1] = {{event_authority->key, false, true}};
  SolInstruction ix = {program_id, metas, 1, data, len};
  SolAccountInfo infos[2] = {*event_authority, *self_program};
  return sol_invoke_signed_c(&ix, infos, 2, &signer, 1);
}

static uint64_t process_emit_event(const SolInput *in) {
  if (in->account_count != 1) return PC_ERR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *event_authority = &in->accounts[0];
  if (!event_authority->is_signer) return PC_ERR_MISSING_REQUIRED_SIGNATURE;
  if (!pubkey_eq(event_authority->key, &EVENT_AUTHORITY_ID)) return PC_ERR_INVALID_EVENT_AUTHORITY;
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Distribution preimage (helpers/distribution.rs): u32 count | count x (recipient 32, bps u16 LE)  */

typedef struct {
  const uint8_t *bytes; /* the whole preimage, hashed as is */
  uint64_t len;
  uint32_t count;
  uint32_t payee_bps; /* 10_000 - sum of the entries' bps */
} Preimage;

static uint64_t preimage_load(Preimage *p, const uint8_t *data, uint64_t len) {
  if (len < 4) return ERROR_INVALID_INSTRUCTION_DATA;
  uint32_t count = read_u32_le(data);
  if (count > MAX_DISTRIBUTION_RECIPIENTS) return PC_ERR_INVALID_RECIPIENT_COUNT;
  if (len != 4 + (uint64_t)count * DISTRIBUTION_ENTRY_LEN) return ERROR_INVALID_INSTRUCTION_DATA;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < count; i++) {
    const uint8_t *entry = data + 4 + (uint64_t)i * DISTRIBUTION_ENTRY_LEN;
    uint16_t bps = read_u16_le(entry + PUBKEY_BYTES);
    if (bps == 0) return PC_ERR_INVALID_SPLIT_CONFIG;
    sum += bps;
    for (uint32_t j = 0; j < i; j++) {
      if (sbf_equal(data + 4 + (uint64_t)j * DISTRIBUTION_ENTRY_LEN, entry, PUBKEY_BYTES)) return PC_ERR_DUPLICATE_RECIPIENT;
    }
  }
  if (sum > BPS_DENOMINATOR) return PC_ERR_INVALID_SPLIT_CONFIG;
  p->bytes = data;
  p->len = len;
  p->count = count;
  p->payee_bps = (uint32_t)BPS_DENOMINATOR - sum;
  return SUCCESS;
}

static inline const uint8_t *preimage_entry(const Preimage *p, uint32_t i) {
  return p->bytes + 4 + (uint64_t)i * DISTRIBUTION_ENTRY_LEN;
}

static void preimage_hash(const Preimage *p, uint8_t out[32]) {
  SolSignerSeed slice = {p->bytes, p->len};
  sol_sha256(&slice, 1, out);
}

/* ------------------------------------------------------------------------------------------------ */
/* Vouchers (helpers/voucher.rs, helpers/ed25519/parse.rs)                                          */

/* The data of the instruction just before the current one, from the Instructions sysvar, when it
 * is an Ed25519 precompile instruction. Serialized sysvar: u16 count | u16 offsets[count] | per
 * instruction (u16 n, n x (flags u8, key 32), program id 32, u16 len, data) | u16 current index. */
static uint64_t previous_ed25519_data(const SolAccountInfo *sysvar, const uint8_t **out) {
  if (!pubkey_eq(sysvar->key, &INSTRUCTIONS_SYSVAR_ID)) return ERROR_UNSUPPORTED_SYSVAR;
  const uint8_t *d = sysvar->data;
  uint64_t len = sysvar->data_len;
  if (len < 4) return PC_ERR_MISSING_ED25519_VERIFICATION;
  uint16_t current = read_u16_le(d + len - 2);
  if (current == 0) return PC_ERR_MISSING_ED25519_VERIFICATION;
  uint16_t index = current - 1;
  uint16_t count = read_u16_le(d);
  if (index >= count || 2 + 2 * (uint64_t)count > len) return PC_ERR_MISSING_ED25519_VERIFICATION;
  uint64_t at = read_u16_le(d + 2 + 2 * (uint64_t)index);
  if (at + 2 > len) return PC_ERR_MISSING_ED25519_VERIFICATION;
  at += 2 + 33 * (uint64_t)read_u16_le(d + at);
  if (at + PUBKEY_BYTES + 2 > len) return PC_ERR_MISSING_ED25519_VERIFICATION;
  bool is_ed25519 = key_at(d + at, &ED25519_PROGRAM_ID);
  at += PUBKEY_BYTES;
  uint64_t data_len = read_u16_le(d + at);
  at += 2;
  if (at + data_len > len || !is_ed25519) return PC_ERR_MISSING_ED25519_VERIFICATION;
  /* Exactly one signature, every part inside this instruction at the canonical offsets, and a
   * message of exactly the voucher's size: the precompile then proved that the 32 bytes at 16
   * signed the 50 bytes at 112. */
  const uint8_t *ix = d + at;
  if (data_len != ED25519_IX_DATA_LEN || ix[0] != 1 || ix[1] != 0) return PC_ERR_MALFORMED_ED25519_INSTRUCTION;
  if (read_u16_le(ix + 4) != 0xffff || read_u16_le(ix + 8) != 0xffff || read_u16_le(ix + 14) != 0xffff)
    return PC_ERR_MALFORMED_ED25519_INSTRUCTION;
  if (read_u16_le(ix + 2) != ED25519_SIGNATURE_OFFSET || read_u16_le(ix + 6) != ED25519_PUBKEY_OFFSET ||
      read_u16_le(ix + 10) != ED25519_MESSAGE_OFFSET)
    return PC_ERR_MALFORMED_ED25519_INSTRUCTION;
  if (read_u16_le(ix + 12) != VOUCHER_PAYLOAD_SIZE) return PC_ERR_MALFORMED_ED25519_INSTRUCTION;
  *out = ix;
  return SUCCESS;
}

/* verify_voucher: returns the new settled watermark in *watermark. */
static uint64_t verify_voucher(const SolAccountInfo *channel, const SolAccountInfo *sysvar, int64_t now,
                               uint64_t *watermark) {
  const uint8_t *ix;
  TRY(previous_ed25519_data(sysvar, &ix));
  const uint8_t *voucher = ix + ED25519_MESSAGE_OFFSET;
  const uint8_t *ch = channel->data;
  if (voucher[0] != VOUCHER_MAGIC_0 || voucher[1] != VOUCHER_MAGIC_1) return PC_ERR_VOUCHER_BAD_MAGIC;
  if (!key_at(voucher + 2, channel->key)) return PC_ERR_VOUCHER_CHANNEL_MISMATCH;
  int64_t expires_at = read_i64_le(voucher + 42);
  if (expires_at != 0 && now >= expires_at) return PC_ERR_VOUCHER_EXPIRED;
  uint64_t cumulative = read_u64_le(voucher + 34);
  if (cumulative > read_u64_le(ch + CH_DEPOSIT)) return PC_ERR_VOUCHER_OVER_DEPOSIT;
  if (read_u64_le(ch + CH_SETTLED) >= cumulative) return PC_ERR_VOUCHER_WATERMARK_NOT_MONOTONIC;
  if (!sbf_equal(ix + ED25519_PUBKEY_OFFSET, ch + CH_AUTHORIZED_SIGNER, PUBKEY_BYTES)) return PC_ERR_VOUCHER_SIGNER_MISMATCH;
  *watermark = cumulative;
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Open                                                                                             */

static uint64_t create_idempotent_ata(const SolAccountInfo *funding, const SolAccountInfo *ata,
                                      const SolAccountInfo *wallet, const TokenCtx *t, const SolAccountInfo *system) {
  uint8_t data[1] = {ATA_IX_CREATE_IDEMPOTENT};
  SolAccountMeta metas[6] = {meta_of(funding, true, true),       meta_of(ata, true, false),
                             meta_of(wallet, false, false),      meta_of(t->mint, false, false),
                             meta_of(system, false, false),      meta_of(t->token_program, false, false)};
  SolInstruction ix = {&ASSOCIATED_TOKEN_PROGRAM_ID, metas, 6, data, 1};
  SolAccountInfo infos[6] = {*funding, *ata, *wallet, *t->mint, *system, *t->token_program};
  return sol_invoke_signed_c(&ix, infos, 6, NULL, 0);
}

static uint64_t process_open(const SolInput *in) {
  /* Data: [1] header(28) preimage. */
  if (in->data_len < 1 + OPEN_HEADER_LEN) return ERROR_INVALID_INSTRUCTION_DATA;
  const uint8_t *args = in->data + 1;
  Preimage recipients;
  TRY(preimage_load(&recipients, args + OPEN_HEADER_LEN, in->data_len - 1 - OPEN_HEADER_LEN));
  const uint8_t *salt_le = args;
  uint64_t deposit = read_u64_le(args + 8);
  uint32_t grace_period = read_u32_le(args + 16);
  const uint8_t *open_slot_le = args + 20;
  uint64_t open_slot = read_u64_le(open_slot_le);

  if (in->account_count != 14) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *payer = &in->accounts[0];
  const SolAccountInfo *rent_payer = &in->accounts[1];
  const SolAccountInfo *payee = &in->accounts[2];
  const SolAccountInfo *mint = &in->accounts[3];
  const SolAccountInfo *authorized_signer = &in->accounts[4];
  SolAccountInfo *channel = (SolAccountInfo *)&in->accounts[5];
  const SolAccountInfo *payer_token_account = &in->accounts[6];
  const SolAccountInfo *channel_token_account = &in->accounts[7];
  const SolAccountInfo *token_program = &in->accounts[8];
  const SolAccountInfo *system_program = &in->accounts[9];
  const SolAccountInfo *rent = &in->accounts[10];
  const SolAccountInfo *event_authority = &in->accounts[12];
  const SolAccountInfo *self_program = &in->accounts[13];

  if (!payer->is_signer || !rent_payer->is_signer) return PC_ERR_MISSING_REQUIRED_SIGNATURE;
  if (pubkey_eq(payer->key, payee->key)) return PC_ERR_PAYER_PAYEE_MUST_DIFFER;
  if (deposit == 0) return PC_ERR_DEPOSIT_MUST_BE_NON_ZERO;
  if (grace_period < 1) return PC_ERR_GRACE_PERIOD_MUST_BE_NON_ZERO;
  uint8_t point[32];
  if (sol_curve_validate_point(CURVE25519_EDWARDS, authorized_signer->key->x, point) != 0)
    return PC_ERR_INVALID_AUTHORIZED_SIGNER;

  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (open_slot > clock.slot || clock.slot - open_slot > OPEN_SLOT_WINDOW) return PC_ERR_OPEN_SLOT_OUT_OF_WINDOW;

  uint8_t bump;
  SolSignerSeed seeds[8] = {
      {(const uint8_t *)SEED_CHANNEL, SEED_LEN(SEED_CHANNEL)},
      {payer->key->x, PUBKEY_BYTES},
      {payee->key->x, PUBKEY_BYTES},
      {mint->key->x, PUBKEY_BYTES},
      {authorized_signer->key->x, PUBKEY_BYTES},
      {salt_le, 8},
      {open_slot_le, 8},
      {&bump, 1},
  };
  SolPubkey channel_address;
  if (sol_try_find_program_address(seeds, 7, in->program_id, &channel_address, &bump) != 0)
    return PC_ERR_CHANNEL_ADDRESS_MISMATCH;
  for (uint32_t i = 0; i < recipients.count; i++) {
    if (key_at(preimage_entry(&recipients, i), &channel_address)) return PC_ERR_INVALID_SPLIT_CONFIG;
  }
  uint8_t distribution_hash[32];
  preimage_hash(&recipients, distribution_hash);
  if (!pubkey_eq(channel->key, &channel_address)) return PC_ERR_CHANNEL_ADDRESS_MISMATCH;

  TokenCtx t;
  TRY(token_ctx_new(&t, mint, token_program));
  if (!is_ata_address(channel_token_account, channel->key, &t)) return PC_ERR_CHANNEL_ACCOUNT_MISMATCH;
  TRY(map_validation(validate_ata_checked(payer_token_account, payer->key, &t), PC_ERR_PAYER_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_PAYER_TOKEN_ACCOUNT, PC_ERR_INVALID_PAYER_TOKEN_EXTENSIONS));
  if (!pubkey_eq(rent->key, &RENT_SYSVAR_ID)) return ERROR_INVALID_ARGUMENT;

  /* Prefund-tolerant creation: top the rent up, then Allocate + Assign signed by the seeds (a
   * lamport donation to the address cannot block the open). */
  SolSignerSeeds signer = {seeds, 8};
  uint64_t min_rent = rent_exempt_minimum(CHANNEL_LEN);
  if (*channel->lamports < min_rent) TRY(system_transfer(rent_payer, channel, min_rent - *channel->lamports, NULL));
  TRY(system_allocate_and_assign(channel, CHANNEL_LEN, in->program_id, &signer));
  account_refresh_data_len(channel);

  TRY(create_idempotent_ata(rent_payer, channel_token_account, channel, &t, system_program));
  /* The CPI gave the escrow ATA its 165 bytes; a stale length in the next CPI's account list would
   * read as a resize of an account this program does not own. */
  account_refresh_data_len((SolAccountInfo *)channel_token_account);
  TokenTransfer deposit_route = route(&t, payer_token_account, channel_token_account, payer, NULL);
  TRY(token_transfer_checked(&deposit_route, deposit));

  uint8_t *ch = channel->data;
  sbf_zero(ch, CHANNEL_LEN);
  ch[CH_DISCRIMINATOR] = ACCOUNT_DISCRIMINATOR_CHANNEL;
  ch[CH_VERSION] = CURRENT_CHANNEL_VERSION;
  ch[CH_BUMP] = bump;
  ch[CH_STATUS] = STATUS_OPEN;
  sbf_copy(ch + CH_SALT, salt_le, 8);
  write_u64_le(ch + CH_DEPOSIT, deposit);
  write_u32_le(ch + CH_GRACE_PERIOD, grace_period);
  sbf_copy(ch + CH_DISTRIBUTION_HASH, distribution_hash, 32);
  sbf_copy(ch + CH_PAYER, payer->key, PUBKEY_BYTES);
  sbf_copy(ch + CH_PAYEE, payee->key, PUBKEY_BYTES);
  sbf_copy(ch + CH_AUTHORIZED_SIGNER, authorized_signer->key, PUBKEY_BYTES);
  sbf_copy(ch + CH_MINT, mint->key, PUBKEY_BYTES);
  sbf_copy(ch + CH_RENT_PAYER, rent_payer->key, PUBKEY_BYTES);
  write_u64_le(ch + CH_OPEN_SLOT, open_slot);

  /* Opened { channel, open_slot } */
  uint8_t event[16 + 32 + 8];
  sbf_copy(event, EVENT_IX_TAG_LE, 8);
  sbf_copy(event + 8, EVENT_OPENED_DISC, 8);
  sbf_copy(event + 16, channel->key, PUBKEY_BYTES);
  write_u64_le(event + 48, open_slot);
  return emit_event(in->program_id, event_authority, self_program, event, sizeof(event));
}

/* ------------------------------------------------------------------------------------------------ */
/* Settle, SettleAndSeal, TopUp, RequestClose, Seal                                                 */

static uint64_t process_settle(const SolInput *in) {
  if (in->account_count != 2) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *channel = &in->accounts[0];
  int64_t now = clock_now();
  TRY(check_channel(channel, in->program_id));
  if (channel->data[CH_STATUS] != STATUS_OPEN) return PC_ERR_INVALID_CHANNEL_STATUS;
  uint64_t watermark;
  TRY(verify_voucher(channel, &in->accounts[1], now, &watermark));
  write_u64_le(channel->data + CH_SETTLED, watermark);
  return SUCCESS;
}

static uint64_t process_settle_and_seal(const SolInput *in) {
  if (in->data_len != 2) return ERROR_INVALID_INSTRUCTION_DATA;
  uint8_t has_voucher = in->data[1];
  if (in->account_count != 3) return PC_ERR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *payee = &in->accounts[0];
  const SolAccountInfo *channel = &in->accounts[1];
  if (!payee->is_signer) return PC_ERR_MISSING_REQUIRED_SIGNATURE;
  int64_t now = clock_now();
  TRY(check_channel(channel, in->program_id));
  uint8_t *ch = channel->data;
  switch (ch[CH_STATUS]) {
    case STATUS_OPEN:
      break;
    case STATUS_CLOSING: {
      /* A payee may still seal cooperatively while the payer's grace period runs, not after. */
      int64_t started = read_i64_le(ch + CH_CLOSURE_STARTED_AT);
      int64_t grace = (int64_t)read_u32_le(ch + CH_GRACE_PERIOD);
      if (started > 0x7fffffffffffffffLL - grace) return ERROR_ARITHMETIC_OVERFLOW;
      if (now >= started + grace) return PC_ERR_INVALID_CHANNEL_STATUS;
      break;
    }
    default:
      return PC_ERR_INVALID_CHANNEL_STATUS;
  }
  if (!key_at(ch + CH_PAYEE, payee->key)) return PC_ERR_INVALID_CHANNEL_PAYEE;
  if (has_voucher != 0) {
    uint64_t watermark;
    TRY(verify_voucher(channel, &in->accounts[2], now, &watermark));
    write_u64_le(ch + CH_SETTLED, watermark);
  }
  ch[CH_STATUS] = STATUS_SEALED;
  write_u64_le(ch + CH_CLOSURE_STARTED_AT, 0);
  return SUCCESS;
}

static uint64_t process_top_up(const SolInput *in) {
  if (in->data_len != 9) return ERROR_INVALID_INSTRUCTION_DATA;
  uint64_t amount = read_u64_le(in->data + 1);
  if (in->account_count != 6) return PC_ERR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *payer = &in->accounts[0];
  const SolAccountInfo *channel = &in->accounts[1];
  const SolAccountInfo *payer_token_account = &in->accounts[2];
  const SolAccountInfo *channel_token_account = &in->accounts[3];
  if (!payer->is_signer) return PC_ERR_MISSING_REQUIRED_SIGNATURE;
  if (amount == 0) return PC_ERR_DEPOSIT_MUST_BE_NON_ZERO;
  TRY(check_channel(channel, in->program_id));
  uint8_t *ch = channel->data;
  if (ch[CH_STATUS] != STATUS_OPEN) return PC_ERR_INVALID_CHANNEL_STATUS;
  if (!key_at(ch + CH_PAYER, payer->key)) return PC_ERR_INVALID_CHANNEL_PAYER;
  if (!key_at(ch + CH_MINT, in->accounts[4].key)) return PC_ERR_INVALID_CHANNEL_MINT;
  TokenCtx t;
  TRY(token_ctx_new(&t, &in->accounts[4], &in->accounts[5]));
  TRY(map_validation(validate_ata_checked(channel_token_account, channel->key, &t), PC_ERR_CHANNEL_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_CHANNEL_TOKEN_ACCOUNT, PC_ERR_INVALID_CHANNEL_TOKEN_EXTENSIONS));
  TRY(map_validation(validate_ata_checked(payer_token_account, payer->key, &t), PC_ERR_PAYER_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_PAYER_TOKEN_ACCOUNT, PC_ERR_INVALID_PAYER_TOKEN_EXTENSIONS));
  uint64_t deposit = read_u64_le(ch + CH_DEPOSIT);
  if (deposit + amount < deposit) return PC_ERR_TOP_UP_DEPOSIT_OVERFLOW;
  write_u64_le(ch + CH_DEPOSIT, deposit + amount);
  TokenTransfer top_up_route = route(&t, payer_token_account, channel_token_account, payer, NULL);
  return token_transfer_checked(&top_up_route, amount);
}

static uint64_t process_request_close(const SolInput *in) {
  if (in->account_count != 2) return PC_ERR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *payer = &in->accounts[0];
  const SolAccountInfo *channel = &in->accounts[1];
  if (!payer->is_signer) return PC_ERR_MISSING_REQUIRED_SIGNATURE;
  int64_t now = clock_now();
  TRY(check_channel(channel, in->program_id));
  uint8_t *ch = channel->data;
  if (ch[CH_STATUS] != STATUS_OPEN) return PC_ERR_INVALID_CHANNEL_STATUS;
  if (!key_at(ch + CH_PAYER, payer->key)) return PC_ERR_INVALID_CHANNEL_PAYER;
  write_u64_le(ch + CH_CLOSURE_STARTED_AT, (uint64_t)now);
  ch[CH_STATUS] = STATUS_CLOSING;
  return SUCCESS;
}

static uint64_t process_seal(const SolInput *in) {
  if (in->account_count != 1) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *channel = &in->accounts[0];
  int64_t now = clock_now();
  TRY(check_channel(channel, in->program_id));
  uint8_t *ch = channel->data;
  if (ch[CH_STATUS] != STATUS_CLOSING) return PC_ERR_INVALID_CHANNEL_STATUS;
  int64_t started = read_i64_le(ch + CH_CLOSURE_STARTED_AT);
  int64_t grace = (int64_t)read_u32_le(ch + CH_GRACE_PERIOD);
  if (started > 0x7fffffffffffffffLL - grace) return PC_ERR_SEAL_DEADLINE_OVERFLOW;
  if (now < started + grace) return PC_ERR_SEAL_GRACE_PERIOD_NOT_ELAPSED;
  ch[CH_STATUS] = STATUS_SEALED;
  write_u64_le(ch + CH_CLOSURE_STARTED_AT, 0);
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* WithdrawPayer, Reclaim                                                                           */

static uint64_t process_withdraw_payer(const SolInput *in) {
  if (in->account_count != 6) return PC_ERR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *payer = &in->accounts[0];
  const SolAccountInfo *channel = &in->accounts[1];
  const SolAccountInfo *channel_token_account = &in->accounts[2];
  const SolAccountInfo *payer_token_account = &in->accounts[3];
  int64_t now = clock_now();
  if (!payer->is_signer) return PC_ERR_MISSING_REQUIRED_SIGNATURE;
  TRY(check_channel(channel, in->program_id));
  uint8_t *ch = channel->data;
  if (ch[CH_STATUS] != STATUS_SEALED) return PC_ERR_INVALID_CHANNEL_STATUS;
  if (!key_at(ch + CH_PAYER, payer->key)) return PC_ERR_INVALID_CHANNEL_PAYER;
  if (read_i64_le(ch + CH_PAYER_WITHDRAWN_AT) != 0) return PC_ERR_PAYER_ALREADY_WITHDRAWN;
  if (!key_at(ch + CH_MINT, in->accounts[4].key)) return PC_ERR_INVALID_CHANNEL_MINT;
  TokenCtx t;
  TRY(token_ctx_new(&t, &in->accounts[4], &in->accounts[5]));
  TRY(map_validation(validate_ata_checked(channel_token_account, channel->key, &t), PC_ERR_CHANNEL_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_CHANNEL_TOKEN_ACCOUNT, PC_ERR_INVALID_CHANNEL_TOKEN_EXTENSIONS));
  TRY(map_validation(validate_ata_checked(payer_token_account, payer->key, &t), PC_ERR_PAYER_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_PAYER_TOKEN_ACCOUNT, PC_ERR_INVALID_PAYER_TOKEN_EXTENSIONS));
  write_u64_le(ch + CH_PAYER_WITHDRAWN_AT, (uint64_t)now);
  uint64_t deposit = read_u64_le(ch + CH_DEPOSIT);
  uint64_t settled = read_u64_le(ch + CH_SETTLED);
  if (settled > deposit) return PC_ERR_REFUND_CALCULATION_OVERFLOW;
  uint64_t refund = deposit - settled;
  if (refund == 0) return SUCCESS;
  ChannelSeeds seeds;
  channel_seeds_from_state(&seeds, ch);
  SolSignerSeeds signer = {seeds.seeds, 8};
  TokenTransfer refund_route = route(&t, channel_token_account, payer_token_account, channel, &signer);
  return token_transfer_checked(&refund_route, refund);
}

/* Moves every lamport to the rent payer and hands the emptied account back to the System program. */
static uint64_t deallocate_channel(SolAccountInfo *channel, const SolAccountInfo *rent_payer) {
  uint64_t drained = *channel->lamports;
  uint64_t balance = *rent_payer->lamports + drained;
  if (balance < drained) return PC_ERR_RENT_PAYER_BALANCE_OVERFLOW;
  *rent_payer->lamports = balance;
  *channel->lamports = 0;
  sbf_zero(channel->data, channel->data_len);
  *(uint64_t *)(channel->data - sizeof(uint64_t)) = 0;
  channel->data_len = 0;
  sbf_zero(channel->owner, PUBKEY_BYTES);
  return SUCCESS;
}

static uint64_t process_reclaim(const SolInput *in) {
  if (in->account_count != 2) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  SolAccountInfo *channel = (SolAccountInfo *)&in->accounts[0];
  const SolAccountInfo *rent_payer = &in->accounts[1];
  TRY(check_channel(channel, in->program_id));
  const uint8_t *ch = channel->data;
  if (ch[CH_STATUS] != STATUS_DISTRIBUTED) return PC_ERR_INVALID_CHANNEL_STATUS;
  if (!key_at(ch + CH_RENT_PAYER, rent_payer->key)) return PC_ERR_INVALID_CHANNEL_RENT_PAYER;
  uint64_t open_slot = read_u64_le(ch + CH_OPEN_SLOT);
  if (open_slot + OPEN_SLOT_WINDOW < open_slot) return ERROR_ARITHMETIC_OVERFLOW;
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (clock.slot <= open_slot + OPEN_SLOT_WINDOW) return PC_ERR_CHANNEL_CLOSE_TOO_EARLY;
  return deallocate_channel(channel, rent_payer);
}

/* ------------------------------------------------------------------------------------------------ */
/* Distribute                                                                                       */

#define BENEFICIARY_RECIPIENT 0
#define BENEFICIARY_PAYEE 1
#define BENEFICIARY_PAYER 2
#define REDIRECT_UNSUPPORTED_EXTENSION 0
#define REDIRECT_CLOSED_OR_MALFORMED 1
#define REDIRECT_NOT_INITIALIZED 2
#define REDIRECT_REASSIGNED_AUTHORITY 3
#define MAX_PENDING_TRANSFERS (MAX_DISTRIBUTION_RECIPIENTS + 3)

typedef struct {
  const SolAccountInfo *to;
  uint64_t amount;
} PendingTransfer;

typedef struct {
  const SolInput *in;
  const TokenCtx *t;
  const SolAccountInfo *channel;
  const SolAccountInfo *treasury;
  PendingTransfer pending[MAX_PENDING_TRANSFERS];
  uint64_t pending_len;
  uint64_t scheduled;
} Distribution;

/* A payout's owner and amount, passed together (BPF calls take at most five arguments). */
typedef struct {
  const SolAccountInfo *account;
  const uint8_t *owner;
  uint64_t amount;
  uint8_t beneficiary;
} Payout;

static uint64_t schedule(Distribution *d, const SolAccountInfo *to, uint64_t amount) {
  if (amount == 0) return SUCCESS;
  if (d->pending_len >= MAX_PENDING_TRANSFERS) return PC_ERR_DISTRIBUTE_BALANCE_CALCULATION_OVERFLOW;
  if (d->scheduled + amount < amount) return PC_ERR_DISTRIBUTE_BALANCE_CALCULATION_OVERFLOW;
  d->scheduled += amount;
  d->pending[d->pending_len].to = to;
  d->pending[d->pending_len].amount = amount;
  d->pending_len++;
  return SUCCESS;
}

/* payout_destination (view.rs): a zero amount only needs the right ATA address; a non-zero amount
 * to an account that is not a usable token account of the beneficiary goes to the treasury instead,
 * announced by a PayoutRedirected event. A wrong ATA address is an error. */
static uint64_t payout_destination(Distribution *d, const Payout *p, const SolAccountInfo **destination) {
  static const uint64_t mismatch[3] = {PC_ERR_RECIPIENT_ACCOUNT_MISMATCH, PC_ERR_PAYEE_ACCOUNT_MISMATCH,
                                       PC_ERR_PAYER_ACCOUNT_MISMATCH};
  static const uint64_t extensions[3] = {PC_ERR_INVALID_RECIPIENT_TOKEN_EXTENSIONS, PC_ERR_INVALID_PAYEE_TOKEN_EXTENSIONS,
                                         PC_ERR_INVALID_PAYER_TOKEN_EXTENSIONS};
  const SolPubkey *owner = (const SolPubkey *)p->owner;
  if (p->amount == 0) {
    if (!is_ata_address(p->account, owner, d->t)) return mismatch[p->beneficiary];
    *destination = p->account;
    return SUCCESS;
  }
  uint8_t reason;
  switch (validate_ata_checked(p->account, owner, d->t)) {
    case AV_OK:
      *destination = p->account;
      return SUCCESS;
    case AV_EXTENSION_UNSUPPORTED:
      reason = REDIRECT_UNSUPPORTED_EXTENSION;
      break;
    case AV_MALFORMED:
      reason = REDIRECT_CLOSED_OR_MALFORMED;
      break;
    case AV_NOT_INITIALIZED:
      reason = REDIRECT_NOT_INITIALIZED;
      break;
    case AV_OWNER_MISMATCH:
      reason = REDIRECT_REASSIGNED_AUTHORITY;
      break;
    case AV_ADDRESS_MISMATCH:
      return mismatch[p->beneficiary];
    default:
      return extensions[p->beneficiary];
  }
  /* PayoutRedirected { channel, owner, amount, beneficiary, reason } */
  uint8_t event[16 + 32 + 32 + 8 + 1 + 1];
  sbf_copy(event, EVENT_IX_TAG_LE, 8);
  sbf_copy(event + 8, EVENT_PAYOUT_REDIRECTED_DISC, 8);
  sbf_copy(event + 16, d->channel->key, PUBKEY_BYTES);
  sbf_copy(event + 48, owner, PUBKEY_BYTES);
  write_u64_le(event + 80, p->amount);
  event[88] = p->beneficiary;
  event[89] = reason;
  TRY(emit_event(d->in->program_id, &d->in->accounts[9], &d->in->accounts[10], event, sizeof(event)));
  *destination = d->treasury;
  return SUCCESS;
}

static uint64_t pay(Distribution *d, const Payout *p) {
  const SolAccountInfo *destination;
  TRY(payout_destination(d, p, &destination));
  return schedule(d, destination, p->amount);
}

/* One share's cumulative floor delta between the payout watermark and the settled watermark. */
static uint64_t delta_for_bps(uint64_t settled, uint64_t payout_watermark, uint32_t bps, uint64_t *out) {
  uint64_t before = floor_bps_share(payout_watermark, bps);
  uint64_t after = floor_bps_share(settled, bps);
  if (after < before) return PC_ERR_DISTRIBUTE_POOL_OVERFLOW;
  *out = after - before;
  return SUCCESS;
}

static uint64_t close_token_account(const TokenCtx *t, const SolAccountInfo *account, const SolAccountInfo *destination,
                                    const SolAccountInfo *authority, const SolSignerSeeds *signer) {
  uint8_t data[1] = {TOKEN_IX_CLOSE_ACCOUNT};
  SolAccountMeta metas[3] = {meta_of(account, true, false), meta_of(destination, true, false),
                             meta_of(authority, false, true)};
  SolInstruction ix = {t->token_program->key, metas, 3, data, 1};
  SolAccountInfo infos[3] = {*account, *destination, *authority};
  return sol_invoke_signed_c(&ix, infos, 3, signer, 1);
}

static uint64_t process_distribute(const SolInput *in) {
  Preimage recipients;
  TRY(preimage_load(&recipients, in->data + 1, in->data_len - 1));
  if (in->account_count < 11) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  SolAccountInfo *channel = (SolAccountInfo *)&in->accounts[0];
  const SolAccountInfo *payer = &in->accounts[1];
  const SolAccountInfo *rent_payer = &in->accounts[2];
  const SolAccountInfo *channel_token_account = &in->accounts[3];
  const SolAccountInfo *payer_token_account = &in->accounts[4];
  const SolAccountInfo *payee_token_account = &in->accounts[5];
  const SolAccountInfo *treasury = &in->accounts[6];
  const SolAccountInfo *mint = &in->accounts[7];

  TRY(check_channel(channel, in->program_id));
  uint8_t *ch = channel->data;
  uint8_t status = ch[CH_STATUS];
  if (status > STATUS_DISTRIBUTED) return PC_ERR_INVALID_CHANNEL_STATUS;
  if (status != STATUS_OPEN && status != STATUS_SEALED) return PC_ERR_CHANNEL_NOT_DISTRIBUTABLE;
  if (!key_at(ch + CH_PAYER, payer->key)) return PC_ERR_INVALID_CHANNEL_PAYER;
  if (!key_at(ch + CH_MINT, mint->key)) return PC_ERR_INVALID_CHANNEL_MINT;
  if (!key_at(ch + CH_RENT_PAYER, rent_payer->key)) return PC_ERR_INVALID_CHANNEL_RENT_PAYER;

  TokenCtx t;
  TRY(token_ctx_new(&t, mint, &in->accounts[8]));
  TRY(map_validation(validate_ata_checked(channel_token_account, channel->key, &t), PC_ERR_CHANNEL_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_CHANNEL_TOKEN_ACCOUNT, PC_ERR_INVALID_CHANNEL_TOKEN_EXTENSIONS));
  TRY(map_validation(validate_ata_checked(treasury, &TREASURY_OWNER, &t), PC_ERR_TREASURY_ACCOUNT_MISMATCH,
                     PC_ERR_INVALID_TREASURY_TOKEN_ACCOUNT, PC_ERR_INVALID_TREASURY_TOKEN_EXTENSIONS));

  uint8_t digest[32];
  preimage_hash(&recipients, digest);
  if (!sbf_equal(digest, ch + CH_DISTRIBUTION_HASH, 32)) return PC_ERR_INVALID_DISTRIBUTION_HASH;
  if (in->account_count - 11 != recipients.count) return PC_ERR_RECIPIENT_ACCOUNT_COUNT_MISMATCH;

  uint64_t settled = read_u64_le(ch + CH_SETTLED);
  uint64_t payout_watermark = read_u64_le(ch + CH_PAYOUT_WATERMARK);
  if (payout_watermark > settled) return PC_ERR_DISTRIBUTE_POOL_OVERFLOW;
  if (status == STATUS_OPEN && payout_watermark == settled) return PC_ERR_NOTHING_TO_DISTRIBUTE;
  uint64_t deposit = read_u64_le(ch + CH_DEPOSIT);
  bool sealed = status == STATUS_SEALED;

  Distribution d;
  d.in = in;
  d.t = &t;
  d.channel = channel;
  d.treasury = treasury;
  d.pending_len = 0;
  d.scheduled = 0;

  for (uint32_t i = 0; i < recipients.count; i++) {
    const uint8_t *entry = preimage_entry(&recipients, i);
    Payout p = {&in->accounts[11 + i], entry, 0, BENEFICIARY_RECIPIENT};
    TRY(delta_for_bps(settled, payout_watermark, read_u16_le(entry + PUBKEY_BYTES), &p.amount));
    TRY(pay(&d, &p));
  }
  Payout payee_share = {payee_token_account, ch + CH_PAYEE, 0, BENEFICIARY_PAYEE};
  TRY(delta_for_bps(settled, payout_watermark, recipients.payee_bps, &payee_share.amount));
  TRY(pay(&d, &payee_share));

  if (sealed) {
    if (read_i64_le(ch + CH_PAYER_WITHDRAWN_AT) == 0 && deposit > settled) {
      Payout refund = {payer_token_account, ch + CH_PAYER, deposit - settled, BENEFICIARY_PAYER};
      TRY(pay(&d, &refund));
    }
    /* Floor-rounding dust (and anything else left in escrow) goes to the treasury. */
    uint64_t escrow = token_account_amount(channel_token_account);
    if (escrow < d.scheduled) return PC_ERR_DISTRIBUTE_BALANCE_CALCULATION_OVERFLOW;
    TRY(schedule(&d, treasury, escrow - d.scheduled));
  }

  ChannelSeeds seeds;
  channel_seeds_from_state(&seeds, ch);
  SolSignerSeeds signer = {seeds.seeds, 8};
  for (uint64_t i = 0; i < d.pending_len; i++) {
    TokenTransfer payout_route = route(&t, channel_token_account, d.pending[i].to, channel, &signer);
    TRY(token_transfer_checked(&payout_route, d.pending[i].amount));
  }

  if (!sealed) {
    write_u64_le(ch + CH_PAYOUT_WATERMARK, settled);
    return SUCCESS;
  }
  TRY(close_token_account(&t, channel_token_account, rent_payer, channel, &signer));
  uint64_t open_slot = read_u64_le(ch + CH_OPEN_SLOT);
  if (open_slot + OPEN_SLOT_WINDOW < open_slot) return ERROR_ARITHMETIC_OVERFLOW;
  SolClock clock;
  sol_get_clock_sysvar(&clock);
  if (clock.slot > open_slot + OPEN_SLOT_WINDOW) return deallocate_channel(channel, rent_payer);
  /* Inside the window the address stays occupied (DISTRIBUTED) until Reclaim: no later channel can
   * reuse it, so no old voucher can ever match a new incarnation. */
  ch[CH_STATUS] = STATUS_DISTRIBUTED;
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Entrypoint                                                                                       */

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  /* More accounts than sbf.h reads: only a Distribute with more than 13 recipients (stand-in limit). */
  if (!sbf_deserialize(input, &in)) return ERROR_INVALID_ARGUMENT;
  if (in.data_len == 0) return ERROR_INVALID_INSTRUCTION_DATA;
  switch (in.data[0]) {
    case IX_OPEN:
      return process_open(&in);
    case IX_SETTLE:
      return process_settle(&in);
    case IX_TOP_UP:
      return process_top_up(&in);
    case IX_SETTLE_AND_SEAL:
      return process_settle_and_seal(&in);
    case IX_REQUEST_CLOSE:
      return process_request_close(&in);
    case IX_SEAL:
      return process_seal(&in);
    case IX_DISTRIBUTE:
      return process_distribute(&in);
    case IX_WITHDRAW_PAYER:
      return process_withdraw_payer(&in);
    case IX_RECLAIM:
      return process_reclaim(&in);
    case IX_EMIT_EVENT:
      return process_emit_event(&in);
    default:
      return ERROR_INVALID_INSTRUCTION_DATA;
  }
}
