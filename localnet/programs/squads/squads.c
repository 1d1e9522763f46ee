/*
 * squads.c - a STAND-IN for the Squads Multisig v4 program, loaded by the local chain at its program id
 * SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf. DEVELOPMENT AND TEST FIXTURE ONLY, never deployed.
 *
 * It runs what the official `@sqds/multisig` SDK builds to move funds out of a multisig's vault: a vault transaction
 * is created, proposed and approved by the members, then executed: its instructions run by CPI signed by the vault
 * PDA. Layouts, PDAs and checks follow the program's public source (Squads-Protocol/v4,
 * programs/squads_multisig_program/src: instructions/vault_transaction_create.rs, proposal_create.rs,
 * proposal_vote.rs, vault_transaction_execute.rs, state/); accounts are Anchor accounts (8-byte discriminator,
 * Borsh). PDAs: multisig ("multisig", "multisig", create_key), vault ("multisig", multisig, "vault", u8 index),
 * transaction ("multisig", multisig, "transaction", u64 index), proposal (… "transaction", u64 index, "proposal"),
 * ephemeral signer ("multisig", transaction, "ephemeral_signer", u8 index).
 *
 * Implemented: VaultTransactionCreate, ProposalCreate, ProposalApprove, VaultTransactionExecute. Left out
 * (localnet/programs/README.md): every other instruction (the multisig account is placed by the local chain or the
 * tests with the SDK's own serializer), address lookup tables inside a vault transaction, rejections and
 * cancellations, and the real program's error codes (its errors are its own, 9100+).
 */
#define MAX_SEEDS 6 /* the proposal PDA: five seeds and the bump */
#include "../include/sbf.h"

#define ANCHOR_DISC_LEN 8
static const uint8_t IX_VAULT_TRANSACTION_CREATE[8] = {0x30, 0xfa, 0x4e, 0xa8, 0xd0, 0xe2, 0xda, 0xd3};
static const uint8_t IX_PROPOSAL_CREATE[8] = {0xdc, 0x3c, 0x49, 0xe0, 0x1e, 0x6c, 0x4f, 0x9f};
static const uint8_t IX_PROPOSAL_APPROVE[8] = {0x90, 0x25, 0xa4, 0x88, 0xbc, 0xd8, 0x2a, 0xf8};
static const uint8_t IX_VAULT_TRANSACTION_EXECUTE[8] = {0xc2, 0x08, 0xa1, 0x57, 0x99, 0xa4, 0x19, 0xab};
static const uint8_t DISC_MULTISIG[8] = {0xe0, 0x74, 0x79, 0xba, 0x44, 0xa1, 0x4f, 0xec};
static const uint8_t DISC_VAULT_TRANSACTION[8] = {0xa8, 0xfa, 0xa2, 0x64, 0x51, 0x0e, 0xa2, 0xcf};
static const uint8_t DISC_PROPOSAL[8] = {0x1a, 0x5e, 0xbd, 0xbb, 0x74, 0x88, 0x35, 0x21};

#define PERMISSION_INITIATE 1
#define PERMISSION_VOTE 2
#define PERMISSION_EXECUTE 4
#define STATUS_DRAFT 0
#define STATUS_ACTIVE 1
#define STATUS_APPROVED 3
#define STATUS_EXECUTED 5
#define MAX_EPHEMERAL_SIGNERS 4
#define MEMBER_LEN 33

#define ERROR_INVALID_INSTRUCTION 9100ULL
#define ERROR_NOT_ENOUGH_ACCOUNTS 9101ULL
#define ERROR_INVALID_MULTISIG 9102ULL
#define ERROR_NOT_A_MEMBER 9103ULL
#define ERROR_UNAUTHORIZED 9104ULL
#define ERROR_MISSING_SIGNATURE 9105ULL
#define ERROR_INVALID_TRANSACTION_ADDRESS 9106ULL
#define ERROR_INVALID_TRANSACTION_MESSAGE 9107ULL
#define ERROR_INVALID_TRANSACTION_INDEX 9108ULL
#define ERROR_STALE_PROPOSAL 9109ULL
#define ERROR_INVALID_PROPOSAL 9110ULL
#define ERROR_INVALID_PROPOSAL_STATUS 9111ULL
#define ERROR_ALREADY_APPROVED 9112ULL
#define ERROR_TIME_LOCK_NOT_RELEASED 9113ULL
#define ERROR_INVALID_TRANSACTION 9114ULL
#define ERROR_INVALID_NUMBER_OF_ACCOUNTS 9115ULL
#define ERROR_INVALID_ACCOUNT 9116ULL
#define ERROR_PROTECTED_ACCOUNT 9117ULL
#define ERROR_UNSUPPORTED 9118ULL
#define ERROR_ACCOUNT_IN_USE 9119ULL

static const char SEED_PREFIX[] = "multisig";
static const char SEED_MULTISIG[] = "multisig";
static const char SEED_VAULT[] = "vault";
static const char SEED_TRANSACTION[] = "transaction";
static const char SEED_PROPOSAL[] = "proposal";
static const char SEED_EPHEMERAL_SIGNER[] = "ephemeral_signer";
#define SEED_LEN(s) (sizeof(s) - 1)

static inline uint32_t read_u32_le(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ------------------------------------------------------------------------------------------------ */
/* Multisig: disc ‖ create_key @8 ‖ config_authority @40 ‖ threshold u16 @72 ‖ time_lock u32 @74 ‖
 * transaction_index u64 @78 ‖ stale_transaction_index u64 @86 ‖ rent_collector Option<Pubkey> @94 ‖ bump ‖
 * members Vec<{key, permissions u8}> (sorted by key). */

#define MULTISIG_TRANSACTION_INDEX 78
#define MULTISIG_STALE_INDEX 86
#define MULTISIG_RENT_COLLECTOR 94

typedef struct {
  uint16_t threshold;
  uint32_t time_lock;
  uint64_t transaction_index;
  uint64_t stale_transaction_index;
  uint32_t member_count;
  const uint8_t *members;
} Multisig;

static uint64_t load_multisig(const SolAccountInfo *account, const SolPubkey *program_id, Multisig *out) {
  if (!pubkey_eq(account->owner, program_id) || account->data_len < MULTISIG_RENT_COLLECTOR + 1 + 1 + 4 ||
      !sbf_equal(account->data, DISC_MULTISIG, ANCHOR_DISC_LEN))
    return ERROR_INVALID_MULTISIG;
  const uint8_t *d = account->data;
  uint64_t cursor = MULTISIG_RENT_COLLECTOR + 1 + (d[MULTISIG_RENT_COLLECTOR] == 1 ? PUBKEY_BYTES : 0);
  if (cursor + 1 + 4 > account->data_len) return ERROR_INVALID_MULTISIG;
  uint8_t bump = d[cursor];
  out->member_count = read_u32_le(d + cursor + 1);
  out->members = d + cursor + 5;
  if (cursor + 5 + (uint64_t)out->member_count * MEMBER_LEN > account->data_len) return ERROR_INVALID_MULTISIG;
  PdaSeeds seeds = {0};
  seeds_push(&seeds, SEED_PREFIX, SEED_LEN(SEED_PREFIX));
  seeds_push(&seeds, SEED_MULTISIG, SEED_LEN(SEED_MULTISIG));
  seeds_push(&seeds, d + 8, PUBKEY_BYTES);
  if (!pda_match_with_bump(&seeds, bump, program_id, account->key)) return ERROR_INVALID_MULTISIG;
  out->threshold = read_u16_le(d + 72);
  out->time_lock = read_u32_le(d + 74);
  out->transaction_index = read_u64_le(d + MULTISIG_TRANSACTION_INDEX);
  out->stale_transaction_index = read_u64_le(d + MULTISIG_STALE_INDEX);
  return SUCCESS;
}

/* The signer `member`'s permission mask, or an error when it is no member or did not sign. */
static uint64_t member_permissions(const Multisig *multisig, const SolAccountInfo *member, uint8_t *mask) {
  if (!member->is_signer) return ERROR_MISSING_SIGNATURE;
  for (uint32_t i = 0; i < multisig->member_count; i++) {
    const uint8_t *entry = multisig->members + (uint64_t)i * MEMBER_LEN;
    if (sbf_equal(entry, member->key, PUBKEY_BYTES)) {
      *mask = entry[PUBKEY_BYTES];
      return SUCCESS;
    }
  }
  return ERROR_NOT_A_MEMBER;
}

/* ------------------------------------------------------------------------------------------------ */
/* Vault transaction message. The instruction carries it in "small vec" form (u8 lengths, u16 data
 * length); the account stores it in Borsh form (u32 lengths). Address lookup tables are not supported. */

typedef struct {
  uint8_t num_signers;
  uint8_t num_writable_signers;
  uint8_t num_writable_non_signers;
  uint32_t key_count;
  const uint8_t *keys;
  uint32_t instruction_count;
  const uint8_t *instructions; /* first instruction, in the message's own encoding */
  bool borsh;                  /* true: u32 lengths; false: small vec */
} Message;

static bool message_is_writable(const Message *m, uint32_t index) {
  if (index < m->num_signers) return index < m->num_writable_signers;
  return index - m->num_signers < m->num_writable_non_signers;
}

/* One compiled instruction of a message: program index, account indexes, data. */
typedef struct {
  uint8_t program_index;
  uint32_t account_count;
  const uint8_t *accounts;
  uint32_t data_len;
  const uint8_t *data;
} CompiledInstruction;

/* Reads the instruction at *cursor (bounded by end), advancing the cursor. */
static bool next_instruction(const Message *m, const uint8_t **cursor, const uint8_t *end, CompiledInstruction *out) {
  const uint8_t *p = *cursor;
  uint32_t prefix = m->borsh ? 4 : 1;
  if (p + 1 + prefix > end) return false;
  out->program_index = p[0];
  out->account_count = m->borsh ? read_u32_le(p + 1) : p[1];
  p += 1 + prefix;
  if (p + out->account_count > end) return false;
  out->accounts = p;
  p += out->account_count;
  uint32_t data_prefix = m->borsh ? 4 : 2;
  if (p + data_prefix > end) return false;
  out->data_len = m->borsh ? read_u32_le(p) : read_u16_le(p);
  p += data_prefix;
  if (p + out->data_len > end) return false;
  out->data = p;
  *cursor = p + out->data_len;
  return true;
}

/* Parses and validates a message; *end_out is where it ends (the lookup tables' count must follow, and be 0). */
static bool parse_message(const uint8_t *data, uint64_t len, bool borsh, Message *m, uint64_t *consumed) {
  const uint8_t *end = data + len;
  uint32_t prefix = borsh ? 4 : 1;
  if (len < 3 + prefix) return false;
  m->borsh = borsh;
  m->num_signers = data[0];
  m->num_writable_signers = data[1];
  m->num_writable_non_signers = data[2];
  const uint8_t *p = data + 3;
  m->key_count = borsh ? read_u32_le(p) : p[0];
  p += prefix;
  if (p + (uint64_t)m->key_count * PUBKEY_BYTES + prefix > end) return false;
  m->keys = p;
  p += (uint64_t)m->key_count * PUBKEY_BYTES;
  m->instruction_count = borsh ? read_u32_le(p) : p[0];
  p += prefix;
  m->instructions = p;
  if (m->num_signers == 0 || m->num_signers > m->key_count || m->num_writable_signers > m->num_signers ||
      m->num_writable_non_signers > m->key_count - m->num_signers)
    return false;
  for (uint32_t i = 0; i < m->instruction_count; i++) {
    CompiledInstruction ix;
    if (!next_instruction(m, &p, end, &ix) || ix.program_index >= m->key_count) return false;
    for (uint32_t a = 0; a < ix.account_count; a++)
      if (ix.accounts[a] >= m->key_count) return false;
  }
  if (p + prefix > end) return false;
  uint32_t lookups = borsh ? read_u32_le(p) : p[0];
  if (lookups != 0) return false;
  *consumed = (uint64_t)(p + prefix - data);
  return true;
}

/* The Borsh size of a message (as the account stores it). */
static uint64_t borsh_message_size(const Message *m) {
  uint64_t size = 3 + 4 + (uint64_t)m->key_count * PUBKEY_BYTES + 4 + 4;
  const uint8_t *p = m->instructions;
  for (uint32_t i = 0; i < m->instruction_count; i++) {
    CompiledInstruction ix;
    next_instruction(m, &p, p + 0x100000, &ix); /* already validated */
    size += 1 + 4 + ix.account_count + 4 + ix.data_len;
  }
  return size;
}

static uint8_t *write_borsh_message(uint8_t *out, const Message *m) {
  out[0] = m->num_signers;
  out[1] = m->num_writable_signers;
  out[2] = m->num_writable_non_signers;
  write_u32_le(out + 3, m->key_count);
  out += 7;
  sbf_copy(out, m->keys, (uint64_t)m->key_count * PUBKEY_BYTES);
  out += (uint64_t)m->key_count * PUBKEY_BYTES;
  write_u32_le(out, m->instruction_count);
  out += 4;
  const uint8_t *p = m->instructions;
  for (uint32_t i = 0; i < m->instruction_count; i++) {
    CompiledInstruction ix;
    next_instruction(m, &p, p + 0x100000, &ix);
    out[0] = ix.program_index;
    write_u32_le(out + 1, ix.account_count);
    sbf_copy(out + 5, ix.accounts, ix.account_count);
    out += 5 + ix.account_count;
    write_u32_le(out, ix.data_len);
    sbf_copy(out + 4, ix.data, ix.data_len);
    out += 4 + ix.data_len;
  }
  write_u32_le(out, 0); /* address table lookups */
  return out + 4;
}

/* ------------------------------------------------------------------------------------------------ */
/* PDAs */

static void transaction_seeds(PdaSeeds *s, const SolPubkey *multisig, const uint8_t index_le[8]) {
  seeds_push(s, SEED_PREFIX, SEED_LEN(SEED_PREFIX));
  seeds_push(s, multisig, PUBKEY_BYTES);
  seeds_push(s, SEED_TRANSACTION, SEED_LEN(SEED_TRANSACTION));
  seeds_push(s, index_le, 8);
}

/* ------------------------------------------------------------------------------------------------ */
/* VaultTransactionCreate: multisig (w), transaction (w), creator (s), rent_payer (s,w), System.
 * Args: u8 vault_index ‖ u8 ephemeral_signers ‖ Vec<u8> transaction_message ‖ Option<String> memo. */

#define VAULT_TRANSACTION_FIXED 83 /* disc 8, multisig 32, creator 32, index 8, bump, vault_index, vault_bump */

static uint64_t vault_transaction_create(SolInput *in) {
  if (in->account_count < 5) return ERROR_NOT_ENOUGH_ACCOUNTS;
  const uint8_t *args = in->data + ANCHOR_DISC_LEN;
  uint64_t args_len = in->data_len - ANCHOR_DISC_LEN;
  if (args_len < 2 + 4) return ERROR_INVALID_INSTRUCTION;
  uint8_t vault_index = args[0];
  uint8_t ephemeral_signers = args[1];
  uint32_t message_len = read_u32_le(args + 2);
  if (6 + (uint64_t)message_len > args_len || ephemeral_signers > MAX_EPHEMERAL_SIGNERS) return ERROR_INVALID_INSTRUCTION;
  SolAccountInfo *multisig_account = &in->accounts[0];
  SolAccountInfo *transaction = &in->accounts[1];
  SolAccountInfo *creator = &in->accounts[2];
  SolAccountInfo *rent_payer = &in->accounts[3];
  if (!rent_payer->is_signer) return ERROR_MISSING_SIGNATURE;
  if (!multisig_account->is_writable) return ERROR_INVALID_ACCOUNT;
  Multisig multisig;
  TRY(load_multisig(multisig_account, in->program_id, &multisig));
  uint8_t mask = 0;
  TRY(member_permissions(&multisig, creator, &mask));
  if (!(mask & PERMISSION_INITIATE)) return ERROR_UNAUTHORIZED;

  Message message;
  uint64_t consumed = 0;
  if (!parse_message(args + 6, message_len, false, &message, &consumed) || consumed != message_len)
    return ERROR_INVALID_TRANSACTION_MESSAGE;

  uint64_t index = multisig.transaction_index + 1;
  uint8_t index_le[8];
  write_u64_le(index_le, index);
  PdaSeeds seeds = {0};
  transaction_seeds(&seeds, multisig_account->key, index_le);
  if (!pda_find_and_match(&seeds, in->program_id, transaction->key)) return ERROR_INVALID_TRANSACTION_ADDRESS;
  if (!pubkey_eq(transaction->owner, &SYSTEM_PROGRAM_ID) || transaction->data_len != 0) return ERROR_ACCOUNT_IN_USE;

  PdaSeeds vault = {0};
  seeds_push(&vault, SEED_PREFIX, SEED_LEN(SEED_PREFIX));
  seeds_push(&vault, multisig_account->key, PUBKEY_BYTES);
  seeds_push(&vault, SEED_VAULT, SEED_LEN(SEED_VAULT));
  seeds_push(&vault, &vault_index, 1);
  SolPubkey vault_address;
  uint8_t vault_bump = 0;
  if (sol_try_find_program_address(vault.seeds, vault.count, in->program_id, &vault_address, &vault_bump) != 0)
    return ERROR_INVALID_TRANSACTION_ADDRESS;
  uint8_t ephemeral_bumps[MAX_EPHEMERAL_SIGNERS];
  for (uint8_t i = 0; i < ephemeral_signers; i++) {
    PdaSeeds e = {0};
    seeds_push(&e, SEED_PREFIX, SEED_LEN(SEED_PREFIX));
    seeds_push(&e, transaction->key, PUBKEY_BYTES);
    seeds_push(&e, SEED_EPHEMERAL_SIGNER, SEED_LEN(SEED_EPHEMERAL_SIGNER));
    seeds_push(&e, &i, 1);
    SolPubkey ignored;
    if (sol_try_find_program_address(e.seeds, e.count, in->program_id, &ignored, &ephemeral_bumps[i]) != 0)
      return ERROR_INVALID_TRANSACTION_ADDRESS;
  }

  uint64_t space = VAULT_TRANSACTION_FIXED + 4 + ephemeral_signers + borsh_message_size(&message);
  SolSignerSeeds signer = pda_signer(&seeds);
  TRY(create_pda_account(rent_payer, transaction, space, in->program_id, &signer));
  account_refresh_data_len(transaction);
  uint8_t *d = transaction->data;
  sbf_copy(d, DISC_VAULT_TRANSACTION, ANCHOR_DISC_LEN);
  sbf_copy(d + 8, multisig_account->key, PUBKEY_BYTES);
  sbf_copy(d + 40, creator->key, PUBKEY_BYTES);
  write_u64_le(d + 72, index);
  d[80] = seeds.bump;
  d[81] = vault_index;
  d[82] = vault_bump;
  write_u32_le(d + 83, ephemeral_signers);
  sbf_copy(d + 87, ephemeral_bumps, ephemeral_signers);
  write_borsh_message(d + 87 + ephemeral_signers, &message);

  write_u64_le(multisig_account->data + MULTISIG_TRANSACTION_INDEX, index);
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* Proposal: disc ‖ multisig @8 ‖ transaction_index u64 @40 ‖ status (u8 tag ‖ i64 timestamp) @48 ‖ bump @57 ‖
 * approved Vec<Pubkey> @58 ‖ rejected Vec ‖ cancelled Vec; allocated for every member in each vector. */

#define PROPOSAL_STATUS 48
#define PROPOSAL_BUMP 57
#define PROPOSAL_APPROVED 58

static void proposal_seeds(PdaSeeds *s, const SolPubkey *multisig, const uint8_t index_le[8]) {
  transaction_seeds(s, multisig, index_le);
  seeds_push(s, SEED_PROPOSAL, SEED_LEN(SEED_PROPOSAL));
}

/* ProposalCreate: multisig, proposal (w), creator (s), rent_payer (s,w), System. Args: u64 index ‖ bool draft. */
static uint64_t proposal_create(SolInput *in) {
  if (in->account_count < 5) return ERROR_NOT_ENOUGH_ACCOUNTS;
  if (in->data_len < ANCHOR_DISC_LEN + 9) return ERROR_INVALID_INSTRUCTION;
  uint64_t index = read_u64_le(in->data + 8);
  bool draft = in->data[16] != 0;
  SolAccountInfo *multisig_account = &in->accounts[0];
  SolAccountInfo *proposal = &in->accounts[1];
  SolAccountInfo *creator = &in->accounts[2];
  SolAccountInfo *rent_payer = &in->accounts[3];
  if (!rent_payer->is_signer) return ERROR_MISSING_SIGNATURE;
  Multisig multisig;
  TRY(load_multisig(multisig_account, in->program_id, &multisig));
  uint8_t mask = 0;
  TRY(member_permissions(&multisig, creator, &mask));
  if (!(mask & (PERMISSION_INITIATE | PERMISSION_VOTE))) return ERROR_UNAUTHORIZED;
  if (index > multisig.transaction_index || index == 0) return ERROR_INVALID_TRANSACTION_INDEX;
  if (index <= multisig.stale_transaction_index) return ERROR_STALE_PROPOSAL;
  uint8_t index_le[8];
  write_u64_le(index_le, index);
  PdaSeeds seeds = {0};
  proposal_seeds(&seeds, multisig_account->key, index_le);
  if (!pda_find_and_match(&seeds, in->program_id, proposal->key)) return ERROR_INVALID_PROPOSAL;
  if (!pubkey_eq(proposal->owner, &SYSTEM_PROGRAM_ID) || proposal->data_len != 0) return ERROR_ACCOUNT_IN_USE;
  uint64_t space = PROPOSAL_APPROVED + 3 * (4 + (uint64_t)multisig.member_count * PUBKEY_BYTES);
  SolSignerSeeds signer = pda_signer(&seeds);
  TRY(create_pda_account(rent_payer, proposal, space, in->program_id, &signer));
  account_refresh_data_len(proposal);
  uint8_t *d = proposal->data;
  sbf_zero(d, space);
  sbf_copy(d, DISC_PROPOSAL, ANCHOR_DISC_LEN);
  sbf_copy(d + 8, multisig_account->key, PUBKEY_BYTES);
  write_u64_le(d + 40, index);
  d[PROPOSAL_STATUS] = draft ? STATUS_DRAFT : STATUS_ACTIVE;
  write_u64_le(d + PROPOSAL_STATUS + 1, (uint64_t)clock_now());
  d[PROPOSAL_BUMP] = seeds.bump;
  /* approved, rejected, cancelled: three empty vectors (already zero). */
  return SUCCESS;
}

/* The proposal account of `multisig` for transaction `index`, checked by owner, discriminator and PDA. */
static uint64_t check_proposal(const SolAccountInfo *proposal, const SolPubkey *program_id, const SolPubkey *multisig,
                               uint64_t *index) {
  if (!pubkey_eq(proposal->owner, program_id) || proposal->data_len < PROPOSAL_APPROVED + 12 ||
      !sbf_equal(proposal->data, DISC_PROPOSAL, ANCHOR_DISC_LEN) ||
      !sbf_equal(proposal->data + 8, multisig, PUBKEY_BYTES))
    return ERROR_INVALID_PROPOSAL;
  *index = read_u64_le(proposal->data + 40);
  PdaSeeds seeds = {0};
  proposal_seeds(&seeds, multisig, proposal->data + 40);
  if (!pda_match_with_bump(&seeds, proposal->data[PROPOSAL_BUMP], program_id, proposal->key))
    return ERROR_INVALID_PROPOSAL;
  return SUCCESS;
}

/* ProposalApprove: multisig, member (s,w), proposal (w). Args: Option<String> memo. */
static uint64_t proposal_approve(SolInput *in) {
  if (in->account_count < 3) return ERROR_NOT_ENOUGH_ACCOUNTS;
  SolAccountInfo *multisig_account = &in->accounts[0];
  SolAccountInfo *member = &in->accounts[1];
  SolAccountInfo *proposal = &in->accounts[2];
  Multisig multisig;
  TRY(load_multisig(multisig_account, in->program_id, &multisig));
  uint8_t mask = 0;
  TRY(member_permissions(&multisig, member, &mask));
  if (!(mask & PERMISSION_VOTE)) return ERROR_UNAUTHORIZED;
  uint64_t index = 0;
  TRY(check_proposal(proposal, in->program_id, multisig_account->key, &index));
  if (!proposal->is_writable) return ERROR_INVALID_ACCOUNT;
  uint8_t *d = proposal->data;
  if (d[PROPOSAL_STATUS] != STATUS_ACTIVE) return ERROR_INVALID_PROPOSAL_STATUS;
  if (index <= multisig.stale_transaction_index) return ERROR_STALE_PROPOSAL;

  uint32_t approved = read_u32_le(d + PROPOSAL_APPROVED);
  uint8_t *keys = d + PROPOSAL_APPROVED + 4;
  uint32_t position = 0;
  while (position < approved) {
    const uint8_t *key = keys + (uint64_t)position * PUBKEY_BYTES;
    int order = 0;
    for (int b = 0; b < PUBKEY_BYTES && order == 0; b++) order = (int)key[b] - (int)member->key->x[b];
    if (order == 0) return ERROR_ALREADY_APPROVED;
    if (order > 0) break;
    position++;
  }
  /* Insert in order (a binary-searchable vector) and shift what follows: the rest of `approved`, then the two
   * (empty) vectors after it. */
  uint8_t *insert_at = keys + (uint64_t)position * PUBKEY_BYTES;
  uint64_t tail = (uint64_t)(approved - position) * PUBKEY_BYTES + 4 + 4;
  if ((uint64_t)(insert_at - d) + PUBKEY_BYTES + tail > proposal->data_len) return ERROR_INVALID_PROPOSAL;
  for (uint64_t i = tail; i > 0; i--) insert_at[PUBKEY_BYTES + i - 1] = insert_at[i - 1];
  sbf_copy(insert_at, member->key, PUBKEY_BYTES);
  write_u32_le(d + PROPOSAL_APPROVED, approved + 1);
  if (approved + 1 >= multisig.threshold) {
    d[PROPOSAL_STATUS] = STATUS_APPROVED;
    write_u64_le(d + PROPOSAL_STATUS + 1, (uint64_t)clock_now());
  }
  return SUCCESS;
}

/* ------------------------------------------------------------------------------------------------ */
/* VaultTransactionExecute: multisig, proposal (w), transaction, member (s), then the message's accounts in order. */

static uint64_t vault_transaction_execute(SolInput *in) {
  if (in->account_count < 4) return ERROR_NOT_ENOUGH_ACCOUNTS;
  SolAccountInfo *multisig_account = &in->accounts[0];
  SolAccountInfo *proposal = &in->accounts[1];
  SolAccountInfo *transaction = &in->accounts[2];
  SolAccountInfo *member = &in->accounts[3];
  Multisig multisig;
  TRY(load_multisig(multisig_account, in->program_id, &multisig));
  uint8_t mask = 0;
  TRY(member_permissions(&multisig, member, &mask));
  if (!(mask & PERMISSION_EXECUTE)) return ERROR_UNAUTHORIZED;

  if (!pubkey_eq(transaction->owner, in->program_id) || transaction->data_len < VAULT_TRANSACTION_FIXED + 4 ||
      !sbf_equal(transaction->data, DISC_VAULT_TRANSACTION, ANCHOR_DISC_LEN) ||
      !sbf_equal(transaction->data + 8, multisig_account->key, PUBKEY_BYTES))
    return ERROR_INVALID_TRANSACTION;
  const uint8_t *t = transaction->data;
  PdaSeeds transaction_pda = {0};
  transaction_seeds(&transaction_pda, multisig_account->key, t + 72);
  if (!pda_match_with_bump(&transaction_pda, t[80], in->program_id, transaction->key)) return ERROR_INVALID_TRANSACTION;
  uint64_t index = 0;
  TRY(check_proposal(proposal, in->program_id, multisig_account->key, &index));
  if (index != read_u64_le(t + 72) || !proposal->is_writable) return ERROR_INVALID_PROPOSAL;
  if (proposal->data[PROPOSAL_STATUS] != STATUS_APPROVED) return ERROR_INVALID_PROPOSAL_STATUS;
  int64_t approved_at = read_i64_le(proposal->data + PROPOSAL_STATUS + 1);
  if (clock_now() - approved_at < (int64_t)multisig.time_lock) return ERROR_TIME_LOCK_NOT_RELEASED;

  uint32_t ephemeral_count = read_u32_le(t + 83);
  if (ephemeral_count > MAX_EPHEMERAL_SIGNERS || 87 + (uint64_t)ephemeral_count > transaction->data_len)
    return ERROR_INVALID_TRANSACTION;
  const uint8_t *ephemeral_bumps = t + 87;
  Message message;
  uint64_t consumed = 0;
  uint64_t message_offset = 87 + ephemeral_count;
  if (!parse_message(t + message_offset, transaction->data_len - message_offset, true, &message, &consumed))
    return ERROR_INVALID_TRANSACTION;

  /* Signer seeds: the vault, then each ephemeral signer. */
  uint8_t vault_index = t[81];
  PdaSeeds seed_sets[1 + MAX_EPHEMERAL_SIGNERS];
  sbf_zero(seed_sets, sizeof(seed_sets));
  seeds_push(&seed_sets[0], SEED_PREFIX, SEED_LEN(SEED_PREFIX));
  seeds_push(&seed_sets[0], multisig_account->key, PUBKEY_BYTES);
  seeds_push(&seed_sets[0], SEED_VAULT, SEED_LEN(SEED_VAULT));
  seeds_push(&seed_sets[0], &vault_index, 1);
  SolPubkey signer_keys[1 + MAX_EPHEMERAL_SIGNERS];
  seed_sets[0].bump = t[82];
  seeds_push(&seed_sets[0], &seed_sets[0].bump, 1);
  if (sol_create_program_address(seed_sets[0].seeds, seed_sets[0].count, in->program_id, &signer_keys[0]) != 0)
    return ERROR_INVALID_TRANSACTION;
  uint8_t ephemeral_indexes[MAX_EPHEMERAL_SIGNERS];
  for (uint32_t i = 0; i < ephemeral_count; i++) {
    PdaSeeds *e = &seed_sets[1 + i];
    ephemeral_indexes[i] = (uint8_t)i;
    seeds_push(e, SEED_PREFIX, SEED_LEN(SEED_PREFIX));
    seeds_push(e, transaction->key, PUBKEY_BYTES);
    seeds_push(e, SEED_EPHEMERAL_SIGNER, SEED_LEN(SEED_EPHEMERAL_SIGNER));
    seeds_push(e, &ephemeral_indexes[i], 1);
    e->bump = ephemeral_bumps[i];
    seeds_push(e, &e->bump, 1);
    if (sol_create_program_address(e->seeds, e->count, in->program_id, &signer_keys[1 + i]) != 0)
      return ERROR_INVALID_TRANSACTION;
  }
  SolSignerSeeds signers[1 + MAX_EPHEMERAL_SIGNERS];
  for (uint32_t i = 0; i <= ephemeral_count; i++) signers[i] = pda_signer(&seed_sets[i]);

  /* The remaining accounts are the message's keys, in order, with the flags the message gives them. */
  SolAccountInfo *remaining = &in->accounts[4];
  if (in->account_count - 4 != message.key_count) return ERROR_INVALID_NUMBER_OF_ACCOUNTS;
  for (uint32_t i = 0; i < message.key_count; i++) {
    SolAccountInfo *account = &remaining[i];
    if (!sbf_equal(account->key, message.keys + (uint64_t)i * PUBKEY_BYTES, PUBKEY_BYTES)) return ERROR_INVALID_ACCOUNT;
    if (message_is_writable(&message, i) && !account->is_writable) return ERROR_INVALID_ACCOUNT;
    if (i < message.num_signers) {
      bool pda_signer_key = false;
      for (uint32_t s = 0; s <= ephemeral_count; s++) pda_signer_key |= pubkey_eq(account->key, &signer_keys[s]);
      if (!pda_signer_key && !account->is_signer) return ERROR_INVALID_ACCOUNT;
    }
    if (message_is_writable(&message, i) && pubkey_eq(account->key, proposal->key)) return ERROR_PROTECTED_ACCOUNT;
  }

  const uint8_t *cursor = message.instructions;
  const uint8_t *end = t + transaction->data_len;
  for (uint32_t i = 0; i < message.instruction_count; i++) {
    CompiledInstruction ix;
    if (!next_instruction(&message, &cursor, end, &ix) || ix.account_count > MAX_ACCOUNTS) return ERROR_INVALID_TRANSACTION;
    SolAccountMeta metas[MAX_ACCOUNTS];
    for (uint32_t a = 0; a < ix.account_count; a++) {
      uint8_t k = ix.accounts[a];
      metas[a] = meta_of(&remaining[k], message_is_writable(&message, k), k < message.num_signers);
    }
    SolInstruction cpi = {remaining[ix.program_index].key, metas, ix.account_count, (uint8_t *)ix.data, ix.data_len};
    TRY(sol_invoke_signed_c(&cpi, in->accounts, (int)in->account_count, signers, (int)(1 + ephemeral_count)));
  }

  proposal->data[PROPOSAL_STATUS] = STATUS_EXECUTED;
  write_u64_le(proposal->data + PROPOSAL_STATUS + 1, (uint64_t)clock_now());
  return SUCCESS;
}

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  if (!sbf_deserialize(input, &in)) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in.data_len < ANCHOR_DISC_LEN) return ERROR_INVALID_INSTRUCTION;
  if (sbf_equal(in.data, IX_VAULT_TRANSACTION_CREATE, ANCHOR_DISC_LEN)) return vault_transaction_create(&in);
  if (sbf_equal(in.data, IX_PROPOSAL_CREATE, ANCHOR_DISC_LEN)) return proposal_create(&in);
  if (sbf_equal(in.data, IX_PROPOSAL_APPROVE, ANCHOR_DISC_LEN)) return proposal_approve(&in);
  if (sbf_equal(in.data, IX_VAULT_TRANSACTION_EXECUTE, ANCHOR_DISC_LEN)) return vault_transaction_execute(&in);
  return ERROR_INVALID_INSTRUCTION;
}
