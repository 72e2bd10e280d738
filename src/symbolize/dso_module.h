// DsoModule: everything symbolization knows about one Dso, built once by the Symbolizer
// (LLVM Symbolize's SymbolizableModule shape): the load outcome, the file(s) it came
// from, the symbol table, the ELF PT_LOAD segments (file_offset <-> dso_vaddr) and a
// libdw handle opened on first use. It answers "the frames at this address".
//
// Address space of `dso_addr` (the table key, what Map::MapIp hands out), by DsoKind:
//   kUser, kVdso*        file_offset: byte offset in the DSO file (ip - start + pgoff);
//                        symbols were converted from st_value through the PT_LOAD.
//   kKernel              absolute kernel address (KASLR shift applied to the symbols).
//   kKernelModule        module_offset: ip - (map start - pgoff) of the module's map.
//   kJitMap, kKsymbol    the ip itself (identity maps).
// DWARF, line tables and CFI use dso_vaddr: convert with ToDsoVaddr first.
//
// Threads: a module is immutable once the Symbolizer publishes it; every const member
// may be called from any number of threads without locking. dwarf() opens the handle
// once (std::call_once) and then only reads.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "symbolize/elf_segments.h"
#include "symbolize/source_line.h"
#include "symbolize/symbol_frames.h"
#include "symbolize/symbol_table.h"

struct Dwarf;  // elfutils libdw, kept out of the header

namespace perflens {

class DwarfIndex;  // symbolize/dwarf_index.h

enum class LoadStatus {
  kNotLoaded,
  kLoaded,            // symbols found (possibly zero of them)
  kNotFound,          // no candidate file exists
  kBuildIdMismatch,   // candidates exist but none has the recorded build-id
  kNoSymbols,         // found, but without .symtab/.dynsym
  kError,             // malformed file etc.
};

struct DsoLoadInfo {
  LoadStatus status = LoadStatus::kNotLoaded;
  std::string path;     // file the symbols came from
  // perf's dso__symtab_origin letter for where they came from (SymtabOrigin in
  // debug_file_finder.h): 'B' build-id cache, 'k' kallsyms, 'j' a JIT map... '!' none.
  char symtab_origin = '!';
  std::string message;  // why not, naming the build-id needed and the places looked in
};

class DsoModule {
 public:
  // What a loader fills in before the module is built (symbolizer.cc).
  struct Parts {
    DsoLoadInfo info;
    SymbolTable owned;                      // the table, unless shared is set
    const SymbolTable* shared = nullptr;    // a table owned by the Symbolizer (kallsyms)
    ElfSegments segments;                   // empty for non-ELF modules
    std::string runtime_path;               // ELF image the segments came from
    std::string dwarf_path;                 // ELF file dwarf() and the DwarfIndex open; "" for none
    bool demangle = true;                   // inline frame names, as the symbols were
    bool demangle_params = false;           // likewise (perf's -v)
    // When dwarf_path has no DWARF (.debug_info): called once, on the first dwarf() or
    // dwarf_index(), for a file of the same build-id that has it (the Symbolizer's
    // debuginfod debug file); returns its path, or "" for none. May be empty.
    std::function<std::string()> fetch_debug_file;
  };
  // A module with no symbols has info.status != kLoaded and answers nothing.
  explicit DsoModule(Parts parts);
  ~DsoModule();
  DsoModule(const DsoModule&) = delete;
  DsoModule& operator=(const DsoModule&) = delete;

  const DsoLoadInfo& info() const { return info_; }
  // The table (in the space above), or nullptr when none was loaded.
  const SymbolTable* symbols() const { return table_; }

  // The symbol covering `dso_addr` (space above), or nullptr. The hot path: one
  // binary search, no locks, no allocation.
  const Symbol* FindSymbol(uint64_t dso_addr) const { return table_ ? table_->Find(dso_addr) : nullptr; }
  // The frames at `dso_addr` (space above), innermost first; empty when no symbol
  // covers it (perf adds no inline frames without a symbol either). Without DWARF (no
  // ELF file, or it has none: after the first call, no libdw call and no allocation)
  // one frame, the symbol, with no line. With DWARF, one frame per function inlined at
  // the address and one for the function the symbol stands for (inline_depth 0), each
  // with its line, named as perf 6.1 names them (dwarf_index.h). Example, an -O2 C++
  // `std::function` call at dso_vaddr 0x1210 (tests/symbolize/inline_frames_test.cc):
  //   mix (inlined) prog.cc:6, step (inlined) prog.cc:9, Acc<unsigned int>::add
  //   (inlined) prog.cc:14, ..., _M_invoke (inlined) std_function.h:290 — that last one
  //   at depth 0 is DWARF's name for `std::_Function_handler<...>::_M_invoke`, which
  //   has no linkage name, so perf shows it as inlined; FindSymbol gives the ELF one.
  // The first call that needs a compile unit reads it (see DwarfIndex); later calls are
  // binary searches.
  SymbolFrames FramesAt(uint64_t dso_addr) const;
  // The source line of the innermost location at `dso_addr` (space above), as perf's
  // srcline sort key and `script -F srcline` show it; !known() without line info there.
  // Needs no symbol. Same costs as FramesAt.
  SourceLine FindSourceLine(uint64_t dso_addr) const;

  // The module's line tables and inline trees, opened on the first call (from any
  // thread); nullptr when there is no ELF file or it has no usable DWARF
  // (line_info_error() says why). Owned by the module.
  const DwarfIndex* dwarf_index() const;
  // Why dwarf_index() is nullptr ("" when it is not, or it was never asked for).
  // Symbolizer::LineInfoProblems() summarizes these once per report.
  const std::string& line_info_error() const;
  // The parts of the DWARF the open index skipped as unreadable (DwarfIndex::problem(),
  // naming the file); "" when there are none or no index is open (never opens one).
  std::string line_info_problem() const;
  // Whether dwarf_index() was asked for and failed; false before it was asked.
  bool line_info_failed() const { return line_state_.load(std::memory_order_acquire) == kLineFailed; }

  // PT_LOAD segments of the runtime image (ELF modules only; empty otherwise).
  const ElfSegments& segments() const { return segments_; }
  // file_offset -> dso_vaddr through the PT_LOAD holding it; nullopt outside every
  // segment, and always for non-ELF modules.
  std::optional<uint64_t> ToDsoVaddr(uint64_t file_offset) const { return segments_.ToDsoVaddr(file_offset); }
  // dso_vaddr -> file_offset; nullopt outside every segment.
  std::optional<uint64_t> ToFileOffset(uint64_t dso_vaddr) const { return segments_.ToFileOffset(dso_vaddr); }

  // The file the symbols came from (info().path) and the loaded image whose program
  // headers were used (may be the same file; "" for non-ELF modules).
  const std::string& symbols_path() const { return info_.path; }
  const std::string& runtime_path() const { return runtime_path_; }

  // The libdw handle of the symbols file (the debug file when one was found), opened
  // on the first call from any thread; nullptr when the module has no ELF file or the
  // file has no DWARF (dwarf_error() says why). Owned by the module.
  Dwarf* dwarf() const;
  // Why dwarf() returned nullptr ("" when it did not). Call after dwarf().
  const std::string& dwarf_error() const { return dwarf_error_; }

 private:
  void OpenDwarf() const;
  void OpenIndex() const;
  // The file dwarf() and the index open: dwarf_path_, or when that has no DWARF what
  // fetch_debug_file_ gives (decided once, on first use, from any thread).
  const std::string& DwarfOpenPath() const;
  enum : uint8_t { kLineNotAsked, kLineOk, kLineFailed };

  DsoLoadInfo info_;
  SymbolTable owned_;
  const SymbolTable* table_ = nullptr;
  ElfSegments segments_;
  std::string runtime_path_;
  std::string dwarf_path_;
  std::function<std::string()> fetch_debug_file_;
  mutable std::once_flag dwarf_open_path_once_;
  mutable std::string dwarf_open_path_;  // written once inside that once, read only after it
  // Written once inside dwarf_once_, read only after it.
  mutable std::once_flag dwarf_once_;
  mutable Dwarf* dwarf_ = nullptr;
  mutable int dwarf_fd_ = -1;
  mutable std::string dwarf_error_;
  bool demangle_ = true;
  bool demangle_params_ = false;
  // Written once inside index_once_, read only after it (line_state_ publishes it to
  // threads that did not run the once).
  mutable std::once_flag index_once_;
  mutable std::unique_ptr<DwarfIndex> index_;
  mutable std::string index_error_;
  mutable std::atomic<uint8_t> line_state_{kLineNotAsked};
};

}  // namespace perflens
