// jitdump (jit-<pid>.dump): the binary log a JIT runtime writes of the code it emits
// (tools/perf/Documentation/jitdump-specification.txt, spec B9.1). The runtime maps the
// file PROT_EXEC once so that the recording names it (the marker, IsJitdumpMarker);
// the Symbolizer then reads it directly for that process's JIT map (DsoKind::kJitMap),
// so samples in its anonymous executable memory get names without `perf inject --jit`
// (README "differs on purpose").
//
// Layout (all integers in the writer's byte order, which the magic tells):
//   file header, 40 bytes: u32 magic 0x4A695444 ("JiTD"; read as 0x4454694A when the
//     writer's byte order differs), u32 version, u32 total_size (header bytes; records
//     start there), u32 elf_mach, u32 pad, u32 pid, u64 timestamp, u64 flags.
//   records: u32 id, u32 total_size (bytes, header included), u64 timestamp, body:
//     0 CODE_LOAD  u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size,
//                  u64 code_index, name NUL-terminated, code bytes (the record's last
//                  code_size bytes).
//     1 CODE_MOVE  u32 pid, u32 tid, u64 vma, u64 old_code_addr, u64 new_code_addr,
//                  u64 code_size, u64 code_index.
//     2 DEBUG_INFO, 3 CODE_CLOSE, 4 UNWINDING_INFO: skipped (no symbols).
// Addresses (code_addr, new_code_addr) are absolute process addresses: the anonymous
// map the code lives in is an identity map, so the table is used with the ip itself.
// Example: CODE_LOAD code_addr 0x7f5e00401000 code_size 0x40 name "Interp::add" →
// symbol [0x7f5e00401000, 0x7f5e00401040) "Interp::add"; a later CODE_MOVE of its
// code_index to 0x7f5e00402000 adds [0x7f5e00402000, 0x7f5e00402040) "Interp::add".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "symbolize/symbol_table.h"

namespace perflens {

inline constexpr uint32_t kJitdumpMagic = 0x4A695444;  // "JiTD" in the writer's order
inline constexpr size_t kJitdumpHeaderSize = 40;       // bytes of the version-1 header

struct Jitdump {
  // From the file header.
  uint32_t version = 0;
  uint32_t elf_mach = 0;  // ELF e_machine of the code
  uint32_t pid = 0;       // the writing process; callers check it against the marker's
  uint64_t flags = 0;     // bit 0: timestamps are arch ticks (TSC), not perf clock
  bool swapped = false;   // written in the other byte order
  // Symbols at absolute process addresses, Finish() applied. Like the perf map
  // (perf_map.h), an address resolves to the newest CODE_LOAD/CODE_MOVE covering it.
  SymbolTable symbols;
  size_t code_loads = 0;  // CODE_LOAD records turned into symbols
  size_t code_moves = 0;  // CODE_MOVE records turned into symbols
  // Records that could not be used: a record header past the end of the file, a
  // total_size below 16 or past the end of the file (the rest of the file is then
  // unreadable and counts as one), a body shorter than its fields, a name without NUL
  // before the code bytes, a code_size larger than the record, a CODE_MOVE of an
  // unknown code_index.
  size_t bad_records = 0;
};

// True when `filename` (a recorded MMAP name) is the jitdump marker of process `pid`, as
// perf's jit_detect: its basename is "jit-<pid>.dump" with this very pid.
// "/home/u/.debug/jit/x/jit-77.dump" for pid 77 → true; for pid 78 → false.
bool IsJitdumpMarker(std::string_view filename, uint32_t pid);

// Parses a whole jitdump held in `bytes`. Sizes claimed by the file are checked against
// bytes.size() before use and never allocate. Errors (the file is not a jitdump): fewer
// than 40 bytes, bad magic, a header total_size below 40 or past the end. Damaged records
// are counted in bad_records instead.
Result<Jitdump> ParseJitdump(std::span<const uint8_t> bytes);

// Maps `path` (a regular file) and parses it. Errors: not openable or not regular, and
// ParseJitdump's.
Result<Jitdump> ReadJitdump(const std::string& path);

}  // namespace perflens
