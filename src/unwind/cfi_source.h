// CfiSource: the call-frame information of one DsoModule, read with libdw: the
// runtime image's .eh_frame (indexed by .eh_frame_hdr when present; what the program
// itself unwinds with), then the debug file's .debug_frame for pcs .eh_frame does not
// cover (perf's libunwind order). Both are opened on first use. FindRow compiles the
// row covering a pc into a CfiRow (cfi_row.h), which the unwinder caches.
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

  // Compiles the row covering `dso_vaddr` for an arch with `nregs` tracked registers
  // into *row. Thread-safe. Each (dso_vaddr, nregs) is looked up in libdw once: the
  // result is kept (at most kMaxKeptRows rows, ~1.3 KB each), so that the unwinders'
  // own caches (one per thread, direct-mapped) miss into it, not into libdw.
  CfiFind FindRow(uint64_t dso_vaddr, int nregs, CfiRow* row) const;
  static constexpr size_t kMaxKeptRows = 16384;

 private:
  struct Section {
    int fd = -1;
    Elf* elf = nullptr;
    Dwarf* dwarf = nullptr;     // .debug_frame only
    Dwarf_CFI_s* cfi = nullptr;
    bool opened = false;
  };
  void OpenEh() const;
  void OpenDebug() const;
  CfiFind FindRowInLibdw(uint64_t dso_vaddr, int nregs, CfiRow* row) const;  // mu_ held

  struct Kept {
    CfiFind found;
    CfiRow row;
  };
  std::string runtime_path_, debug_path_;
  mutable std::mutex mu_;
  mutable Section eh_, debug_;  // guarded by mu_
  mutable std::unordered_map<uint64_t, std::unique_ptr<Kept>> kept_;  // (dso_vaddr, nregs); guarded by mu_
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
