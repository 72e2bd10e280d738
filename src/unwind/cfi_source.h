// CfiSource: the call-frame information of one DsoModule, read with libdw: the
// runtime image's .eh_frame (indexed by .eh_frame_hdr when present; what the program
// itself unwinds with), then the debug file's .debug_frame for pcs .eh_frame does not
// cover (perf's libunwind order). Both are opened on first use. FindRow compiles the
// row covering a pc into a CfiRow (cfi_row.h), kept for the pcs of its range; the
// unwinder caches pointers to kept rows.
//
// Address space: `dso_vaddr`, the link-time address CFI is written in
// (DsoModule::ToDsoVaddr of the file offset Map::MapIp gives). Example: libc mapped at
// start 0x7f0000028000 pgoff 0x28000, pc 0x7f00000291a0 → file_offset 0x291a0 → its
// text PT_LOAD (p_offset == p_vaddr) → dso_vaddr 0x291a0.
//
// Threads: libdw's Dwarf_CFI (elfutils 0.188) fills caches while it answers, so one
// mutex per source serializes FindRow; sources of different modules run side by side.
// The unwinder calls it only on a cache miss.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "symbolize/dso_module.h"
#include "unwind/cfi_row.h"

struct Dwarf;
struct Dwarf_CFI_s;
struct Elf;

namespace perflens {

enum class CfiFind : uint8_t {
  kFound,
  kNoImage,      // the module has no runtime image to read (load failed, no file)
  kNoCfi,        // no FDE covers the pc in either section
  kUnsupported,  // an FDE covers it, but its rules use something CfiRow cannot hold
};

class CfiSource {
 public:
  // `runtime_path`: the ELF whose .eh_frame is read ("" for none); `debug_path`: the
  // file for .debug_frame ("" or the same path: only the runtime image is read).
  CfiSource(std::string runtime_path, std::string debug_path);
  ~CfiSource();
  CfiSource(const CfiSource&) = delete;
  CfiSource& operator=(const CfiSource&) = delete;

  // The row covering `dso_vaddr` for an arch with `nregs` tracked registers.
  // Thread-safe. `row` points to a row this source keeps (`stable`: valid, unchanged,
  // as long as the source lives) or, past the keeping limits, to *scratch, which it
  // filled; nullptr unless found is kFound. Each row is looked up in libdw once and
  // then serves the pcs of its range that are looked up later, so the
  // unwinders' own caches (one per thread, direct-mapped, of pointers) miss into a
  // map, not into libdw. At most kMaxKeptRows rows (~1.1 KB each) and kMaxKeptPcs pcs.
  struct Lookup {
    CfiFind found = CfiFind::kNoCfi;
    const CfiRow* row = nullptr;
    bool stable = false;
  };
  Lookup Find(uint64_t dso_vaddr, int nregs, CfiRow* scratch) const;
  // Find, copied into *row.
  CfiFind FindRow(uint64_t dso_vaddr, int nregs, CfiRow* row) const;
  static constexpr size_t kMaxKeptRows = 16384;
  static constexpr size_t kMaxKeptPcs = size_t{1} << 17;

 private:
  struct Section {
    int fd = -1;
    Elf* elf = nullptr;
    Dwarf* dwarf = nullptr;     // .debug_frame only
    Dwarf_CFI_s* cfi = nullptr;
    bool opened = false;
  };
  // A compiled row and the pcs known to have it: [start, end), start the lowest pc it
  // was looked up for, end where the next row starts (start == end: only the pc it was
  // looked up for, when libdw gave no usable end).
  struct Kept {
    CfiFind found;
    bool from_debug;  // the row is .debug_frame's (else .eh_frame's)
    uint64_t start, end;
    CfiRow row;
  };
  struct PcEntry {
    CfiFind found;
    const Kept* kept;  // nullptr for a result without a row
  };
  void OpenEh() const;
  void OpenDebug() const;
  // libdw's answer for dso_vaddr into *row, with the end of the row's range and
  // which section it came from; mu_ held.
  CfiFind FindRowInLibdw(uint64_t dso_vaddr, int nregs, CfiRow* row, uint64_t* end, bool* from_debug) const;

  std::string runtime_path_, debug_path_;
  mutable std::mutex mu_;
  mutable Section eh_, debug_;  // guarded by mu_
  // All guarded by mu_; kept_ is a deque so that rows never move.
  mutable std::deque<Kept> kept_;
  mutable std::map<std::pair<int, uint64_t>, Kept*> by_end_;  // (nregs, end) of a ranged kept row
  mutable std::unordered_map<uint64_t, PcEntry> by_pc_;               // (dso_vaddr, nregs) looked up
};

// The CfiSource of each DsoModule, created on first use and kept as long as this
// registry (which must not outlive the Symbolizer owning the modules). Thread-safe;
// the returned source is stable.
class CfiSources {
 public:
  const CfiSource* For(const DsoModule& module);

 private:
  std::mutex mu_;
  std::unordered_map<const DsoModule*, std::unique_ptr<CfiSource>> sources_;
};

}  // namespace perflens
