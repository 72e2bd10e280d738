// DwarfIndex: the line tables and inlined-call trees of one ELF file's DWARF (4 or 5),
// copied out of libdw into sorted arrays so that a lookup is a few binary searches on
// immutable data, with no libdw call and no lock once its compile unit is read.
//
// Every address here is a dso_vaddr (link-time address, what DWARF uses); DsoModule
// converts its dso_addr (file_offset for ELF DSOs) with ToDsoVaddr first.
//
// Split DWARF (-gsplit-dwarf): a skeleton unit's ranges and line table are read from the
// file, its inline scopes from the split unit libdw finds in the .dwo (by DW_AT_dwo_name
// and DW_AT_comp_dir, checked by DWO id); without the .dwo, lines only.
//
// Reading is lazy and done once: Open lists the compile units and their address ranges
// (CU DIE DW_AT_ranges / low_pc+high_pc); a CU's line table (DW_AT_stmt_list) and its
// tree of DW_TAG_subprogram → DW_TAG_inlined_subroutine ranges are read the first time an
// address inside it is looked up (std::call_once per CU). libdw 0.188 is not safe for
// concurrent use of one Dwarf*, so the index owns its own handle and every libdw call
// happens under one mutex while a CU is read; lookups of read CUs take no lock.
//
// Inline frames get Symbol identities that rows can be keyed by: one Symbol per
// (ELF symbol the inlined code lies in, function name) — perf's identity for inline
// entries (sort__sym_cmp: name and start) — interned while a CU is read, owned by the
// index, never moved, with Symbol::inlined set, start/end/binding/type of the ELF symbol
// (so "mix+0x20" is an offset from the ELF symbol's start, as perf prints it) and an
// index from `Options::first_symbol_index` upwards, distinct from the table's.
//
// Names are the ones perf 6.1 prints (it runs binutils `addr2line -i -f` and demangles
// each name): the DIE's DW_AT_linkage_name (through DW_AT_abstract_origin /
// DW_AT_specification) demangled like perf, else its DW_AT_name ("operator()",
// "__invoke_impl<unsigned int, ...>", C names). A frame whose name equals its ELF
// symbol's name is that ELF Symbol itself (perf's new_inline_sym reuses base_sym).
// binutils names an innermost function that has no linkage name in a C++ CU (a C++
// `static inline`, a lambda's operator()) by the ELF symbol holding the address the
// first time it is asked about that DIE, and for good when that symbol starts at the
// function's first address (a lambda inlined as the whole body of std::function's
// _M_invoke); else by its DW_AT_name afterwards. perflens gives the DW_AT_name, except
// for an address directly in such a subprogram (no inlining there) and for an innermost
// inlined one whose first range starts at an ELF symbol: that frame is the ELF Symbol.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/result.h"
#include "symbolize/source_line.h"
#include "symbolize/symbol_table.h"

struct Dwarf;
struct Elf;  // libelf.h

namespace perflens {

class SymbolFrames;

class DwarfIndex {
 public:
  struct Options {
    bool demangle = true;              // demangle linkage names (perf's --no-demangle: false)
    bool demangle_params = false;      // with their parameters (perf's -v)
    uint32_t first_symbol_index = 0;   // Symbol::index of the first interned inline symbol
  };
  // The ELF symbol covering a dso_vaddr, or nullptr: the module's table behind a
  // ToFileOffset. Called only while a CU is read (under the index's mutex).
  using SymbolAt = std::function<const Symbol*(uint64_t dso_vaddr)>;

  // Opens `path` with libdw and lists its compile units. An error when the file cannot
  // be opened, has no DWARF, or no compile unit with an address range (message names
  // the path: "prog: no DWARF (file has no .debug_info)").
  static Result<std::unique_ptr<DwarfIndex>> Open(const std::string& path, SymbolAt symbol_at, Options options);
  ~DwarfIndex();
  DwarfIndex(const DwarfIndex&) = delete;
  DwarfIndex& operator=(const DwarfIndex&) = delete;

  // The line-table row covering `dso_vaddr` (the last row at or below it in its
  // sequence); !known() outside every sequence.
  SourceLine FindLine(uint64_t dso_vaddr) const;

  // Appends the frames at `dso_vaddr` to `out` (at most kMaxFrames), innermost first, perf 6.1's records:
  // frame k is the k-th function out from the innermost with its location there — the
  // line-table row for the innermost, the DW_AT_call_file/line/column of the next
  // inner inlined call for the others; `inline_depth` counts down to 0 at the function
  // the ELF symbol stands for. `base` is the ELF symbol at the address (never nullptr);
  // without a DWARF function covering the address, one frame: `base` with the row.
  void AppendFrames(uint64_t dso_vaddr, const Symbol* base, SymbolFrames* out) const;

  // Inline chains deeper than this (malformed or hostile DWARF) are cut: AppendFrames
  // gives at most this many frames, the outermost ones.
  static constexpr size_t kMaxFrames = 128;

  // The parts of the DWARF that could not be read and were skipped (a compile unit's
  // address ranges or line table, DIEs nested too deep, a sibling libdw refuses, more
  // range entries than the DWARF has bytes): the first one naming the file, e.g. "prog: compile unit at 0xb: line
  // table unreadable (invalid DWARF)", plus " (and 2 more)"; "" while none. Lookups
  // there give what could be read (no line, fewer frames). Grows as CUs are read.
  std::string problem() const;

  // How many inline symbols have been interned so far (grows as CUs are read).
  size_t inline_symbol_count() const;
  size_t compile_unit_count() const { return cus_.size(); }

  // The compile units' address ranges as Open listed them, sorted by lo (ranges of
  // distinct CUs may overlap in bad DWARF; FindCu takes the last one starting at or
  // below an address).
  struct CuRange {
    uint64_t lo, hi;  // [lo, hi) in dso_vaddr
    uint32_t cu;      // index of the compile unit
  };
  std::span<const CuRange> compile_unit_ranges() const { return ranges_; }

  struct Cu;  // one compile unit's tables (dwarf_index.cc)

 private:
  DwarfIndex() = default;
  const Cu* FindCu(uint64_t dso_vaddr) const;
  void ReadCu(Cu& cu) const;  // under mu_

  void NoteProblem(std::string what) const;  // under mu_ (or in Open)

  std::string path_;
  Options options_;
  SymbolAt symbol_at_;
  int fd_ = -1;                 // -1 when elf_ is an image
  Elf* elf_ = nullptr;         // the Dwarf's ELF: an image of the inflated sections, or the file
  std::unique_ptr<char[]> image_;  // elf_'s bytes when it is an image (InflatedDebugImage)
  Dwarf* dwarf_ = nullptr;     // used only under mu_
  std::vector<CuRange> ranges_;  // sorted by lo
  std::vector<std::unique_ptr<Cu>> cus_;

  // Guards libdw and the intern tables below while a CU is read.
  mutable std::mutex mu_;
  mutable std::unordered_set<std::string> strings_;  // names and paths; nodes never move
  mutable std::deque<Symbol> inline_symbols_;         // never moves
  mutable std::map<std::pair<const Symbol*, std::string_view>, const Symbol*> interned_;
  mutable std::atomic<size_t> inline_symbol_count_{0};
  // Range-list entries still to be read (Open and ReadCu count them): the debug
  // sections' size, so that DIEs sharing one long list cannot cost DIEs x entries.
  mutable uint64_t ranges_left_ = 0;
  mutable std::string first_problem_;  // without the path
  mutable size_t problems_ = 0;
};

}  // namespace perflens
