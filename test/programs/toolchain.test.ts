/**
 * The SBF toolchain of the stand-in programs (localnet/programs/tools): the murmur3 syscall hashes,
 * the post-linker's refusals, and the committed selftest program, which exercises every relocation
 * kind the post-linker writes (string literals, a pointer table in read-only data, syscalls, calls)
 * plus a System CPI, inside litesvm.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AccountRole, type AccountSignerMeta, address, generateKeyPairSigner } from "@solana/kit";
import { LiteSVM } from "litesvm";
import { describe, expect, it } from "vitest";
import { murmur3_32, syscallHash } from "../../localnet/programs/tools/murmur3";
import { KNOWN_SYSCALLS, linkSbfObject, PostLinkError } from "../../localnet/programs/tools/postlink";
import { fundedSigner, lamportsOf, sendOk, setUnixTime } from "./harness";

const PROGRAMS_DIR = fileURLToPath(new URL("../../localnet/programs/", import.meta.url));
const SELFTEST_SO = join(PROGRAMS_DIR, "build/selftest.so");
const CLANG = process.env.CLANG ?? "clang-19";
const hasClang = spawnSync(CLANG, ["--version"]).status === 0;

describe("murmur3_32", () => {
  it("matches the published reference values", () => {
    expect(murmur3_32(new Uint8Array(0))).toBe(0);
    expect(murmur3_32(new TextEncoder().encode("hello"))).toBe(0x248bfa47);
    expect(murmur3_32(new TextEncoder().encode("The quick brown fox jumps over the lazy dog"))).toBe(0x2e4ff723);
  });

  it("gives every known syscall its registered hash", () => {
    for (const [name, hash] of Object.entries(KNOWN_SYSCALLS)) expect(syscallHash(name), name).toBe(hash);
  });
});

describe("postlink", () => {
  it("refuses input that is not a relocatable BPF object", () => {
    expect(() => linkSbfObject(readFileSync(SELFTEST_SO))).toThrow(PostLinkError);
    expect(() => linkSbfObject(new Uint8Array(16))).toThrow(/not an ELF/);
  });

  function compile(source: string): Uint8Array {
    const dir = mkdtempSync(join(tmpdir(), "postlink-"));
    writeFileSync(join(dir, "p.c"), source);
    execFileSync(CLANG, [
      "-target",
      "bpf",
      "-mcpu=v2",
      "-O2",
      "-ffreestanding",
      "-c",
      join(dir, "p.c"),
      "-o",
      join(dir, "p.o"),
    ]);
    return readFileSync(join(dir, "p.o"));
  }

  it.skipIf(!hasClang)(`refuses writable globals and unknown external calls (needs ${CLANG})`, () => {
    const writable = compile(
      "unsigned long counter = 1;\nunsigned long entrypoint(void *in) { (void)in; return ++counter; }\n",
    );
    expect(() => linkSbfObject(writable)).toThrow(/writable/);
    const libc = compile(
      "extern void *memcpy2(void *, const void *, unsigned long);\n" +
        "unsigned long entrypoint(unsigned char *in) { memcpy2(in, in + 8, 8); return 0; }\n",
    );
    expect(() => linkSbfObject(libc)).toThrow(/memcpy2.*not a syscall/);
  });
});

describe("the selftest program", () => {
  const programId = address("Se1fTest11111111111111111111111111111111111");

  async function run(greeting: number, lamports: bigint) {
    const svm = new LiteSVM();
    svm.addProgramFromFile(programId, SELFTEST_SO);
    setUnixTime(svm, 1_700_000_000n);
    const from = await fundedSigner(svm, 1n);
    const to = (await generateKeyPairSigner()).address;
    const data = new Uint8Array(9);
    data[0] = greeting;
    new DataView(data.buffer).setBigUint64(1, lamports, true);
    const fromMeta: AccountSignerMeta = { address: from.address, role: AccountRole.WRITABLE_SIGNER, signer: from };
    const logs = await sendOk(svm, from, [
      {
        programAddress: programId,
        accounts: [
          fromMeta,
          { address: to, role: AccountRole.WRITABLE },
          { address: address("11111111111111111111111111111111"), role: AccountRole.READONLY },
        ],
        data,
      },
    ]);
    return { logs, received: lamportsOf(svm, to) };
  }

  it("reads strings through a relocated pointer table, reads sysvars and CPIs into System", async () => {
    const hello = await run(0, 2_000_000n);
    expect(hello.logs).toContain("Program log: selftest: hello");
    // unix time, the rent-exempt minimum of an empty account, the account count
    expect(hello.logs).toContain(`Program log: 0x${(1_700_000_000).toString(16)}, 0xd9800, 0x3, 0x0, 0x0`);
    expect(hello.received).toBe(2_000_000n);
    const bye = await run(1, 0n);
    expect(bye.logs).toContain("Program log: selftest: goodbye");
  });
});
