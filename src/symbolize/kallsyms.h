// Kernel symbols from a kallsyms text file (/proc/kallsyms format:
// "ffffffff81000000 T _text" and "ffffffffc0a01000 t foo\t[xfs]").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "symbolize/symbol_table.h"

namespace perflens {

struct KallsymsTables {
  SymbolTable kernel;                          // absolute addresses
  std::map<std::string, SymbolTable> modules;  // "[xfs]" → its symbols (absolute)
  uint64_t ref_addr = 0;                       // address of the reference symbol, 0 if absent
  bool all_zero = true;                        // kptr_restrict: every address read as 0
};

// Parses kallsyms text. Keeps T/t, W/w, D/d, B/b (perf's symbol_type__filter).
// `ref_symbol` ("_text") names the KASLR anchor whose address goes to ref_addr.
// `delta` is added to every address (recorded anchor − this file's anchor, perf's
// kallsyms__delta). Errors: no parsable line.
Result<KallsymsTables> ParseKallsyms(std::string_view text, std::string_view ref_symbol, int64_t delta = 0);

// The running kernel's build-id from /sys/kernel/notes (NT_GNU_BUILD_ID), empty if none.
std::string RunningKernelBuildIdHex();

}  // namespace perflens
