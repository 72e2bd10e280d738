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
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "symbolize/elf_segments.h"
#include "symbolize/symbol_table.h"

struct Dwarf;  // elfutils libdw, kept out of the header

namespace perflens {

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
  std::string message;  // why not, naming the build-id needed and the places looked in
};

// One frame at an address. Today always the ELF/kallsyms symbol (inline_depth 0);
// inlined calls will come as more frames with depth 1, 2, … inside it.
struct SymbolFrame {
  const Symbol* sym = nullptr;  // never nullptr in a FramesAt result
  uint32_t inline_depth = 0;    // 0: the symbol itself; n: the n-th inlined call in it
  // Room for the source line (file, line, column) once line tables are read.
};

// The frames at one address, innermost first, the symbol itself last. Small: up to
// kInlineFrames live in the object, more spill to the heap.
class SymbolFrames {
 public:
  static constexpr size_t kInlineFrames = 4;
  void push_back(const SymbolFrame& frame) {
    if (spill_.empty() && size_ < kInlineFrames) {
      inline_[size_++] = frame;
      return;
    }
    if (spill_.empty()) spill_.assign(inline_.begin(), inline_.begin() + size_);
    spill_.push_back(frame);
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const SymbolFrame* begin() const { return spill_.empty() ? inline_.data() : spill_.data(); }
  const SymbolFrame* end() const { return begin() + size_; }
  const SymbolFrame& operator[](size_t i) const { return begin()[i]; }

 private:
  std::array<SymbolFrame, kInlineFrames> inline_{};
  uint32_t size_ = 0;
  std::vector<SymbolFrame> spill_;
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
    std::string dwarf_path;                 // ELF file dwarf() opens; "" for none
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
  // covers it. One frame today (the symbol, inline_depth 0).
  SymbolFrames FramesAt(uint64_t dso_addr) const;

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

  DsoLoadInfo info_;
  SymbolTable owned_;
  const SymbolTable* table_ = nullptr;
  ElfSegments segments_;
  std::string runtime_path_;
  std::string dwarf_path_;
  // Written once inside dwarf_once_, read only after it.
  mutable std::once_flag dwarf_once_;
  mutable Dwarf* dwarf_ = nullptr;
  mutable int dwarf_fd_ = -1;
  mutable std::string dwarf_error_;
};

}  // namespace perflens
