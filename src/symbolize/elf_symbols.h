// ELF symbol loading through elfutils libelf (spec B5.3).
#pragma once

#include <cstdint>
#include <string>

#include "base/build_id.h"
#include "base/result.h"
#include "symbolize/elf_segments.h"
#include "symbolize/symbol_table.h"

namespace perflens {

enum class ElfClass : uint8_t { kUnknown, k32, k64, kX32 };

struct ElfInfo {
  BuildId build_id;        // from .note.gnu.build-id / any NT_GNU_BUILD_ID note; empty if none
  ElfClass elf_class = ElfClass::kUnknown;
  bool has_symtab = false;
  bool has_dynsym = false;
  bool has_debug_info = false;  // a .debug_info (or .zdebug_info) with contents: DWARF
  std::string debuglink;   // .gnu_debuglink file name, empty if none
  uint16_t e_type = 0;     // ET_EXEC, ET_DYN, ...
};

// Reads the identity of an ELF file (build-id, class, which symbol tables it has,
// debuglink). Errors: not openable, not a regular file, larger than the size limit,
// not ELF, malformed headers. Never blocks on FIFOs/devices.
Result<ElfInfo> ReadElfInfo(const std::string& path);

struct ElfSymbolOptions {
  bool demangle = true;  // C++ names as perf's default output shows them
  bool demangle_params = false;  // ... with their parameters, as perf -v shows them
  // Synthesize `name@plt` symbols from .rela.plt/.plt/.plt.sec (needs the runtime image).
  bool synthesize_plt = true;
  // Kernel images keep section-relative absolute addresses instead of file offsets.
  bool kernel = false;
};

// Loads the symbols of `syms_path` (the file with .symtab, maybe a debug file) using the
// program headers of `runtime_path` (the loaded image; may equal syms_path) to convert
// st_value (dso vaddr) into file offsets: offset = st_value - (p_vaddr - p_offset) of the
// PT_LOAD containing it. Example: PIE with PT_LOAD p_vaddr 0x1000 p_offset 0x1000 →
// main at st_value 0x1139 is at file offset 0x1139; a non-PIE ET_EXEC with p_vaddr
// 0x401000 p_offset 0x1000 → st_value 0x401136 is file offset 0x1136.
// Accepts STT_FUNC/STT_GNU_IFUNC/STT_OBJECT, and NOTYPE labels in text/data sections, as
// perf; drops SHN_ABS, non-SHF_ALLOC sections and ARM mapping symbols. A st_value in no
// PT_LOAD is converted through its section (sh_offset − sh_addr). Errors: a file not
// openable/regular/ELF or over 2 GiB, a section table past the end of the file,
// neither .symtab nor .dynsym, a kernel image without .symtab, a symbol table linked
// to something other than a string table.
Result<SymbolTable> LoadElfSymbols(const std::string& syms_path, const std::string& runtime_path,
                                   const ElfSymbolOptions& options);

// What a DSO module keeps of its ELF files: the symbols (file_offset space, as
// LoadElfSymbols) and the PT_LOAD segments they were converted through — the runtime
// image's, or the symbol file's when the runtime image has none. Same errors as
// LoadElfSymbols. With options.kernel the symbols stay in st_value space; the
// segments are still the image's.
struct ElfImage {
  SymbolTable symbols;
  ElfSegments segments;
};
Result<ElfImage> LoadElfImage(const std::string& syms_path, const std::string& runtime_path,
                              const ElfSymbolOptions& options);

}  // namespace perflens
