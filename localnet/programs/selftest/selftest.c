/*
 * selftest.c - a toolchain fixture (DEVELOPMENT AND TEST ONLY, never deployed).
 *
 * Exercises every kind of relocation and syscall the post-linker handles, so that a broken
 * post-link step fails here, in a small program, before it breaks the stand-ins:
 *   - a string literal in .rodata (R_BPF_64_64 -> R_BPF_64_RELATIVE in .text),
 *   - a table of pointers in .rodata (R_BPF_64_ABS64 -> R_BPF_64_RELATIVE in data),
 *   - calls between functions and syscalls (R_BPF_64_32),
 *   - a System Transfer CPI and the Clock sysvar.
 *
 * Instruction data: u8 greeting index (0 or 1) ‖ u64 lamports. Accounts: from (s,w), to (w), System.
 * Logs the chosen greeting and the clock's unix time, then transfers `lamports` from -> to.
 */
#include "../include/sbf.h"

static const char GREETING_HELLO[] = "selftest: hello";
static const char GREETING_BYE[] = "selftest: goodbye";
/* Pointers stored in read-only data: the loader must relocate them. */
static const char *const GREETINGS[2] = {GREETING_HELLO, GREETING_BYE};
static const uint64_t GREETING_LENGTHS[2] = {sizeof(GREETING_HELLO) - 1, sizeof(GREETING_BYE) - 1};

#define SELFTEST_DATA_LEN 9

__attribute__((noinline)) static void log_greeting(uint8_t index) {
  uint8_t i = index & 1;
  sol_log_(GREETINGS[i], GREETING_LENGTHS[i]);
}

uint64_t entrypoint(uint8_t *input) {
  SolInput in;
  if (!sbf_deserialize(input, &in)) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in.data_len != SELFTEST_DATA_LEN) return ERROR_INVALID_INSTRUCTION_DATA;
  if (in.account_count < 3) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  log_greeting(in.data[0]);
  sol_log_64_((uint64_t)clock_now(), rent_exempt_minimum(0), in.account_count, 0, 0);
  uint64_t lamports = read_u64_le(in.data + 1);
  if (lamports == 0) return SUCCESS;
  return system_transfer(&in.accounts[0], &in.accounts[1], lamports, NULL);
}
