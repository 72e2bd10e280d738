#include "report/stdio_printer.h"

#include <algorithm>
#include <map>
#include <atomic>
#include <span>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "report/hierarchy_printer.h"
#include "report/output_fields.h"
#include "report/percent_color.h"

namespace perflens {
namespace {

constexpr std::string_view kInlinedSuffix = " (inlined)";


// perf's convert_unit for the "# Samples:" line: 452 → "452 ", 4500 → "4K".
std::string SamplesWithUnit(uint64_t v) {
  char unit = ' ';
  if (v > 1000) { v /= 1000; unit = 'K'; }
  if (v > 1000) { v /= 1000; unit = 'M'; }
  if (v > 1000) { v /= 1000; unit = 'G'; }
  return fmt::format("{}{}", v, unit);
}

void Pad(std::string* out, size_t n) { out->append(n, ' '); }

// The filter list that elides sort key `name` (perf's get_elide: -c for comm, -d for
// dso, -S for sym, when it names exactly one value), or nullptr.
const std::vector<std::string>* ElisionList(const ReportOptions& o, std::string_view name) {
  const std::vector<std::string>* list = name == "comm" ? &o.comms
                                         : name == "dso" ? &o.dsos
                                         : name == "sym" ? &o.symbols
                                                         : nullptr;
  return list && list->size() == 1 ? list : nullptr;
}

// Whether the column of key `name` is left out: elided, unless every key would be
// (perf shows them all again then).
bool ElidedKey(const ReportOptions& o, const std::vector<const SortKey*>& keys, std::string_view name) {
  if (!ElisionList(o, name)) return false;
  return std::any_of(keys.begin(), keys.end(), [&](const SortKey* k) { return !ElisionList(o, k->name); });
}

// The call-graph text of each row (`texts` parallel to `rows`), made on two threads:
// trees are independent, each thread builds with its own scratch, and the texts are
// the same as one thread's.
void CallGraphTexts(const HistsOutput& report, const Hists& h, std::span<const HistEntry* const> rows,
                    std::vector<std::string>* texts) {
  texts->assign(rows.size(), std::string());
  std::atomic<size_t> next{0};
  auto work = [&] {
    CallchainStore::BuildScratch scratch;
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < rows.size();) {
      const HistEntry* e = rows[i];
      if (auto chain = h.BuildChain(e, report.call_graph(), &scratch))
        PrintCallchain(*chain, report.call_graph(), h.all_period(),
                       report.children() ? e->acc.period : e->self.period, &(*texts)[i], h.total_period);
    }
  };
  std::thread helper;
  try {
    if (rows.size() > 1 && report.options().use_threads) helper = std::thread(work);
  } catch (const std::system_error&) {
    // No second thread: this one does all rows.
  }
  work();
  if (helper.joinable()) helper.join();
}

// One printed row: the sort-key values of `e` and, per column of the section (the
// evsel, or with the group view the leader and its members), that Hists' row or
// nullptr (perf's hists__link dummy entries print as 0).
struct GroupRow {
  const HistEntry* e = nullptr;
  size_t vals = 0;  // index of its first value in Section::vals
};

struct Section {
  std::vector<const Hists*> hists;  // the leader's (or the evsel's) first
  std::vector<GroupRow> rows;       // print order
  std::vector<const HistEntry*> vals;
  const HistEntry* val(const GroupRow& r, size_t k) const { return vals[r.vals + k]; }
};

int Collapse(const std::vector<const SortKey*>& keys, const HistEntry& a, const HistEntry& b) {
  for (const SortKey* k : keys)
    if (int c = k->collapse(a, b)) return c;
  return 0;
}

// The rows of a group (perf's hists__match + hists__link): the leader's rows, each
// paired with the member rows equal to it under every key's collapse (the k-th equal
// with the k-th), then the member rows left over (in member and creation order), all
// sorted by the leader's value, then each member's, then the keys' order.
void BuildSection(const std::vector<const Hists*>& hists, bool by_children, Section* out) {
  out->hists = hists;
  const size_t n = hists.size();
  const auto& keys = hists[0]->keys();
  auto less = [&](const HistEntry* a, const HistEntry* b) { return Collapse(keys, *a, *b) < 0; };
  // Key → the rows holding it, in creation order (the leader's first).
  std::map<const HistEntry*, std::vector<size_t>, decltype(less)> by_key(less);
  std::vector<GroupRow>& rows = out->rows;
  auto add_row = [&](const HistEntry* e) {
    rows.push_back({e, out->vals.size()});
    out->vals.resize(out->vals.size() + n, nullptr);
    return rows.size() - 1;
  };
  for (const HistEntry& e : hists[0]->entries()) {
    const size_t r = add_row(&e);
    out->vals[rows[r].vals] = &e;
    if (n > 1) by_key[&e].push_back(r);
  }
  for (size_t k = 1; k < n; ++k) {
    std::map<const HistEntry*, size_t, decltype(less)> used(less);  // rows of this key taken so far
    for (const HistEntry& e : hists[k]->entries()) {
      std::vector<size_t>& same = by_key[&e];
      size_t& next = used[&e];
      if (next == same.size()) same.push_back(add_row(&e));
      out->vals[rows[same[next++]].vals + k] = &e;
    }
  }
  auto value = [&](const HistEntry* e) -> uint64_t { return !e ? 0 : by_children ? e->acc.period : e->self.period; };
  std::stable_sort(rows.begin(), rows.end(), [&](const GroupRow& a, const GroupRow& b) {
    for (size_t k = 0; k < n; ++k) {
      const uint64_t pa = value(out->vals[a.vals + k]), pb = value(out->vals[b.vals + k]);
      if (pa != pb) return pa > pb;
    }
    for (const SortKey* key : keys) {
      int c = key->order(*a.e, *b.e);
      if (c != 0) return c < 0;
    }
    return false;
  });
}

// perf's evsel__group_desc: "anon group { a, b }", "name { a, b }", or for a group forced
// by --group on a file without groups "a, b".
std::string GroupTitle(const std::vector<Evsel>& evsels, size_t leader, bool forced) {
  std::string s;
  const Evsel& l = evsels[leader];
  if (!forced) s = (l.group_name.empty() ? "anon group" : l.group_name) + " { ";
  s += l.name;
  for (size_t i = leader + 1; i < leader + l.nr_members && i < evsels.size(); ++i) s += ", " + evsels[i].name;
  if (!forced) s += " }";
  return s;
}

// perf's perf_read_values__display_pretty: PID, TID and one column per counter, each
// as wide as its widest value (PID and TID at least 3).
void AppendThreadReadValues(const ThreadReadValues& tv, const std::vector<Evsel>& evsels, std::string* out) {
  size_t pid_w = 3, tid_w = 3;
  std::vector<std::string> names;
  std::vector<size_t> widths;
  for (int c : tv.columns) {
    names.push_back(c >= 0 && static_cast<size_t>(c) < evsels.size() ? evsels[static_cast<size_t>(c)].name : "");
    widths.push_back(names.back().size());
  }
  for (const auto& r : tv.rows) {
    pid_w = std::max(pid_w, fmt::formatted_size("{}", static_cast<int32_t>(r.pid)));
    tid_w = std::max(tid_w, fmt::formatted_size("{}", static_cast<int32_t>(r.tid)));
    for (size_t j = 0; j < r.values.size() && j < widths.size(); ++j)
      widths[j] = std::max(widths[j], fmt::formatted_size("{}", r.values[j]));
  }
  fmt::format_to(std::back_inserter(*out), "# {:>{}}  {:>{}}", "PID", pid_w, "TID", tid_w);
  for (size_t j = 0; j < names.size(); ++j) fmt::format_to(std::back_inserter(*out), "  {:>{}}", names[j], widths[j]);
  out->push_back('\n');
  for (const auto& r : tv.rows) {
    fmt::format_to(std::back_inserter(*out), "  {:>{}}  {:>{}}", static_cast<int32_t>(r.pid), pid_w,
                   static_cast<int32_t>(r.tid), tid_w);
    for (size_t j = 0; j < r.values.size() && j < widths.size(); ++j)
      fmt::format_to(std::back_inserter(*out), "  {:>{}}", r.values[j], widths[j]);
    out->push_back('\n');
  }
}

}  // namespace

Status PrintReportStdio(const HistsOutput& report, std::string* out) {
  const ReportOptions& o = report.options();
  const bool children = report.children();
  const std::string& sep = o.field_separator;
  const bool use_sep = !sep.empty();
  const auto& evsels = report.evsels();

  // perf gives this hint only when it prints no header.
  if (!o.show_header && !o.quiet) out->append("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
  // perf's sort__setup_elide: a key filtered to one value is a line here, not a column.
  for (const SortKey* k : report.hists().empty() ? std::vector<const SortKey*>{} : report.hists()[0].keys())
    if (const std::vector<std::string>* list = ElisionList(o, k->name))
      fmt::format_to(std::back_inserter(*out), "# {}: {}\n", k->name == "sym" ? "symbol" : k->name, list->front());
  if (!o.quiet) fmt::format_to(std::back_inserter(*out), "#\n# Total Lost Samples: {}\n#\n", report.total_lost_samples());

  std::string cell;
  std::vector<FieldValue> values;  // a numeric cell's member values
  for (size_t ei = 0; ei < report.hists().size(); ++ei) {
    const Hists& h = report.hists()[ei];
    const Evsel* ev = ei < evsels.size() ? &evsels[ei] : nullptr;
    // perf's evsel__is_group_event: the group view prints a group once, at its leader.
    const bool group = report.group_view() && ev && ev->nr_members > 1 && ev->is_group_leader();
    if (report.group_view() && ev && !ev->is_group_leader()) continue;
    if (h.all_nr_samples() == 0) continue;  // perf's report.skip-empty (the leader's samples)
    std::vector<const Hists*> members{&h};
    uint64_t nr_samples = h.nr_samples, total_period = h.total_period;
    if (group) {
      for (size_t i = ei + 1; i < ei + ev->nr_members && i < report.hists().size(); ++i) {
        members.push_back(&report.hists()[i]);
        nr_samples += report.hists()[i].nr_samples;
        total_period += report.hists()[i].total_period;
      }
    }
    const size_t nm = members.size();
    auto fields_or = BuildOutputFields(o.fields, h.keys(), children, o.show_nr_samples, o.show_total_period);
    if (!fields_or) return fields_or.error();
    std::vector<OutputField> fields = std::move(*fields_or);
    // --hierarchy keeps an elided key's level (perf prints the line and the level).
    if (!o.hierarchy)
      std::erase_if(fields, [&](const OutputField& f) { return f.key && ElidedKey(o, h.keys(), f.key->name); });
    const std::string name = group ? GroupTitle(evsels, ei, report.forced_leader()) : ev ? ev->name : std::string();
    // "events" whenever the evsel leads more than one, grouped view or not (perf).
    if (!o.quiet) {
      fmt::format_to(std::back_inserter(*out), "# Samples: {} of event{} '{}'", SamplesWithUnit(nr_samples),
                     ev && ev->nr_members > 1 ? "s" : "", name);
      if (!o.time.empty()) fmt::format_to(std::back_inserter(*out), " (time slices: {})", o.time);
      out->push_back('\n');
      fmt::format_to(std::back_inserter(*out), "# Event count (approx.): {}\n#\n", total_period);
    }

    Section section;
    BuildSection(members, report.sort_by_children(), &section);
    const std::vector<GroupRow>& rows = section.rows;
    // Text column widths over every row (perf's hists__calc_col_len).
    std::vector<size_t> member_len;  // a numeric field's width for one member
    for (auto& f : fields) {
      member_len.push_back(f.width);
      if (f.numeric()) {
        // perf's hpp__width_fn: one fmt->len per member, at least the header.
        f.width = std::max(f.width * nm, f.header.size());
        continue;
      }
      f.width = std::max(f.header.size(), f.key->min_width);
      if (f.key->fixed_width) continue;
      for (const GroupRow& r : rows) {
        const HistEntry* e = r.e;
        if (o.exclude_other && !e->parent) continue;  // kept for --hierarchy's sums only
        cell.clear();
        size_t w;
        if (f.key->col_len) {
          w = f.key->col_len(*e);
        } else {
          f.key->print(*e, &cell);
          w = cell.size();
        }
        // perf's symlen is namelen + 4: an inlined symbol's " (inlined)" is printed
        // past the width it sets.
        if (f.key->name == "sym" && e->sym && e->sym->inlined && w >= kInlinedSuffix.size()) w -= kInlinedSuffix.size();
        f.width = std::max(f.width, w);
      }
      // perf's hists__set_unres_dso_col_len: a row without a symbol widens the
      // Shared Object column to 16 (BITS_PER_LONG / 4), except with -t or --dsos.
      if (f.key->name == "dso" && !use_sep && o.dsos.empty() &&
          std::any_of(rows.begin(), rows.end(), [](const GroupRow& r) { return r.e->sym == nullptr; }))
        f.width = std::max<size_t>(f.width, 16);
    }

    if (o.hierarchy) {
      std::vector<HierarchyRow> hrows;
      for (const GroupRow& r : rows) {
        hrows.push_back({r.e, {}});
        for (size_t k = 0; k < nm; ++k) hrows.back().vals.push_back(section.val(r, k));
      }
      AppendHierarchy(report, section.hists, hrows, fields, member_len, out);
      out->append("\n\n");
      continue;
    }
    // Header (perf's hists__fprintf with show_header = !quiet).
    if (!o.quiet) {
      out->append("# ");
      for (size_t i = 0; i < fields.size(); ++i) {
        const auto& f = fields[i];
        if (i) out->append(use_sep ? sep : "  ");
        if (f.numeric()) fmt::format_to(std::back_inserter(*out), "{:>{}}", f.header, f.width);
        else fmt::format_to(std::back_inserter(*out), "{:<{}}", f.header, f.width);
      }
      out->push_back('\n');
      if (!use_sep) {
        out->append("# ");
        for (size_t i = 0; i < fields.size(); ++i) {
          if (i) out->append("  ");
          out->append(fields[i].width, '.');
        }
        out->append("\n#\n");
      }
    }

    // --percent-limit looks at the leader's value only (perf's hist_entry__get_percent_limit).
    std::vector<const GroupRow*> printed;
    for (const GroupRow& r : rows) {
      const HistEntry* le = section.val(r, 0);
      uint64_t limit_period = !le ? 0 : report.sort_by_children() ? le->acc.period : le->self.period;
      if (o.percent_limit > 0 && Percent(limit_period, h.total_period) < o.percent_limit) continue;
      // -x without the parent key: no row has a parent, perf prints none.
      if (o.exclude_other && !r.e->parent) continue;
      printed.push_back(&r);
    }
    const bool graph = report.call_graph().mode != CallGraphMode::kNone;
    std::vector<std::string> graphs;
    std::vector<const HistEntry*> graph_rows;
    // Rows in chunks: the call graphs of a chunk are made on both cores, then the chunk
    // is printed in order (chunks bound the memory held by finished graph texts).
    constexpr size_t kChunk = 256;
    for (size_t chunk = 0; chunk < printed.size(); chunk += kChunk) {
      std::span<const GroupRow* const> part(printed.data() + chunk, std::min(kChunk, printed.size() - chunk));
      if (graph) {
        // The leader's rows carry the call graphs (a member-only row has none).
        graph_rows.clear();
        for (const GroupRow* r : part) graph_rows.push_back(section.val(*r, 0));
        std::vector<const HistEntry*> present;
        for (const HistEntry* e : graph_rows)
          if (e) present.push_back(e);
        std::vector<std::string> texts;
        CallGraphTexts(report, h, present, &texts);
        graphs.assign(part.size(), std::string());
        for (size_t pi = 0, ti = 0; pi < part.size(); ++pi)
          if (graph_rows[pi]) graphs[pi] = std::move(texts[ti++]);
      }
      for (size_t pi = 0; pi < part.size(); ++pi) {
        const GroupRow& row = *part[pi];
        const HistEntry* e = row.e;
        if (!use_sep) out->append("  ");
        for (size_t i = 0; i < fields.size(); ++i) {
          const auto& f = fields[i];
          if (i) out->append(use_sep ? sep : "  ");
          cell.clear();
          if (f.numeric()) {
            // One value per member, each in the field's own width (perf's __hpp__fmt
            // " %*.2f%%" with fmt->len - 2, or len 1 with -t).
            values.clear();
            for (size_t k = 0; k < nm; ++k) {
              const HistEntry* v = section.val(row, k);
              values.push_back({v ? &v->self : nullptr, v ? v->acc.period : 0, section.hists[k]->total_period});
            }
            AppendNumericCell(f, values, nm > 1 ? member_len[i] : f.width, sep, o.color, out);
          } else {
            f.key->print(*e, &cell);
            // perf's repsep_snprintf: the separator's first character inside a value
            // becomes '.', so "-t ," output stays parseable (C++ names have commas).
            if (use_sep) std::replace(cell.begin(), cell.end(), sep[0], '.');
            else if (f.key->truncate && cell.size() > f.width) cell.resize(f.width);
            out->append(cell);
            bool last = i + 1 == fields.size();
            if ((!last || f.key->pad_last) && cell.size() < f.width) Pad(out, f.width - cell.size());
          }
        }
        out->push_back('\n');
        if (graph) out->append(graphs[pi]);
      }
    }
    out->append("\n\n");
  }
  if (const ThreadReadValues* tv = report.thread_values()) AppendThreadReadValues(*tv, evsels, out);
  // perf prints the branch statistics after its tip, which perflens does not print,
  // and ends them without a newline; perflens ends the line.
  if (const BranchTypeStat* stat = report.branch_types()) {
    const size_t before = out->size();
    stat->Print(out);
    if (out->size() != before) out->push_back('\n');
  }
  return Status::Ok();
}

}  // namespace perflens
