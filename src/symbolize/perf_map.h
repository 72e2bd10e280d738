// /tmp/perf-PID.map: JIT symbols written by runtimes, one per line:
// "<start hex> <size hex> <name with spaces>" with optional 0x prefixes (spec B9.2).
// Addresses are absolute process addresses (the anon map is an identity map).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "symbolize/symbol_table.h"

namespace perflens {

// One JIT symbol as a runtime announced it: absolute process addresses [start,
// start + size) (bytes; size 0 = up to the next symbol, set by Finish), name viewed in
// the caller's buffer (copied by the table).
struct JitSymbolEntry {
  uint64_t start, size;
  std::string_view name;
};

// Adds `entries`, oldest first (file order), to `table` so that each address resolves
// to the newest entry covering it; an older entry keeps only the parts of its range no
// newer entry covers. A zero-size entry claims its start byte only and is dropped when a
// newer one covers that byte. Ranges that would wrap past 2^64 end there. Shared by the
// perf map and the jitdump (jitdump.h). Call table->Finish() afterwards.
void AddNewestFirst(std::span<const JitSymbolEntry> entries, SymbolTable* table);

// Parses perf-map text into absolute-address symbols (Finish() already applied), as
// perf's dso__load_perf_map: numbers parsed like strtoull(…, 16), one separator after
// each, the name is the rest of the line. Unlike perf, CR and trailing blanks are
// stripped, and 1–2 character names are kept. Example: "0x7f00001000 40 Lfoo bar" →
// [0x7f00001000, 0x7f00001040) "Lfoo bar". Malformed lines are skipped and counted in
// *bad_lines (may be null); blank lines are ignored. A runtime appends a line each time
// it (re)compiles code at an address, so the newest line wins: an address resolves to
// the last line whose range covers it, and an older line keeps only what no later line
// covers (perf 6.1 keeps superseded names, README "differs on purpose").
SymbolTable ParsePerfMap(std::string_view text, size_t* bad_lines);

// Reads and parses a perf-map file. Errors: not openable, not a regular file, read error.
Result<SymbolTable> ReadPerfMap(const std::string& path, size_t* bad_lines);

}  // namespace perflens
