// Sort keys: perf's sort_entry as a table of small functions, one row per key, and the
// only place that knows a key (Hists, the stdio and JSON printers all go through it).
// `-s/--sort comm,dso,sym` selects rows of the table.
//
// A key answers four questions about a HistEntry, as perf's se_cmp/se_collapse/se_sort/
// se_snprintf do:
//   id       which row within one session: words built from session ids (Dso::id,
//            Symbol::index, the comm's id in a CommIds, tid, cpu), never from where an
//            object lives, so hashing does not depend on memory layout and two partial
//            Hists of one session agree on every row;
//   collapse which row across sessions: compares what the key prints (comm text, dso
//            name, symbol name or the address when unresolved, tid, cpu), so rows of two
//            recordings can be paired (perf diff);
//   order    the print order among rows of equal overhead (perf's se_sort);
//   print    the column text; json: the row's fields in --json output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "report/hist_entry.h"

namespace perflens {

// Numbers comm texts for the comm key's id: equal texts get one id, in first-seen order
// from 0. One per Hists. The pointer only tags a cache, so a `comm` passed here must
// keep its text while the CommIds lives — true of Machine::Intern's strings, which are
// what HistEntry::comm holds.
class CommIds {
 public:
  // The id of `*comm`'s text (< 2^32); UINT64_MAX for nullptr. Amortized O(1); one
  // compare when `comm` is the previous call's (a sample's chain frames share it).
  uint64_t Find(const std::string* comm) {
    if (comm == last_) return last_id_;
    return FindSlow(comm);
  }

 private:
  uint64_t FindSlow(const std::string* comm);
  const std::string* last_ = nullptr;
  uint64_t last_id_ = UINT64_MAX;
  std::unordered_map<const std::string*, uint32_t> by_pointer_;
  std::unordered_map<std::string, uint32_t> by_text_;
};

struct SortKey {
  static constexpr size_t kMaxIdWords = 2;
  std::string_view name;    // "comm"
  std::string_view header;  // "Command"
  // Words `id` writes: 1, or 2 for sym (the symbol's space and dso, then its index or
  // address: a resolved symbol and a raw address never share a value).
  uint8_t id_words = 1;
  // Writes the row identity of `e` to words[0, id_words): equal words ↔ same row in one
  // session. `comms` numbers comm texts (only the comm key uses it).
  void (*id)(const HistEntry& e, CommIds* comms, uint64_t* words);
  // Three-way comparison of printed values (<0, 0, >0), independent of session ids:
  // equal → the rows of two sessions are the same row (perf's se_collapse).
  int (*collapse)(const HistEntry& a, const HistEntry& b);
  // perf's se_sort: negative when `a` prints before `b` among equal overheads.
  int (*order)(const HistEntry& a, const HistEntry& b);
  // Appends the column text (unpadded).
  void (*print)(const HistEntry& e, std::string* out);
  // Sets this key's fields of one --json row object (e.g. "dso", "dso_path").
  void (*json)(const HistEntry& e, nlohmann::json* row);
  bool pad_last = true;  // perf pads this column even when it is the last one
  // Width of the column for one row when it is wider than the printed text (perf sizes
  // "    Pid:Command" (perf's header has 4 leading spaces) as 8 + the Command column's width, at least 15).
  size_t min_width = 0;
  // perf's column width ignores the printed text (CPU is 3 wide; "-001" overflows it).
  bool fixed_width = false;
  // The width a row asks for when it is not its printed length (perf's
  // hists__calc_col_len: a branch end's dso widens dso_from only when its symbol
  // resolved); with `truncate`, a longer text is cut at the column width ("%-*.*s").
  size_t (*col_len)(const HistEntry& e) = nullptr;
  bool truncate = false;
};

// Looks a sort key up by perf's name ("comm", "pid", "tid", "dso", "sym"/"symbol",
// "cpu", "srcline", "srcfile"). nullptr if unknown.
const SortKey* FindSortKey(std::string_view name);

// -v: the variant of `key` perf prints with verbose > 0 — "dso", "dso_from", "dso_to"
// with the DSO's long name, "sym", "symbol_from", "symbol_to" with the row's address
// and symtab origin first ("0x1270             B [.] StatPaths"); `key` itself for the
// others. Same names, ids and orders as `key`.
const SortKey* VerboseSortKey(const SortKey* key);

// The "time" key printing microseconds (FindSortKey's) or, `ns` (--ns), nanoseconds.
const SortKey* TimeSortKey(bool ns);

// Parses "comm,dso,sym". Errors name the unknown key.
Result<std::vector<const SortKey*>> ParseSortKeys(std::string_view list);

// perf's symbol column text: "[.] name", "[k] 0x0000000000001234".
void PrintSymbolColumn(const HistEntry& e, std::string* out);
std::string_view DsoColumnName(const Dso* dso);

}  // namespace perflens
