// Sort keys: perf's sort_entry as a table of small functions (name, header, group key,
// order, print). `-s/--sort comm,dso,sym` selects rows of the table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "report/hist_entry.h"

namespace perflens {

struct SortKey {
  std::string_view name;    // "comm"
  std::string_view header;  // "Command"
  // Value that groups entries (equal values → same row).
  uint64_t (*group)(const HistEntry&);
  // perf's se_sort: negative when `a` prints before `b` among equal overheads.
  int (*order)(const HistEntry&, const HistEntry&);
  // Appends the column text (unpadded).
  void (*print)(const HistEntry&, std::string* out);
  bool pad_last;  // perf pads this column even when it is the last one
  // Width of the column for one row when it is wider than the printed text (perf sizes
  // "    Pid:Command" (perf's header has 4 leading spaces) as 8 + the Command column's width, at least 15).
  size_t min_width = 0;
  // perf's column width ignores the printed text (CPU is 3 wide; "-001" overflows it).
  bool fixed_width = false;
};

// Looks a sort key up by perf's name ("comm", "pid", "tid", "dso", "sym"/"symbol",
// "cpu"). nullptr if unknown.
const SortKey* FindSortKey(std::string_view name);

// Parses "comm,dso,sym". Errors name the unknown key.
Result<std::vector<const SortKey*>> ParseSortKeys(std::string_view list);

// perf's symbol column text: "[.] name", "[k] 0x0000000000001234".
void PrintSymbolColumn(const HistEntry& e, std::string* out);
std::string_view DsoColumnName(const Dso* dso);

}  // namespace perflens
