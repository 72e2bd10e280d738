// Debug sections hidden from libdw. dwarf_begin_elf inflates every compressed debug
// section it recognizes by name (elfutils libdw/dwarf_begin_elf.c, check_section),
// whether or not the caller ever reads it; in a distribution's debug file (libc6-dbg:
// 4 MB compressed, 10 MB inflated, ~120 ms of zlib here) that is most of the open.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "base/result.h"

namespace perflens {

// Gives each SHF_COMPRESSED section of `elf` for which hide(name) is true the empty
// name (string-table index 0) in the in-memory section headers, so that libdw neither
// recognizes nor inflates it. Nothing is written to the file: `elf` must come from
// elf_begin(..., ELF_C_READ_MMAP_PRIVATE or ELF_C_READ, ...) (ELF_C_READ_MMAP maps the
// headers read-only). Sections that are not compressed cost libdw nothing and stay.
// Errors: none reported (a section whose header cannot be read is left as it is).
void HideCompressedSections(Elf* elf, bool (*hide)(std::string_view name));

// Inflates the SHF_COMPRESSED ".debug_*" sections of `elf` in place (elf_compress), the
// largest on a helper thread beside the others on this one, so that dwarf_begin_elf
// finds them inflated (libdw inflates one after the other): for libc6-dbg's debug file
// .debug_info is two thirds of the bytes. libelf touches only the section's own state
// when it inflates one (elfutils libelf/elf_compress.c), so distinct sections may be
// inflated at once once the section headers are read (this reads them first). Without a
// thread, or below `parallel_from` compressed bytes in all, all on this thread. A
// section that fails to inflate is left compressed (libdw then reports it as it would).
void InflateDebugSections(Elf* elf, uint64_t parallel_from = 256u << 10);

// A new ELF file in memory (for elf_memory) with `elf`'s ".debug_*" sections that
// keep(name) selects, inflated: zlib (ELFCOMPRESS_ZLIB) with libdeflate, two to three
// times zlib's speed (libc6-dbg's 5.8 MB .debug_info: 12 ms against 34 ms here), and
// zstd (ELFCOMPRESS_ZSTD, which elfutils 0.188 cannot read) with libzstd; the largest
// on a helper thread beside the others, as InflateDebugSections. The image has the ELF
// header's identity (class, byte order, type, machine), those sections (sh_flags
// without SHF_COMPRESSED, sh_addr 0) and a section-name table; no program header.
// Layout: ELF gABI, "Section Compression" (Elf32/64_Chdr before the stream).
// Errors (the caller then opens the file as it is): a byte order other than the host's
// or a class other than 32/64 bits, a ".gnu_debugaltlink" (libdw finds the dwz file
// through the file's path, which an image lacks), GNU ".zdebug_" compression, a
// compression type other than zlib and zstd, a claimed inflated size beyond what the
// stream can give (over 1032 bytes per compressed byte, deflate's limit, or 4 GiB), a
// stream that does not inflate to exactly the claimed size, and no selected section
// that is compressed (the file's own mapping serves those better than a copy).
struct ElfImage {
  std::unique_ptr<char[]> bytes;
  size_t size = 0;
};
Result<ElfImage> InflatedDebugImage(Elf* elf, bool (*keep)(std::string_view name), uint64_t parallel_from = 256u << 10);

}  // namespace perflens
