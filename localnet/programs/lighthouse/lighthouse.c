/*
 * lighthouse.c - a stand-in for the Lighthouse assertion program (DEVELOPMENT AND TEST FIXTURES ONLY, never
 * deployed). Wallets (Phantom, Solflare) add Lighthouse instructions to a transaction they sign: assertions
 * about account state that make the whole transaction fail if a simulation lied. The x402 SVM exact scheme lets
 * them sit before and after the payment transfer. This stand-in, loaded at Lighthouse's program id, lets the
 * local chain execute such a transaction for real: each instruction reads one account and fails the transaction
 * when the assertion does not hold.
 *
 * The instruction encoding is this stand-in's own (the real program's Borsh layouts are not reproduced):
 *   data: u8 assertion ‖ u8 operator ‖ u64 value (little endian), 10 bytes
 *   accounts: [0] the account asserted on (read-only, no signer needed)
 *   assertion 0: SPL token account amount (u64 at offset 64; the account must hold at least 72 bytes)
 *   assertion 1: the account's lamports
 *   operator: 0 ==, 1 !=, 2 >, 3 <, 4 >=, 5 <=
 * A failed assertion returns custom error 6001 (the stand-in's AssertionFailed); a malformed instruction
 * returns InvalidInstructionData.
 */
#include "../include/sbf.h"

#define LIGHTHOUSE_DATA_LEN 10
#define ASSERT_TOKEN_AMOUNT 0
#define ASSERT_LAMPORTS 1
#define TOKEN_AMOUNT_OFFSET 64
#define ERROR_ASSERTION_FAILED 6001ULL

static bool compare(uint8_t operator, uint64_t actual, uint64_t expected, bool *ok) {
  switch (operator) {
    case 0: *ok = actual == expected; return true;
    case 1: *ok = actual != expected; return true;
    case 2: *ok = actual > expected; return true;
    case 3: *ok = actual < expected; return true;
    case 4: *ok = actual >= expected; return true;
    case 5: *ok = actual <= expected; return true;
    default: return false;
  }
}

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  if (!sbf_deserialize(input, &in)) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in.data_len != LIGHTHOUSE_DATA_LEN) return ERROR_INVALID_INSTRUCTION_DATA;
  if (in.account_count < 1) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *target = &in.accounts[0];
  uint64_t expected = read_u64_le(in.data + 2);
  uint64_t actual;
  if (in.data[0] == ASSERT_TOKEN_AMOUNT) {
    if (target->data_len < TOKEN_AMOUNT_OFFSET + 8) return ERROR_ASSERTION_FAILED;
    actual = read_u64_le(target->data + TOKEN_AMOUNT_OFFSET);
  } else if (in.data[0] == ASSERT_LAMPORTS) {
    actual = *target->lamports;
  } else {
    return ERROR_INVALID_INSTRUCTION_DATA;
  }
  bool ok = false;
  if (!compare(in.data[1], actual, expected, &ok)) return ERROR_INVALID_INSTRUCTION_DATA;
  if (!ok) {
    LOG("lighthouse stand-in: assertion failed");
    sol_log_64_(in.data[0], in.data[1], actual, expected, 0);
    return ERROR_ASSERTION_FAILED;
  }
  return SUCCESS;
}
