// Dso: the identity of one binary image seen in the recording (perf's struct dso without
// the symbol table). Symbol tables hang off it lazily in src/symbolize, keyed by Dso::id,
// so the model never depends on symbolization.
//
// One Dso per (long name, build-id) — or (long name, maj/min/ino) when no build-id is
// known — so that two different files recorded under one path stay two Dsos.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/build_id.h"
#include "base/text_escape.h"

namespace perflens {

enum class DsoKind : uint8_t {
  kUser,          // a file-backed ELF in a process
  kKernel,        // [kernel.kallsyms] / [guest.kernel.kallsyms]
  kKernelModule,  // [module] or /lib/modules/.../x.ko
  kVdso,          // [vdso]
  kVdso32,        // [vdso32]
  kVdsox32,       // [vdsox32]
  kJitMap,        // /tmp/perf-PID.map for anonymous executable memory
  kKsymbol,       // BPF programs and out-of-line kernel code from PERF_RECORD_KSYMBOL
  kAnon,          // //anon, [heap], [stack] and other maps without a file
  kUnknown,
};

std::string_view DsoKindName(DsoKind kind);
bool IsVdsoKind(DsoKind kind);

class Dso {
 public:
  Dso(int id, std::string long_name, DsoKind kind);

  int id() const { return id_; }
  // As recorded: "/usr/lib/x86_64-linux-gnu/libc.so.6", "[vdso]", "[kernel.kallsyms]",
  // "/tmp/perf-1234.map".
  const std::string& long_name() const { return long_name_; }
  // long_name for printing: control bytes as "\xNN" (base/text_escape.h).
  const std::string& printable_long_name() const {
    return printable_long_name_.empty() ? long_name_ : printable_long_name_;
  }
  // perf's short name: basename for files, the bracketed name for special DSOs. For
  // printing only, so control bytes are already escaped.
  const std::string& short_name() const { return short_name_; }
  void set_short_name(std::string_view name) { short_name_ = EscapeControl(name); }
  DsoKind kind() const { return kind_; }
  bool is_kernel() const { return kind_ == DsoKind::kKernel || kind_ == DsoKind::kKernelModule || kind_ == DsoKind::kKsymbol; }

  // Recorded build-id (header table, HEADER_BUILD_ID or MMAP2); empty when unknown.
  const BuildId& build_id() const { return build_id_; }
  void set_build_id(const BuildId& id) { build_id_ = id; }

  // MMAP2 file identity (0 when unknown or when the MMAP2 carried a build-id).
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0, ino_generation = 0;

  // Created from the recorded build-id table (before any record): perf names such a
  // kernel module by its path, one first seen in an MMAP "[name]". Set once, before the
  // Dso is shared, so printers on other threads may read it.
  bool from_build_id_table() const { return from_build_id_table_; }
  void set_from_build_id_table() { from_build_id_table_ = true; }

  // For the JIT map, the pid whose /tmp/perf-PID.map holds the symbols.
  uint32_t jit_pid = 0;
  // Symbols supplied by the data itself (KSYMBOL): absolute [start, end) and name.
  struct KsymbolSymbol {
    uint64_t start, end;
    std::string name;
  };
  std::vector<KsymbolSymbol> ksymbol_symbols;

 private:
  int id_;
  std::string long_name_;
  std::string short_name_;
  std::string printable_long_name_;  // empty when long_name_ needs no escaping
  DsoKind kind_;
  bool from_build_id_table_ = false;
  BuildId build_id_;
};

// Classification of an MMAP filename as perf's map.h does (is_anon_memory,
// is_no_dso_memory, is_vdso_map).
DsoKind ClassifyUserMapName(std::string_view filename, uint32_t mmap_flags);

}  // namespace perflens
