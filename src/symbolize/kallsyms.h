// Kernel symbols from a kallsyms text file (/proc/kallsyms format:
// "ffffffff81000000 T _text" and "ffffffffc0a01000 t foo\t[xfs]").
// All addresses are absolute kernel virtual addresses (identity-mapped).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/mapped_file.h"
#include "base/result.h"
#include "symbolize/symbol_table.h"

namespace perflens {

// A kallsyms file's text: mapped when it is a regular file with a size (the build-id
// cache's copy), read otherwise (/proc/kallsyms reads as size 0).
struct KallsymsText {
  MappedFile mapped;
  std::string read;
  std::string_view text() const;
};

// What the tables' symbol names point into: the text, and the escaped copies of the
// names that had control bytes.
struct KallsymsNames {
  std::shared_ptr<const KallsymsText> text;
  std::deque<std::string> escaped;  // a deque: the names stay put as it grows
};

struct KallsymsTables {
  SymbolTable kernel;                          // absolute addresses, delta applied
  std::map<std::string, SymbolTable> modules;  // "[xfs]" → its symbols (absolute, no delta)
  uint64_t ref_addr = 0;                       // reference symbol as read (before delta), 0 if absent
  bool all_zero = true;                        // kptr_restrict: every address read as 0
};

// Parses kallsyms text as perf's dso__load_kallsyms does. Keeps T/t, W/w, D/d, B/b
// (symbol_type__filter); drops '$' names and __entry_SYSCALL_64_trampoline.
// `ref_symbol` ("_text") names the KASLR anchor whose address (first T/W/A line) goes
// to ref_addr. `delta` is added to every *kernel* symbol (recorded anchor − this file's
// anchor; perf subtracts kallsyms__delta), never to module symbols, as perf does.
// Ends: a symbol extends to the next one; the last kernel symbol before a module and
// the very last symbol get one page: end = roundup(start, 4096) + 4096. Example:
// "ffffffff81ffe010 T last" followed by module symbols → [0xffffffff81ffe010,
// 0xffffffff82000000). Every table is Finish()ed; its names point into `text`, which
// the tables keep alive (SymbolTable::Adopt). Errors: no parsable line; text over 4 GiB.
Result<KallsymsTables> ParseKallsyms(std::shared_ptr<const KallsymsText> text, std::string_view ref_symbol,
                                     int64_t delta = 0);
// The same over a copy of `text` (tests, fuzzing).
Result<KallsymsTables> ParseKallsyms(std::string_view text, std::string_view ref_symbol, int64_t delta = 0);

// The GNU build-id (NT_GNU_BUILD_ID, name "GNU") in a sequence of host-endian ELF notes
// (4-byte aligned namesz, descsz, type, name, desc), as hex; empty if none or malformed.
std::string GnuBuildIdHexFromNotes(std::string_view notes);

// The running kernel's build-id from /sys/kernel/notes (NT_GNU_BUILD_ID), empty if none.
std::string RunningKernelBuildIdHex();

}  // namespace perflens
