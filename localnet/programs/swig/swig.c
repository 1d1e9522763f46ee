/*
 * swig.c - a STAND-IN for the Swig smart-wallet program (v2 accounts), loaded by the local chain at Swig's
 * program id swigypWHEksbC64pWKwah1WTeh9JXwx8H1rJHLdbQMB. DEVELOPMENT AND TEST FIXTURE ONLY, never deployed.
 *
 * It accepts what the official `@swig-wallet/kit` SDK builds to create a wallet with one Ed25519 role and to
 * move funds out of it: the wallet's funds sit in the System-owned "swig wallet address" PDA, and SignV2 runs
 * the role's inner instructions by CPI signed by that PDA. Formats (from the SDK's coder, @swig-wallet/coder):
 *
 *   CreateV1 (u16 0): u16 authority_type ‖ u16 authority_len ‖ u8 bump ‖ u8 wallet_bump ‖ id[32]
 *                     ‖ authority data ‖ actions (headers u16 permission, u16 length, u32 boundary + payload)
 *       accounts: swig (w) = PDA("swig", id), payer (s,w), swig wallet address (w)
 *                 = PDA("swig-wallet-address", swig), System program
 *   SignV2 (u16 11): u16 payload_len ‖ u32 role_id ‖ compact instructions (payload_len bytes: u8 count, each
 *                    u8 program index ‖ u8 n ‖ n u8 account indexes ‖ u16 data length ‖ data) ‖ authority payload
 *                    (Ed25519: u8 index of the signing authority among the instruction's accounts)
 *       accounts: swig (w), swig wallet address (w), authority (s), then every account the inner instructions use
 *
 * Swig account (header 48 bytes): u8 discriminator 1 ‖ u8 bump ‖ id[32] ‖ u16 roles ‖ u32 role_counter
 *   ‖ u64 wallet bump (v2; a v1 account holds its reserved lamports there) ‖ roles: per role a 16-byte position
 *   (u16 authority_type, u16 authority_len, u16 num_actions, u16 0, u32 id, u32 boundary = end of the role,
 *   from the start of the roles) ‖ authority data ‖ actions.
 *
 * What it leaves out (localnet/programs/README.md): authorities other than Ed25519, every permission but All (7) and
 * AllButManageAuthority (15), spending limits, sessions, sub-accounts, the other instructions, and the real program's
 * error codes (its errors are its own, 9000+).
 */
#include "../include/sbf.h"

#define IX_CREATE_V1 0
#define IX_SIGN_V2 11

#define SWIG_DISCRIMINATOR 1
#define SWIG_HEADER_LEN 48
#define POSITION_LEN 16
#define ACTION_HEADER_LEN 8
#define AUTHORITY_ED25519 1
#define PERMISSION_ALL 7
#define PERMISSION_ALL_BUT_MANAGE_AUTHORITY 15
#define CREATE_FIXED_LEN 40
#define SIGN_FIXED_LEN 8

#define ERROR_INVALID_INSTRUCTION 9000ULL
#define ERROR_NOT_ENOUGH_ACCOUNTS 9001ULL
#define ERROR_INVALID_SWIG_ADDRESS 9002ULL
#define ERROR_SWIG_ALREADY_EXISTS 9003ULL
#define ERROR_INVALID_WALLET_ADDRESS 9004ULL
#define ERROR_UNSUPPORTED_AUTHORITY 9005ULL
#define ERROR_INVALID_ACTIONS 9006ULL
#define ERROR_INVALID_SWIG_ACCOUNT 9007ULL
#define ERROR_ROLE_NOT_FOUND 9008ULL
#define ERROR_AUTHORITY_NOT_SIGNER 9009ULL
#define ERROR_PERMISSION_DENIED 9010ULL
#define ERROR_INVALID_INNER_INSTRUCTION 9011ULL
#define ERROR_MISSING_SIGNATURE 9012ULL

static const char SEED_SWIG[] = "swig";
static const char SEED_WALLET_ADDRESS[] = "swig-wallet-address";
#define SEED_LEN(s) (sizeof(s) - 1)

static inline uint32_t read_u32_le(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Counts the actions of a role, each header's boundary being the end of its action (from the actions' start). */
static bool count_actions(const uint8_t *actions, uint64_t len, uint16_t *count) {
  uint64_t cursor = 0;
  uint16_t n = 0;
  while (cursor < len) {
    if (cursor + ACTION_HEADER_LEN > len) return false;
    uint16_t length = read_u16_le(actions + cursor + 2);
    uint32_t boundary = read_u32_le(actions + cursor + 4);
    if ((uint64_t)boundary != cursor + ACTION_HEADER_LEN + length || boundary > len) return false;
    cursor = boundary;
    n++;
  }
  *count = n;
  return n > 0;
}

static uint64_t create_v1(SolInput *in) {
  if (in->account_count < 4) return ERROR_NOT_ENOUGH_ACCOUNTS;
  if (in->data_len < CREATE_FIXED_LEN) return ERROR_INVALID_INSTRUCTION;
  SolAccountInfo *swig = &in->accounts[0];
  SolAccountInfo *payer = &in->accounts[1];
  SolAccountInfo *wallet = &in->accounts[2];
  if (!payer->is_signer) return ERROR_MISSING_SIGNATURE;
  if (!pubkey_eq(in->accounts[3].key, &SYSTEM_PROGRAM_ID)) return ERROR_INVALID_INSTRUCTION;
  uint16_t authority_type = read_u16_le(in->data + 2);
  uint16_t authority_len = read_u16_le(in->data + 4);
  const uint8_t *id = in->data + 8;
  if (authority_type != AUTHORITY_ED25519 || authority_len != PUBKEY_BYTES) return ERROR_UNSUPPORTED_AUTHORITY;
  if (in->data_len < CREATE_FIXED_LEN + authority_len) return ERROR_INVALID_INSTRUCTION;
  const uint8_t *authority = in->data + CREATE_FIXED_LEN;
  const uint8_t *actions = authority + authority_len;
  uint64_t actions_len = in->data_len - CREATE_FIXED_LEN - authority_len;
  uint16_t num_actions = 0;
  if (!count_actions(actions, actions_len, &num_actions)) return ERROR_INVALID_ACTIONS;

  PdaSeeds swig_seeds = {0};
  seeds_push(&swig_seeds, SEED_SWIG, SEED_LEN(SEED_SWIG));
  seeds_push(&swig_seeds, id, 32);
  if (!pda_find_and_match(&swig_seeds, in->program_id, swig->key) || swig_seeds.bump != in->data[6])
    return ERROR_INVALID_SWIG_ADDRESS;
  if (!pubkey_eq(swig->owner, &SYSTEM_PROGRAM_ID) || swig->data_len != 0) return ERROR_SWIG_ALREADY_EXISTS;
  PdaSeeds wallet_seeds = {0};
  seeds_push(&wallet_seeds, SEED_WALLET_ADDRESS, SEED_LEN(SEED_WALLET_ADDRESS));
  seeds_push(&wallet_seeds, swig->key, PUBKEY_BYTES);
  if (!pda_find_and_match(&wallet_seeds, in->program_id, wallet->key) || wallet_seeds.bump != in->data[7])
    return ERROR_INVALID_WALLET_ADDRESS;

  uint64_t role_len = POSITION_LEN + authority_len + actions_len;
  uint64_t space = SWIG_HEADER_LEN + role_len;
  SolSignerSeeds swig_signer = pda_signer(&swig_seeds);
  TRY(create_pda_account(payer, swig, space, in->program_id, &swig_signer));
  account_refresh_data_len(swig);
  SolSignerSeeds wallet_signer = pda_signer(&wallet_seeds);
  TRY(create_pda_account(payer, wallet, 0, &SYSTEM_PROGRAM_ID, &wallet_signer));

  uint8_t *d = swig->data;
  sbf_zero(d, space);
  d[0] = SWIG_DISCRIMINATOR;
  d[1] = swig_seeds.bump;
  sbf_copy(d + 2, id, 32);
  d[34] = 1; /* roles */
  write_u32_le(d + 36, 1); /* role_counter: the next role id */
  write_u64_le(d + 40, wallet_seeds.bump);
  uint8_t *role = d + SWIG_HEADER_LEN;
  role[0] = (uint8_t)authority_type;
  role[2] = (uint8_t)authority_len;
  role[4] = (uint8_t)num_actions;
  role[5] = (uint8_t)(num_actions >> 8);
  write_u32_le(role + 8, 0); /* the first role's id */
  write_u32_le(role + 12, (uint32_t)role_len);
  sbf_copy(role + POSITION_LEN, authority, authority_len);
  sbf_copy(role + POSITION_LEN + authority_len, actions, actions_len);
  return SUCCESS;
}

/* The role `role_id` of a Swig account: its authority bytes and actions. */
typedef struct {
  uint16_t authority_type;
  const uint8_t *authority;
  uint16_t authority_len;
  const uint8_t *actions;
  uint64_t actions_len;
} Role;

static bool find_role(const SolAccountInfo *swig, uint32_t role_id, Role *out) {
  uint16_t roles = read_u16_le(swig->data + 34);
  const uint8_t *buffer = swig->data + SWIG_HEADER_LEN;
  uint64_t buffer_len = swig->data_len - SWIG_HEADER_LEN;
  uint64_t cursor = 0;
  for (uint16_t i = 0; i < roles; i++) {
    if (cursor + POSITION_LEN > buffer_len) return false;
    const uint8_t *position = buffer + cursor;
    uint16_t authority_len = read_u16_le(position + 2);
    uint32_t id = read_u32_le(position + 8);
    uint32_t boundary = read_u32_le(position + 12);
    if (boundary > buffer_len || boundary < cursor + POSITION_LEN + authority_len) return false;
    if (id == role_id) {
      out->authority_type = read_u16_le(position);
      out->authority = position + POSITION_LEN;
      out->authority_len = authority_len;
      out->actions = out->authority + authority_len;
      out->actions_len = boundary - (cursor + POSITION_LEN + authority_len);
      return true;
    }
    cursor = boundary;
  }
  return false;
}

static bool may_sign_anything(const Role *role) {
  uint64_t cursor = 0;
  while (cursor + ACTION_HEADER_LEN <= role->actions_len) {
    uint16_t permission = read_u16_le(role->actions + cursor);
    if (permission == PERMISSION_ALL || permission == PERMISSION_ALL_BUT_MANAGE_AUTHORITY) return true;
    cursor = read_u32_le(role->actions + cursor + 4);
  }
  return false;
}

static uint64_t sign_v2(SolInput *in) {
  if (in->account_count < 3) return ERROR_NOT_ENOUGH_ACCOUNTS;
  if (in->data_len < SIGN_FIXED_LEN) return ERROR_INVALID_INSTRUCTION;
  uint16_t payload_len = read_u16_le(in->data + 2);
  uint32_t role_id = read_u32_le(in->data + 4);
  if (in->data_len < SIGN_FIXED_LEN + (uint64_t)payload_len + 1) return ERROR_INVALID_INSTRUCTION;
  const uint8_t *payload = in->data + SIGN_FIXED_LEN;
  const uint8_t *authority_payload = payload + payload_len;

  SolAccountInfo *swig = &in->accounts[0];
  SolAccountInfo *wallet = &in->accounts[1];
  if (!pubkey_eq(swig->owner, in->program_id) || swig->data_len < SWIG_HEADER_LEN ||
      swig->data[0] != SWIG_DISCRIMINATOR)
    return ERROR_INVALID_SWIG_ACCOUNT;
  uint64_t wallet_bump = read_u64_le(swig->data + 40);
  if (wallet_bump > 255) return ERROR_INVALID_SWIG_ACCOUNT; /* a v1 account: not supported here */
  PdaSeeds wallet_seeds = {0};
  seeds_push(&wallet_seeds, SEED_WALLET_ADDRESS, SEED_LEN(SEED_WALLET_ADDRESS));
  seeds_push(&wallet_seeds, swig->key, PUBKEY_BYTES);
  if (!pda_match_with_bump(&wallet_seeds, (uint8_t)wallet_bump, in->program_id, wallet->key))
    return ERROR_INVALID_WALLET_ADDRESS;

  Role role;
  if (!find_role(swig, role_id, &role)) return ERROR_ROLE_NOT_FOUND;
  if (role.authority_type != AUTHORITY_ED25519 || role.authority_len != PUBKEY_BYTES) return ERROR_UNSUPPORTED_AUTHORITY;
  uint8_t authority_index = authority_payload[0];
  if (authority_index >= in->account_count) return ERROR_AUTHORITY_NOT_SIGNER;
  const SolAccountInfo *authority = &in->accounts[authority_index];
  if (!authority->is_signer || !sbf_equal(authority->key, role.authority, PUBKEY_BYTES))
    return ERROR_AUTHORITY_NOT_SIGNER;
  if (!may_sign_anything(&role)) return ERROR_PERMISSION_DENIED;

  SolSignerSeeds signer = pda_signer(&wallet_seeds);
  uint64_t cursor = 1;
  uint8_t count = payload_len > 0 ? payload[0] : 0;
  for (uint8_t i = 0; i < count; i++) {
    if (cursor + 2 > payload_len) return ERROR_INVALID_INNER_INSTRUCTION;
    uint8_t program_index = payload[cursor];
    uint8_t account_count = payload[cursor + 1];
    cursor += 2;
    if (cursor + account_count + 2 > payload_len || account_count > MAX_ACCOUNTS) return ERROR_INVALID_INNER_INSTRUCTION;
    const uint8_t *indexes = payload + cursor;
    cursor += account_count;
    uint16_t data_len = read_u16_le(payload + cursor);
    cursor += 2;
    if (cursor + data_len > payload_len || program_index >= in->account_count) return ERROR_INVALID_INNER_INSTRUCTION;
    SolAccountMeta metas[MAX_ACCOUNTS];
    for (uint8_t a = 0; a < account_count; a++) {
      if (indexes[a] >= in->account_count) return ERROR_INVALID_INNER_INSTRUCTION;
      SolAccountInfo *account = &in->accounts[indexes[a]];
      bool is_wallet = pubkey_eq(account->key, wallet->key);
      metas[a] = meta_of(account, account->is_writable, account->is_signer || is_wallet);
    }
    SolInstruction ix = {in->accounts[program_index].key, metas, account_count, (uint8_t *)payload + cursor, data_len};
    TRY(sol_invoke_signed_c(&ix, in->accounts, (int)in->account_count, &signer, 1));
    cursor += data_len;
  }
  return SUCCESS;
}

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  if (!sbf_deserialize(input, &in)) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in.data_len < 2) return ERROR_INVALID_INSTRUCTION;
  switch (read_u16_le(in.data)) {
    case IX_CREATE_V1: return create_v1(&in);
    case IX_SIGN_V2: return sign_v2(&in);
    default: return ERROR_INVALID_INSTRUCTION;
  }
}
