#!/usr/bin/env bash
# Builds the local stand-in SBF programs (DEVELOPMENT AND TEST FIXTURES ONLY — never deploy them).
#
#   localnet/programs/build.sh [output-dir]     (default: localnet/programs/build)
#
# Each program is one C translation unit compiled with Debian's clang-19 for BPF v2, then linked
# into a loader-ready ELF by tools/postlink.ts (see its header for why ld.lld is not used).
# The output is reproducible: test/programs/rebuild.test.ts rebuilds and compares bytes with the
# committed .so files, so a change to a source must be followed by a rebuild and a commit of build/.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$HERE/build}"
CLANG="${CLANG:-clang-19}"
PROGRAMS=(selftest universal-settle sla-escrow payment-channels lighthouse swig squads)

if ! command -v "$CLANG" >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "build.sh: $CLANG not found, installing it with apt-get" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-19 >/dev/null
  else
    echo "build.sh: $CLANG is required (Debian: apt-get install clang-19)" >&2
    exit 1
  fi
fi

# -mcpu=v2: v3 emits 32-bit jumps (JMP32) that the SBPF v0 verifier rejects.
# -bpf-stack-size=4096: an SBF call frame is 4 KiB; clang's BPF default (512) is the kernel's.
# -fno-builtin -ffreestanding -nostdlib: no libc exists; the post-linker refuses unknown calls.
CFLAGS=(
  -target bpf -mcpu=v2 -O2
  -ffreestanding -fno-builtin -nostdlib -fno-stack-protector
  -Wall -Wextra -Werror
  -mllvm -bpf-stack-size=4096
  -I "$HERE/include"
)

OBJ_DIR="$(mktemp -d)"
trap 'rm -rf "$OBJ_DIR"' EXIT
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)" # the post-linker runs from the repository root

for program in "${PROGRAMS[@]}"; do
  source_file="$HERE/$program/${program//-/_}.c"
  "$CLANG" "${CFLAGS[@]}" -c "$source_file" -o "$OBJ_DIR/$program.o"
  (cd "$REPO" && npx --no-install tsx "$HERE/tools/postlink.ts" "$OBJ_DIR/$program.o" "$OUT/$program.so")
done
