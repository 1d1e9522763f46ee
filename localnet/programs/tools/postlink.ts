/**
 * postlink.ts — turns one relocatable BPF object (clang -target bpf -c) into an SBF program ELF that
 * the Solana loader (SBPF v0, "lenient" ELF path, as used by litesvm) accepts.
 *
 *   npx tsx localnet/programs/tools/postlink.ts <input.o> <output.so>
 *
 * DEVELOPMENT TOOLING for the local stand-in programs only.
 *
 * Why this step exists, and why it does the final layout itself: Debian's ld.lld cannot link BPF
 * for Solana — ld.lld-19 rejects EM_BPF objects outright ("unsupported e_machine value: 247") and
 * ld.lld-14 stops at the first syscall call ("unknown relocation (10)") and misreads the addend of
 * every string-literal reference ("offset is outside the section"), even for `ld.lld -r`. So this
 * tool performs the small link a linker script with "virtual address = file offset" would do, and
 * then writes what the loader needs:
 *
 *   - .text, then the merged .rodata*, each placed so that its virtual address equals its file
 *     offset (the loader requires sh_addr == sh_offset and maps the file at MM_RODATA_START);
 *   - R_BPF_64_64 (lddw of a data address) resolved to the link-time address and recorded as a
 *     dynamic R_BPF_64_RELATIVE, which the loader rebases by MM_RODATA_START;
 *   - R_BPF_64_ABS64 (a pointer stored in .rodata) recorded as R_BPF_64_RELATIVE too; the v0 loader
 *     reads such a target from the upper 4 bytes of the 8-byte slot, so the address is written there;
 *   - R_BPF_64_32 against a defined function resolved to a pc-relative call (the loader registers
 *     every relative call target itself);
 *   - R_BPF_64_32 against an undefined symbol is a syscall: the call keeps imm = -1 and gets a
 *     dynamic R_BPF_64_32 against a .dynsym entry of that name; the loader writes murmur3_32(name)
 *     into the call. The name is checked here against the syscalls the runtime registers, by hash,
 *     so a typo or an accidental libc call (memcpy) fails the build, not the deployment;
 *   - .dynsym / .dynstr / .rel.dyn / .dynamic and a PT_DYNAMIC program header.
 *
 * Writable data (.data, .bss) is refused: the loader rejects it.
 * The output depends only on the object's contents, so builds are byte-for-byte reproducible.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { syscallHash } from "./murmur3";

// ---------------------------------------------------------------------------------------------------
// ELF constants (System V gABI; BPF relocation numbers from the LLVM BPF backend's documentation)

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];
const ELFCLASS64 = 2;
const ELFDATA2LSB = 1;
const EV_CURRENT = 1;
const ET_REL = 1;
const ET_DYN = 3;
const EM_BPF = 247;

const ELF_HEADER_SIZE = 64;
const PROGRAM_HEADER_SIZE = 56;
const SECTION_HEADER_SIZE = 64;
const SYMBOL_SIZE = 24;
const REL_SIZE = 16;
const DYN_SIZE = 16;
const INSN_SIZE = 8;

const SHT_NULL = 0;
const SHT_PROGBITS = 1;
const SHT_SYMTAB = 2;
const SHT_STRTAB = 3;
const SHT_RELA = 4;
const SHT_DYNAMIC = 6;
const SHT_REL = 9;
const SHT_DYNSYM = 11;

const SHF_WRITE = 0x1;
const SHF_ALLOC = 0x2;
const SHF_EXECINSTR = 0x4;

const SHN_UNDEF = 0;
const SHN_ABS = 0xfff1;
const SHN_COMMON = 0xfff2;

const STB_GLOBAL = 1;
const STT_NOTYPE = 0;
const STT_FUNC = 2;

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PF_X = 1;
const PF_R = 4;

const DT_NULL = 0;
const DT_STRTAB = 5;
const DT_SYMTAB = 6;
const DT_STRSZ = 10;
const DT_SYMENT = 11;
const DT_REL = 17;
const DT_RELSZ = 18;
const DT_RELENT = 19;
const DT_TEXTREL = 22;

const R_BPF_64_64 = 1;
const R_BPF_64_ABS64 = 2;
const R_BPF_64_RELATIVE = 8;
const R_BPF_64_32 = 10;

const OPCODE_LDDW = 0x18;
const OPCODE_CALL = 0x85;
const CALL_UNRESOLVED_IMM = 0xffffffff; // -1: "resolved by the loader"

/**
 * Syscalls the runtime registers, with the murmur3_32 values published for them. The post-linker
 * recomputes each hash, so this table also guards the hash implementation.
 */
export const KNOWN_SYSCALLS: Readonly<Record<string, number>> = {
  abort: 0xb6fc1a11,
  sol_panic_: 0x686093bb,
  sol_log_: 0x207559bd,
  sol_log_64_: 0x5c2a3178,
  sol_log_compute_units_: 0x52ba5096,
  sol_log_pubkey: 0x7ef088ca,
  sol_log_data: 0x7317b434,
  sol_create_program_address: 0x9377323c,
  sol_try_find_program_address: 0x48504a38,
  sol_sha256: 0x11f49d86,
  sol_keccak256: 0xd7793abb,
  sol_curve_validate_point: 0xaa2607ca,
  sol_get_clock_sysvar: 0xd56b5fe9,
  sol_get_rent_sysvar: 0xbf7188f6,
  sol_memcpy_: 0x717cc4a3,
  sol_memmove_: 0x434371f8,
  sol_memcmp_: 0x5fdcde31,
  sol_memset_: 0x3770fb22,
  sol_invoke_signed_c: 0xa22b9c85,
  sol_invoke_signed_rust: 0xd7449092,
  sol_set_return_data: 0xa226d3eb,
  sol_get_return_data: 0x5d2245e4,
};

export class PostLinkError extends Error {
  override name = "PostLinkError";
}

// ---------------------------------------------------------------------------------------------------
// Reading the relocatable object

interface InputSection {
  index: number;
  name: string;
  type: number;
  flags: bigint;
  offset: number;
  size: number;
  link: number;
  info: number;
  align: number;
}

interface InputSymbol {
  name: string;
  info: number;
  sectionIndex: number;
  value: number;
  size: number;
}

interface InputObject {
  bytes: Uint8Array;
  view: DataView;
  sections: InputSection[];
  symbols: InputSymbol[];
}

function cString(bytes: Uint8Array, start: number): string {
  let end = start;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(start, end));
}

function readObject(bytes: Uint8Array): InputObject {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < ELF_HEADER_SIZE || ELF_MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new PostLinkError("input is not an ELF file");
  }
  if (bytes[4] !== ELFCLASS64 || bytes[5] !== ELFDATA2LSB) throw new PostLinkError("input is not 64-bit little-endian");
  if (view.getUint16(16, true) !== ET_REL)
    throw new PostLinkError("input is not a relocatable object (compile with -c)");
  if (view.getUint16(18, true) !== EM_BPF)
    throw new PostLinkError("input is not a BPF object (compile with -target bpf)");

  const shoff = Number(view.getBigUint64(40, true));
  const shnum = view.getUint16(60, true);
  const shstrndx = view.getUint16(62, true);
  const raw = Array.from({ length: shnum }, (_, index): InputSection => {
    const at = shoff + index * SECTION_HEADER_SIZE;
    return {
      index,
      name: "",
      type: view.getUint32(at + 4, true),
      flags: view.getBigUint64(at + 8, true),
      offset: Number(view.getBigUint64(at + 24, true)),
      size: Number(view.getBigUint64(at + 32, true)),
      link: view.getUint32(at + 40, true),
      info: view.getUint32(at + 44, true),
      align: Math.max(1, Number(view.getBigUint64(at + 48, true))),
    };
  });
  const nameTable = raw[shstrndx];
  if (!nameTable) throw new PostLinkError("input has no section name table");
  for (const [i, s] of raw.entries()) {
    s.name = cString(bytes, nameTable.offset + view.getUint32(shoff + i * SECTION_HEADER_SIZE, true));
  }

  const symtab = raw.find((s) => s.type === SHT_SYMTAB);
  const symbols: InputSymbol[] = [];
  if (symtab) {
    const strtab = raw[symtab.link];
    if (!strtab) throw new PostLinkError("symbol table has no string table");
    for (let at = symtab.offset; at < symtab.offset + symtab.size; at += SYMBOL_SIZE) {
      symbols.push({
        name: cString(bytes, strtab.offset + view.getUint32(at, true)),
        info: bytes[at + 4]!,
        sectionIndex: view.getUint16(at + 6, true),
        value: Number(view.getBigUint64(at + 8, true)),
        size: Number(view.getBigUint64(at + 16, true)),
      });
    }
  }
  return { bytes, view, sections: raw, symbols };
}

// ---------------------------------------------------------------------------------------------------
// Layout

const alignUp = (n: number, a: number): number => Math.ceil(n / a) * a;

const isAlloc = (s: InputSection): boolean => (s.flags & BigInt(SHF_ALLOC)) !== 0n;
const isExec = (s: InputSection): boolean => (s.flags & BigInt(SHF_EXECINSTR)) !== 0n;
const isWrite = (s: InputSection): boolean => (s.flags & BigInt(SHF_WRITE)) !== 0n;

interface Placed {
  section: InputSection;
  /** Offset of the section inside its output section. */
  at: number;
}

/** Concatenates input sections with their alignment; returns placements and the total size. */
function concatenate(sections: InputSection[]): { placed: Placed[]; size: number; align: number } {
  let size = 0;
  let align = INSN_SIZE;
  const placed = sections.map((section) => {
    size = alignUp(size, section.align);
    align = Math.max(align, section.align);
    const p = { section, at: size };
    size += section.size;
    return p;
  });
  return { placed, size, align };
}

// ---------------------------------------------------------------------------------------------------
// Output assembly helpers

class StringTable {
  private readonly parts: Uint8Array[] = [new Uint8Array(1)];
  private size = 1;
  private readonly offsets = new Map<string, number>();
  add(s: string): number {
    const known = this.offsets.get(s);
    if (known !== undefined) return known;
    const bytes = new TextEncoder().encode(`${s}\0`);
    const at = this.size;
    this.parts.push(bytes);
    this.size += bytes.length;
    this.offsets.set(s, at);
    return at;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

interface DynamicRelocation {
  offset: number;
  type: number;
  symbol: number;
}

export interface LinkResult {
  elf: Uint8Array;
  /** Syscall names the program calls, in .dynsym order. */
  syscalls: string[];
  textSize: number;
  rodataSize: number;
  relocationCount: number;
}

// ---------------------------------------------------------------------------------------------------
// The link

export function linkSbfObject(input: Uint8Array): LinkResult {
  const obj = readObject(input);

  for (const s of obj.sections) {
    if (isAlloc(s) && isWrite(s) && s.size > 0) {
      throw new PostLinkError(`writable section ${s.name} (${s.size} bytes): the SBF loader refuses writable globals`);
    }
    if (s.type === SHT_RELA) throw new PostLinkError(`unexpected RELA section ${s.name}: BPF objects use REL`);
  }
  const textInputs = obj.sections.filter((s) => isAlloc(s) && isExec(s) && s.type === SHT_PROGBITS && s.size > 0);
  const rodataInputs = obj.sections.filter(
    (s) => isAlloc(s) && !isExec(s) && !isWrite(s) && s.type === SHT_PROGBITS && s.size > 0,
  );
  for (const s of rodataInputs) {
    if (!s.name.startsWith(".rodata")) throw new PostLinkError(`unsupported allocated section ${s.name}`);
  }
  if (textInputs.length === 0) throw new PostLinkError("input has no code");

  const text = concatenate(textInputs);
  const rodata = concatenate(rodataInputs);

  // File layout: header, program headers, .text, .rodata, dynamic info, .shstrtab, section headers.
  const hasRodata = rodata.size > 0;
  const programHeaderCount = (hasRodata ? 2 : 1) + 2;
  const textAddr = alignUp(ELF_HEADER_SIZE + programHeaderCount * PROGRAM_HEADER_SIZE, text.align);
  const rodataAddr = alignUp(textAddr + text.size, rodata.align);
  const rodataEnd = hasRodata ? rodataAddr + rodata.size : textAddr + text.size;

  const outputBase = new Map<number, number>();
  for (const p of text.placed) outputBase.set(p.section.index, textAddr + p.at);
  for (const p of rodata.placed) outputBase.set(p.section.index, rodataAddr + p.at);

  const image = new Uint8Array(rodataEnd);
  for (const p of [...text.placed, ...rodata.placed]) {
    const base = outputBase.get(p.section.index)!;
    image.set(obj.bytes.subarray(p.section.offset, p.section.offset + p.section.size), base);
  }
  const imageView = new DataView(image.buffer);

  const symbolAddress = (sym: InputSymbol): number => {
    if (sym.sectionIndex === SHN_ABS) return sym.value;
    if (sym.sectionIndex === SHN_COMMON)
      throw new PostLinkError(`common symbol ${sym.name}: writable globals are refused`);
    const base = outputBase.get(sym.sectionIndex);
    if (base === undefined) {
      const section = obj.sections[sym.sectionIndex];
      throw new PostLinkError(
        `symbol ${sym.name || "(section)"} lives in ${section?.name ?? "?"}, which is not linked`,
      );
    }
    return base + sym.value;
  };

  const dynstr = new StringTable();
  const syscallSymbols = new Map<string, number>(); // name -> .dynsym index
  const syscallIndex = (name: string): number => {
    const known = syscallSymbols.get(name);
    if (known !== undefined) return known;
    const expected = KNOWN_SYSCALLS[name];
    if (expected === undefined) {
      throw new PostLinkError(`call to undefined function ${name}: not a syscall the runtime registers`);
    }
    if (syscallHash(name) !== expected) {
      throw new PostLinkError(`murmur3 of ${name} is not the registered value (hash implementation broken)`);
    }
    const index = syscallSymbols.size + 1; // 0 is the null symbol
    syscallSymbols.set(name, index);
    dynstr.add(name);
    return index;
  };

  const dynamicRelocations: DynamicRelocation[] = [];
  const textStart = textAddr;
  const textEnd = textAddr + text.size;
  const resolvedCalls = new Set<number>();

  for (const rel of obj.sections.filter((s) => s.type === SHT_REL)) {
    const targetBase = outputBase.get(rel.info);
    if (targetBase === undefined) continue; // relocations of unlinked sections (debug info, addrsig)
    const targetIsText = textInputs.some((s) => s.index === rel.info);
    for (let at = rel.offset; at < rel.offset + rel.size; at += REL_SIZE) {
      const rOffset = Number(obj.view.getBigUint64(at, true));
      const rInfo = obj.view.getBigUint64(at + 8, true);
      const type = Number(rInfo & 0xffffffffn);
      const sym = obj.symbols[Number(rInfo >> 32n)];
      if (!sym) throw new PostLinkError(`relocation at ${rOffset} names a missing symbol`);
      const place = targetBase + rOffset;

      if (type === R_BPF_64_64 && targetIsText) {
        // lddw rX, addr: two instruction slots, the address split over the two 32-bit immediates.
        if (image[place] !== OPCODE_LDDW) throw new PostLinkError(`R_BPF_64_64 at ${place} is not on an lddw`);
        const addend = imageView.getUint32(place + 4, true);
        const address = symbolAddress(sym) + addend;
        if (address === 0) throw new PostLinkError("an lddw address of 0 would be refused by the loader");
        imageView.setUint32(place + 4, address >>> 0, true);
        imageView.setUint32(place + INSN_SIZE + 4, Math.floor(address / 2 ** 32), true);
        dynamicRelocations.push({ offset: place, type: R_BPF_64_RELATIVE, symbol: 0 });
      } else if (type === R_BPF_64_32 && targetIsText) {
        if (image[place] !== OPCODE_CALL) throw new PostLinkError(`R_BPF_64_32 at ${place} is not on a call`);
        resolvedCalls.add(place);
        if (sym.sectionIndex === SHN_UNDEF) {
          imageView.setUint32(place + 4, CALL_UNRESOLVED_IMM, true);
          dynamicRelocations.push({ offset: place, type: R_BPF_64_32, symbol: syscallIndex(sym.name) });
        } else {
          // A call to a function of this object: the immediate encodes (target + A) / 8 - 1, so the
          // implicit addend is (imm + 1) * 8. Rewrite as a relative call from the next instruction.
          const addend = (imageView.getInt32(place + 4, true) + 1) * INSN_SIZE;
          const target = symbolAddress(sym) + addend;
          if (target < textStart || target >= textEnd || (target - textStart) % INSN_SIZE !== 0) {
            throw new PostLinkError(`call at ${place} targets ${target}, outside the code`);
          }
          imageView.setInt32(place + 4, (target - place) / INSN_SIZE - 1, true);
        }
      } else if (type === R_BPF_64_ABS64 && !targetIsText) {
        // A pointer stored in read-only data. The v0 loader rebases the 32-bit value it finds in
        // the upper half of the slot and writes the full 64-bit address over the whole slot.
        const addend = Number(imageView.getBigUint64(place, true));
        const address = symbolAddress(sym) + addend;
        if (address >= 2 ** 32) throw new PostLinkError(`data pointer at ${place} does not fit 32 bits`);
        imageView.setUint32(place, 0, true);
        imageView.setUint32(place + 4, address, true);
        dynamicRelocations.push({ offset: place, type: R_BPF_64_RELATIVE, symbol: 0 });
      } else {
        const where = obj.sections[rel.info]?.name ?? "?";
        throw new PostLinkError(`unsupported relocation type ${type} in ${where} against ${sym.name || "(section)"}`);
      }
    }
  }

  // A call still holding -1 without a relocation would be resolved to nothing by the loader.
  for (let at = textStart; at < textEnd; at += INSN_SIZE) {
    if (
      image[at] === OPCODE_CALL &&
      imageView.getUint32(at + 4, true) === CALL_UNRESOLVED_IMM &&
      !resolvedCalls.has(at)
    ) {
      throw new PostLinkError(`call at ${at} has no relocation`);
    }
    if (image[at] === OPCODE_LDDW) at += INSN_SIZE; // the second slot of lddw is not an instruction
  }

  const entry = obj.symbols.find((s) => s.name === "entrypoint" && s.info >> 4 === STB_GLOBAL);
  if (!entry || entry.sectionIndex === SHN_UNDEF) throw new PostLinkError("no global `entrypoint` function");
  const entryAddr = symbolAddress(entry);

  dynamicRelocations.sort((a, b) => a.offset - b.offset);
  const syscallNames = [...syscallSymbols.keys()];

  // .dynsym: null, the syscalls (undefined, resolved by name), then the exported entrypoint.
  const entryNameOffset = dynstr.add("entrypoint");
  const dynsymCount = 1 + syscallNames.length + 1;
  const dynsym = new Uint8Array(dynsymCount * SYMBOL_SIZE);
  const dynsymView = new DataView(dynsym.buffer);
  syscallNames.forEach((name, i) => {
    const at = (i + 1) * SYMBOL_SIZE;
    dynsymView.setUint32(at, dynstr.add(name), true);
    dynsym[at + 4] = (STB_GLOBAL << 4) | STT_NOTYPE;
  });
  {
    const at = (dynsymCount - 1) * SYMBOL_SIZE;
    dynsymView.setUint32(at, entryNameOffset, true);
    dynsym[at + 4] = (STB_GLOBAL << 4) | STT_FUNC;
    dynsymView.setUint16(at + 6, 1, true); // .text is output section 1
    dynsymView.setBigUint64(at + 8, BigInt(entryAddr), true);
    dynsymView.setBigUint64(at + 16, BigInt(entry.size), true);
  }
  const dynstrBytes = dynstr.bytes();

  const relDyn = new Uint8Array(dynamicRelocations.length * REL_SIZE);
  const relDynView = new DataView(relDyn.buffer);
  dynamicRelocations.forEach((r, i) => {
    relDynView.setBigUint64(i * REL_SIZE, BigInt(r.offset), true);
    relDynView.setBigUint64(i * REL_SIZE + 8, (BigInt(r.symbol) << 32n) | BigInt(r.type), true);
  });

  const dynsymAddr = alignUp(rodataEnd, 8);
  const dynstrAddr = dynsymAddr + dynsym.length;
  const relDynAddr = alignUp(dynstrAddr + dynstrBytes.length, 8);
  const dynamicAddr = alignUp(relDynAddr + relDyn.length, 8);

  const dynamicEntries: Array<[number, number]> = [
    [DT_SYMTAB, dynsymAddr],
    [DT_STRTAB, dynstrAddr],
    [DT_STRSZ, dynstrBytes.length],
    [DT_SYMENT, SYMBOL_SIZE],
  ];
  if (dynamicRelocations.length > 0) {
    dynamicEntries.push([DT_REL, relDynAddr], [DT_RELSZ, relDyn.length], [DT_RELENT, REL_SIZE], [DT_TEXTREL, 0]);
  }
  dynamicEntries.push([DT_NULL, 0]);
  const dynamic = new Uint8Array(dynamicEntries.length * DYN_SIZE);
  const dynamicView = new DataView(dynamic.buffer);
  dynamicEntries.forEach(([tag, value], i) => {
    dynamicView.setBigInt64(i * DYN_SIZE, BigInt(tag), true);
    dynamicView.setBigUint64(i * DYN_SIZE + 8, BigInt(value), true);
  });
  const dynamicEnd = dynamicAddr + dynamic.length;

  // Section headers.
  const shstrtab = new StringTable();
  interface OutSection {
    name: string;
    type: number;
    flags: number;
    addr: number;
    size: number;
    link: number;
    info: number;
    align: number;
    entsize: number;
  }
  const outSections: OutSection[] = [
    { name: "", type: SHT_NULL, flags: 0, addr: 0, size: 0, link: 0, info: 0, align: 0, entsize: 0 },
    {
      name: ".text",
      type: SHT_PROGBITS,
      flags: SHF_ALLOC | SHF_EXECINSTR,
      addr: textAddr,
      size: text.size,
      link: 0,
      info: 0,
      align: text.align,
      entsize: 0,
    },
  ];
  if (hasRodata) {
    outSections.push({
      name: ".rodata",
      type: SHT_PROGBITS,
      flags: SHF_ALLOC,
      addr: rodataAddr,
      size: rodata.size,
      link: 0,
      info: 0,
      align: rodata.align,
      entsize: 0,
    });
  }
  const dynsymIndex = outSections.length;
  const dynstrIndex = dynsymIndex + 1;
  outSections.push(
    {
      name: ".dynsym",
      type: SHT_DYNSYM,
      flags: SHF_ALLOC,
      addr: dynsymAddr,
      size: dynsym.length,
      link: dynstrIndex,
      info: 1,
      align: 8,
      entsize: SYMBOL_SIZE,
    },
    {
      name: ".dynstr",
      type: SHT_STRTAB,
      flags: SHF_ALLOC,
      addr: dynstrAddr,
      size: dynstrBytes.length,
      link: 0,
      info: 0,
      align: 1,
      entsize: 0,
    },
  );
  if (dynamicRelocations.length > 0) {
    outSections.push({
      name: ".rel.dyn",
      type: SHT_REL,
      flags: SHF_ALLOC,
      addr: relDynAddr,
      size: relDyn.length,
      link: dynsymIndex,
      info: 0,
      align: 8,
      entsize: REL_SIZE,
    });
  }
  outSections.push({
    name: ".dynamic",
    type: SHT_DYNAMIC,
    flags: SHF_ALLOC,
    addr: dynamicAddr,
    size: dynamic.length,
    link: dynstrIndex,
    info: 0,
    align: 8,
    entsize: DYN_SIZE,
  });
  const shstrtabIndex = outSections.length;
  outSections.push({
    name: ".shstrtab",
    type: SHT_STRTAB,
    flags: 0,
    addr: 0,
    size: 0,
    link: 0,
    info: 0,
    align: 1,
    entsize: 0,
  });
  const nameOffsets = outSections.map((s) => shstrtab.add(s.name));
  const shstrtabBytes = shstrtab.bytes();
  const shstrtabOffset = dynamicEnd;
  outSections[shstrtabIndex]!.size = shstrtabBytes.length;
  const shoff = alignUp(shstrtabOffset + shstrtabBytes.length, 8);
  const fileSize = shoff + outSections.length * SECTION_HEADER_SIZE;

  const out = new Uint8Array(fileSize);
  const view = new DataView(out.buffer);
  out.set(image.subarray(textAddr), textAddr);
  out.set(dynsym, dynsymAddr);
  out.set(dynstrBytes, dynstrAddr);
  out.set(relDyn, relDynAddr);
  out.set(dynamic, dynamicAddr);
  out.set(shstrtabBytes, shstrtabOffset);

  // ELF header.
  out.set(ELF_MAGIC, 0);
  out[4] = ELFCLASS64;
  out[5] = ELFDATA2LSB;
  out[6] = EV_CURRENT;
  view.setUint16(16, ET_DYN, true);
  view.setUint16(18, EM_BPF, true);
  view.setUint32(20, EV_CURRENT, true);
  view.setBigUint64(24, BigInt(entryAddr), true);
  view.setBigUint64(32, BigInt(ELF_HEADER_SIZE), true);
  view.setBigUint64(40, BigInt(shoff), true);
  view.setUint32(48, 0, true); // e_flags 0: SBPF v0
  view.setUint16(52, ELF_HEADER_SIZE, true);
  view.setUint16(54, PROGRAM_HEADER_SIZE, true);
  view.setUint16(56, programHeaderCount, true);
  view.setUint16(58, SECTION_HEADER_SIZE, true);
  view.setUint16(60, outSections.length, true);
  view.setUint16(62, shstrtabIndex, true);

  // Program headers: code, read-only data, the dynamic-linking tables, and PT_DYNAMIC.
  const segments: Array<[number, number, number, number]> = [[PT_LOAD, PF_R | PF_X, textAddr, text.size]];
  if (hasRodata) segments.push([PT_LOAD, PF_R, rodataAddr, rodata.size]);
  segments.push([PT_LOAD, PF_R, dynsymAddr, dynamicEnd - dynsymAddr], [PT_DYNAMIC, PF_R, dynamicAddr, dynamic.length]);
  segments.forEach(([type, flags, addr, size], i) => {
    const at = ELF_HEADER_SIZE + i * PROGRAM_HEADER_SIZE;
    view.setUint32(at, type, true);
    view.setUint32(at + 4, flags, true);
    view.setBigUint64(at + 8, BigInt(addr), true); // p_offset == p_vaddr == p_paddr
    view.setBigUint64(at + 16, BigInt(addr), true);
    view.setBigUint64(at + 24, BigInt(addr), true);
    view.setBigUint64(at + 32, BigInt(size), true);
    view.setBigUint64(at + 40, BigInt(size), true);
    view.setBigUint64(at + 48, 8n, true);
  });

  outSections.forEach((s, i) => {
    const at = shoff + i * SECTION_HEADER_SIZE;
    const offset = i === shstrtabIndex ? shstrtabOffset : s.addr;
    view.setUint32(at, nameOffsets[i]!, true);
    view.setUint32(at + 4, s.type, true);
    view.setBigUint64(at + 8, BigInt(s.flags), true);
    view.setBigUint64(at + 16, BigInt(s.addr), true);
    view.setBigUint64(at + 24, BigInt(offset), true);
    view.setBigUint64(at + 32, BigInt(s.size), true);
    view.setUint32(at + 40, s.link, true);
    view.setUint32(at + 44, s.info, true);
    view.setBigUint64(at + 48, BigInt(s.align), true);
    view.setBigUint64(at + 56, BigInt(s.entsize), true);
  });

  return {
    elf: out,
    syscalls: syscallNames,
    textSize: text.size,
    rodataSize: rodata.size,
    relocationCount: dynamicRelocations.length,
  };
}

// ---------------------------------------------------------------------------------------------------
// CLI

function main(argv: string[]): void {
  const [inputPath, outputPath] = argv;
  if (!inputPath || !outputPath) {
    process.stderr.write("usage: postlink.ts <input.o> <output.so>\n");
    process.exit(2);
  }
  try {
    const result = linkSbfObject(new Uint8Array(readFileSync(inputPath)));
    writeFileSync(outputPath, result.elf);
    process.stdout.write(
      `postlink: ${outputPath}: text ${result.textSize} B, rodata ${result.rodataSize} B, ` +
        `${result.relocationCount} relocations, syscalls ${result.syscalls.join(" ") || "(none)"}\n`,
    );
  } catch (error) {
    if (error instanceof PostLinkError) {
      process.stderr.write(`postlink: ${inputPath}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main(process.argv.slice(2));
}
