// /tmp/perf-PID.map: JIT symbols written by runtimes, one per line:
// "<start hex> <size hex> <name with spaces>" with optional 0x prefixes (spec B9.2).
#pragma once

#include <string_view>

#include "base/result.h"
#include "symbolize/symbol_table.h"

namespace perflens {

// Parses perf-map text into absolute-address symbols (Finish() already applied).
// Malformed lines are skipped and counted in *bad_lines (may be null).
SymbolTable ParsePerfMap(std::string_view text, size_t* bad_lines);

}  // namespace perflens
