#include "report/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "report/percent_color.h"
#include "report/sort_key.h"

namespace perflens {
namespace {

// One printed row: the baseline's row (or a stand-in for a row the baseline lacks,
// perf's dummy entry) and its partner in each other file.
struct DiffRow {
  const HistEntry* proto = nullptr;  // the key values printed
  bool dummy = false;                // not in the baseline
  uint64_t base_period = 0;          // 0 when dummy
  // Per file (index 0 unused): the partner's period, or none.
  std::vector<const HistEntry*> pair;
  std::vector<uint64_t> period;
  // The compute value against file i (perf's he->diff, computed before sorting).
  std::vector<double> delta, ratio;
  std::vector<int64_t> wdiff;
  bool has_pairs() const {
    return std::any_of(pair.begin(), pair.end(), [](const HistEntry* p) { return p != nullptr; });
  }
};

// perf diff's collapse: each key's, but the symbol key compares names only and takes
// every unresolved address as one (in diff mode perf collapses sym with its se_sort,
// since the files may come from different builds: no address is comparable).
int Collapse(const std::vector<const SortKey*>& keys, const HistEntry& a, const HistEntry& b) {
  for (const SortKey* k : keys) {
    int c;
    if (k->name == "sym") c = !a.sym || !b.sym ? (!a.sym && !b.sym ? 0 : !a.sym ? 1 : -1) : a.sym->name.compare(b.sym->name);
    else c = k->collapse(a, b);
    if (c) return c < 0 ? -1 : 1;
  }
  return 0;
}

// A Hists' rows grouped by value (perf's collapsed tree): equal rows summed, the first
// one's keys kept, in value order.
struct Collapsed {
  const HistEntry* proto;
  uint64_t period;
};
std::vector<Collapsed> CollapseRows(const Hists& h) {
  std::vector<const HistEntry*> rows;
  for (const HistEntry& e : h.entries()) rows.push_back(&e);
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const HistEntry* a, const HistEntry* b) { return Collapse(h.keys(), *a, *b) < 0; });
  std::vector<Collapsed> out;
  for (const HistEntry* e : rows) {
    if (!out.empty() && Collapse(h.keys(), *out.back().proto, *e) == 0) {
      out.back().period += e->self.period;
      // Unresolved addresses merged: perf keeps the entry first in its input tree,
      // ordered by address as a signed number (kernel addresses first).
      if (!e->sym && static_cast<int64_t>(e->key_addr) < static_cast<int64_t>(out.back().proto->key_addr))
        out.back().proto = e;
    } else {
      out.push_back({e, e->self.period});
    }
  }
  return out;
}

// perf's evsel__match2.
const Hists* MatchEvsel(const Report& r, const Evsel& base) {
  const auto& evsels = r.file().evsels();
  for (size_t i = 0; i < evsels.size() && i < r.hists().size(); ++i)
    if (evsels[i].attr.type == base.attr.type && evsels[i].attr.config == base.attr.config) return &r.hists()[i];
  return nullptr;
}

std::string Printf(const char* format, double v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

int CmpDoubles(double l, double r) { return l > r ? -1 : l < r ? 1 : 0; }

// perf's __hist_entry__cmp_compute on the values of `l` and `r` against file i: <0
// when `l` is the larger (prints first).
int CmpCompute(DiffCompute c, const DiffRow& l, const DiffRow& r, size_t i) {
  switch (c) {
    case DiffCompute::kDelta: return CmpDoubles(l.delta[i], r.delta[i]);
    case DiffCompute::kDeltaAbs: return CmpDoubles(std::fabs(l.delta[i]), std::fabs(r.delta[i]));
    case DiffCompute::kRatio: return CmpDoubles(l.ratio[i], r.ratio[i]);
    case DiffCompute::kWdiff: return l.wdiff[i] > r.wdiff[i] ? -1 : l.wdiff[i] < r.wdiff[i] ? 1 : 0;
  }
  return 0;
}

// The column kinds, in perf's PERF_HPP_DIFF__* sense.
enum class Col { kBaseline, kBasePeriod, kCompute, kFormula, kPeriod };

struct Column {
  Col kind;
  size_t file;
  std::string header;  // right-aligned to width
  size_t width;
};

std::string_view ComputeHeader(DiffCompute c) {
  switch (c) {
    case DiffCompute::kDelta: return "Delta";
    case DiffCompute::kDeltaAbs: return "Delta Abs";
    case DiffCompute::kRatio: return "Ratio";
    case DiffCompute::kWdiff: return "Weighted diff";
  }
  return "";
}

size_t ComputeWidth(DiffCompute c) {
  return c == DiffCompute::kDelta || c == DiffCompute::kDeltaAbs ? 7 : 14;
}

}  // namespace

Status ParseDiffCompute(std::string_view value, DiffOptions* o) {
  std::string_view name = value, arg;
  const bool has_arg = value.find(':') != std::string_view::npos;
  if (has_arg) {
    name = value.substr(0, value.find(':'));
    arg = value.substr(value.find(':') + 1);
  }
  DiffCompute c;
  if (name == "delta") c = DiffCompute::kDelta;
  else if (name == "delta-abs") c = DiffCompute::kDeltaAbs;
  else if (name == "ratio") c = DiffCompute::kRatio;
  else if (name == "wdiff") c = DiffCompute::kWdiff;
  else if (name == "cycles") return Err("-c cycles needs branch stacks with cycles (LBR); not supported");
  else return Err("'{}' is not computation method (use 'delta','ratio' or 'wdiff')", value);
  if (c != DiffCompute::kWdiff) {
    if (has_arg) return Err("extra option specified '{}'", arg);
    o->compute = c;
    return Status::Ok();
  }
  // perf: strtol of each part; both must be non-zero.
  const size_t comma = arg.find(',');
  if (!has_arg || comma == std::string_view::npos || comma + 1 == arg.size())
    return Err("wrong weight data, use 'wdiff:w1,w2'");
  const std::string w1(arg.substr(0, comma)), w2(arg.substr(comma + 1));
  o->wdiff_w1 = std::strtoll(w1.c_str(), nullptr, 10);
  o->wdiff_w2 = std::strtoll(w2.c_str(), nullptr, 10);
  if (o->wdiff_w1 == 0 || o->wdiff_w2 == 0) return Err("wrong weight data, use 'wdiff:w1,w2'");
  o->compute = c;
  return Status::Ok();
}

ReportOptions DiffReportOptions(const DiffOptions& o, size_t index) {
  ReportOptions r;
  r.time = o.time;
  if (o.time.find(':') != std::string::npos) {
    // perf's parse_absolute_time: the index-th ':'-separated part (none past the last).
    std::string_view rest = o.time;
    for (size_t i = 0; i < index && !rest.empty(); ++i) {
      const size_t colon = rest.find(':');
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
    r.time = std::string(rest.substr(0, rest.find(':')));
  }
  // As given (perf diff never sorts a tracepoint file by trace), with "symbol" spelled
  // "sym" so that Report adds no IPC column (perf adds none in diff mode).
  r.sort.clear();
  for (std::string_view rest = o.sort; !rest.empty();) {
    const size_t comma = rest.find(',');
    std::string_view key = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    r.sort += (r.sort.empty() ? "" : ",") + std::string(key == "symbol" ? "sym" : key);
  }
  r.sort_given = true;
  r.branch_stack = false;  // never perf report's branch mode
  r.children = false;
  r.call_graph = "none";
  r.percentage_relative = o.percentage_relative;
  r.parallel_read = o.parallel_read;
  r.comms = o.comms;
  r.dsos = o.dsos;
  r.symbols = o.symbols;
  r.pids = o.pids;
  r.tids = o.tids;
  r.cpu_list = o.cpu_list;
  r.symbolize = o.symbolize;
  r.quiet = o.quiet;
  return r;
}

Status PrintDiffStdio(const std::vector<DiffInput>& inputs, const DiffOptions& o, std::string* out) {
  const size_t nf = inputs.size();
  if (nf < 2) return Err("perf diff needs at least two files");
  if (o.order >= nf) return Err("Order option out of limit.");
  const Report& base = *inputs[0].report;
  const bool use_sep = !o.field_separator.empty();
  const std::string& sep = o.field_separator;
  const bool many = nf > 2;
  bool first = true;
  const auto& evsels = base.file().evsels();
  for (size_t ei = 0; ei < evsels.size() && ei < base.hists().size(); ++ei) {
    const Hists& hb = base.hists()[ei];
    const auto& keys = hb.keys();
    std::vector<const Hists*> hists(nf, nullptr);
    hists[0] = &hb;
    for (size_t i = 1; i < nf; ++i) {
      hists[i] = MatchEvsel(*inputs[i].report, evsels[ei]);
      if (hists[i] && hists[i]->keys() != keys) return Err("the files were read with different sort keys");
    }
    // perf's hists__match + hists__link: the baseline's rows, then each file's rows the
    // baseline lacks (unless -b), paired by value.
    std::vector<DiffRow> rows;
    auto less = [&](const HistEntry* a, const HistEntry* b) { return Collapse(keys, *a, *b) < 0; };
    std::map<const HistEntry*, size_t, decltype(less)> by_key(less);
    auto new_row = [&](const HistEntry* proto, bool dummy, uint64_t period) {
      DiffRow r;
      r.proto = proto;
      r.dummy = dummy;
      r.base_period = period;
      r.pair.assign(nf, nullptr);
      r.period.assign(nf, 0);
      r.delta.assign(nf, 0);
      r.ratio.assign(nf, 0);
      r.wdiff.assign(nf, 0);
      rows.push_back(std::move(r));
      by_key.emplace(proto, rows.size() - 1);
    };
    for (const Collapsed& c : CollapseRows(hb)) new_row(c.proto, false, c.period);
    for (size_t i = 1; i < nf; ++i) {
      if (!hists[i]) continue;
      for (const Collapsed& c : CollapseRows(*hists[i])) {
        auto it = by_key.find(c.proto);
        if (it == by_key.end()) {
          if (o.baseline_only) continue;
          new_row(c.proto, true, 0);
          it = by_key.find(c.proto);
        }
        rows[it->second].pair[i] = c.proto;
        rows[it->second].period[i] = c.period;
      }
    }
    // -b: perf drops the baseline rows without a partner before totals are recounted.
    if (o.baseline_only) std::erase_if(rows, [](const DiffRow& r) { return !r.has_pairs(); });
    // The baseline total the percentages use: perf recounts it from the rows left when it
    // sorts them (-b changes it); the deltas were computed before, with every sample.
    uint64_t base_total = hb.total_period;
    if (o.baseline_only) {
      base_total = 0;
      for (const DiffRow& r : rows) base_total += r.base_period;
    }
    auto pct = [](uint64_t period, uint64_t total) { return period * 100.0 / static_cast<double>(total); };
    for (DiffRow& r : rows) {
      for (size_t i = 1; i < nf; ++i) {
        if (!r.pair[i]) continue;
        r.delta[i] = pct(r.period[i], hists[i]->total_period) - pct(r.base_period, hb.total_period);
        r.ratio[i] = static_cast<double>(r.period[i]) / static_cast<double>(r.base_period ? r.base_period : 1);
        r.wdiff[i] = static_cast<int64_t>(r.period[i] * static_cast<uint64_t>(o.wdiff_w2) -
                                          r.base_period * static_cast<uint64_t>(o.wdiff_w1));
      }
    }
    // perf's output sort: the -o file's compute value, the baseline period, each file's
    // compute column, then the sort keys' order; ties keep value order.
    const DiffCompute c = o.compute;
    auto before = [&](const DiffRow& l, const DiffRow& r) -> int {  // <0: l first
      if (o.order) {
        const size_t i = o.order;
        const bool pl = l.pair[i], pr = r.pair[i];
        if (pl != pr) return pl ? -1 : 1;
        // A delta needs no baseline; a ratio or wdiff of a row the baseline lacks
        // is N/A and sorts below (perf's hist_entry__cmp_compute_idx).
        const bool needs_base = c == DiffCompute::kRatio || c == DiffCompute::kWdiff;
        if (pl && needs_base && l.dummy != r.dummy) return l.dummy ? 1 : -1;
        if (pl && !(needs_base && l.dummy))
          if (int v = CmpCompute(c, l, r, i)) return v;
      }
      if (l.base_period != r.base_period) return l.base_period > r.base_period ? -1 : 1;
      for (size_t i = 1; i < nf; ++i) {
        const bool hl = l.has_pairs(), hr = r.has_pairs();
        if (hl != hr) return hl ? -1 : 1;
        if (!hl) break;
        const bool pl = l.pair[i], pr = r.pair[i];
        if (pl != pr) return pl ? -1 : 1;
        if (pl)
          if (int v = CmpCompute(c, l, r, i)) return v;
      }
      for (const SortKey* k : keys)
        if (int v = k->order(*l.proto, *r.proto)) return v;
      return 0;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& l, const DiffRow& r) {
      return Collapse(keys, *l.proto, *r.proto) < 0;
    });
    std::stable_sort(rows.begin(), rows.end(), [&](const DiffRow& l, const DiffRow& r) { return before(l, r) < 0; });

    // Columns (perf's ui_init): per file, the baseline or compute column, then -F's
    // formula (not for the baseline) and -p's period.
    std::vector<Column> cols;
    auto add_col = [&](Col kind, size_t file, std::string_view name, size_t width) {
      std::string h = many ? fmt::format("{}/{}", name, file) : std::string(name);
      width = std::max(width, h.size());
      cols.push_back({kind, file, std::move(h), width});
    };
    for (size_t i = 0; i < nf; ++i) {
      if (i == 0) add_col(Col::kBaseline, 0, "Baseline", 0);
      else add_col(Col::kCompute, i, ComputeHeader(c), ComputeWidth(c));
      if (o.show_formula && i) add_col(Col::kFormula, i, "Formula", 70);
      if (o.show_period) add_col(i ? Col::kPeriod : Col::kBasePeriod, i, i ? "Period" : "Base period", 14);
    }
    // The cell text of a column for a row ("" → perf's blank " ").
    auto cell = [&](const Column& col, const DiffRow& r) -> std::string {
      const size_t i = col.file;
      switch (col.kind) {
        case Col::kBaseline:
          if (r.dummy) return "";
          return Printf(use_sep ? "%.2f" : "%6.2f%%", pct(r.base_period, base_total));
        case Col::kBasePeriod: return fmt::format("{}", r.base_period);
        case Col::kPeriod: return r.pair[i] ? fmt::format("{}", r.period[i]) : "";
        case Col::kCompute:
          // Without -t perf prints these columns with their color functions (perf's
          // perf_hpp__use_color() is "no -t"), with -t with their entry functions:
          // they differ in a value of 0 and in the case of NaN.
          if (!r.pair[i]) return "";
          switch (c) {
            case DiffCompute::kDelta:
            case DiffCompute::kDeltaAbs:
              return Printf(use_sep ? "%+4.2F%%" : "%+4.2f%%", r.delta[i]);  // "-nan%" when a total is 0
            case DiffCompute::kRatio:
              if (r.dummy) return "N/A";
              if (use_sep) return r.ratio[i] > 0.0 ? Printf("%14.6F", r.ratio[i]) : "";
              return Printf("%.6f", r.ratio[i]);
            case DiffCompute::kWdiff:
              if (r.dummy) return "N/A";
              if (use_sep) return r.wdiff[i] != 0 ? fmt::format("{:>14}", r.wdiff[i]) : "";
              return fmt::format("{:>14}", r.wdiff[i]);  // "%14ld", then padded after to the width
          }
          return "";
        case Col::kFormula:
          if (!r.pair[i]) return "";
          switch (c) {
            case DiffCompute::kDelta:
            case DiffCompute::kDeltaAbs:
              return fmt::format("({} * 100 / {}) - ({} * 100 / {})", r.period[i], hists[i]->total_period,
                                 r.base_period, base_total);
            case DiffCompute::kRatio: return fmt::format("{:.0f} / {:.0f}", double(r.period[i]), double(r.base_period));
            case DiffCompute::kWdiff:
              return fmt::format("({} * {}) - ({} * {})", r.period[i], o.wdiff_w2, r.base_period, o.wdiff_w1);
          }
          return "";
      }
      return "";
    };
    // perf's sort__setup_elide: a key that -C/-d/-S filter to one value is no column,
    // unless that would leave none (diff prints no "# dso: X" line for it).
    auto single = [&](const SortKey* k) {
      const std::vector<std::string>* list = k->name == "comm" ? &o.comms
                                             : k->name == "dso"  ? &o.dsos
                                             : k->name == "sym"  ? &o.symbols
                                                                 : nullptr;
      return list && list->size() == 1;
    };
    std::vector<const SortKey*> shown;
    for (const SortKey* k : keys)
      if (!single(k)) shown.push_back(k);
    if (shown.empty()) shown = keys;
    // Sort-key column widths over the rows (perf's hists__calc_col_len).
    std::vector<size_t> key_width;
    std::string text;
    for (const SortKey* k : shown) {
      size_t w = std::max(k->header.size(), k->min_width);
      if (!k->fixed_width)
        for (const DiffRow& r : rows) {
          text.clear();
          size_t len;
          if (k->col_len) {
            len = k->col_len(*r.proto);
          } else {
            k->print(*r.proto, &text);
            len = text.size();
          }
          w = std::max(w, len);
        }
      if (k->name == "dso" && !use_sep && o.dsos.empty() &&
          std::any_of(rows.begin(), rows.end(), [](const DiffRow& r) { return r.proto->sym == nullptr; }))
        w = std::max<size_t>(w, 16);
      key_width.push_back(w);
    }
    const size_t ncols = cols.size() + shown.size();

    if (!o.quiet) {
      fmt::format_to(std::back_inserter(*out), "{}# Event '{}'\n#\n", first ? "" : "\n", evsels[ei].name);
      if (many) {
        out->append("# Data files:\n");
        for (size_t i = 0; i < nf; ++i)
          fmt::format_to(std::back_inserter(*out), "#  [{}] {} {}\n", i, inputs[i].path, i ? "" : "(Baseline)");
        out->append("#\n");
      }
      // Header: the diff columns right-aligned, the keys left-aligned, all padded.
      out->append("# ");
      for (size_t j = 0; j < ncols; ++j) {
        if (j) out->append(use_sep ? sep : "  ");
        if (j < cols.size()) fmt::format_to(std::back_inserter(*out), "{:>{}}", cols[j].header, cols[j].width);
        else fmt::format_to(std::back_inserter(*out), "{:<{}}", shown[j - cols.size()]->header, key_width[j - cols.size()]);
      }
      out->push_back('\n');
      if (!use_sep) {
        out->append("# ");
        for (size_t j = 0; j < ncols; ++j) {
          if (j) out->append("  ");
          out->append(j < cols.size() ? cols[j].width : key_width[j - cols.size()], '.');
        }
        out->append("\n#\n");
      }
    }
    first = false;

    for (const DiffRow& r : rows) {
      if (!use_sep) out->append("  ");
      for (size_t j = 0; j < ncols; ++j) {
        if (j) out->append(use_sep ? sep : "  ");
        const bool last = j + 1 == ncols;
        bool pad_last = false;
        size_t width;
        if (j < cols.size()) {
          text = cell(cols[j], r);
          if (text.empty()) text = " ";
          width = cols[j].width;
          // perf: "%*s" without -t; with -t the text, then (as every column but the
          // last) spaces up to the width.
          const bool left = cols[j].kind == Col::kCompute && c == DiffCompute::kWdiff && r.pair[cols[j].file] &&
                            !r.dummy;
          if (!use_sep && !left) text = fmt::format("{:>{}}", text, width);
          // Without -t, perf's colour functions colour a value by its size as a
          // percentage (get_percent_color; a ratio and a wdiff too).
          const size_t i = cols[j].file;
          std::optional<double> value;
          if (cols[j].kind == Col::kBaseline && !r.dummy) value = pct(r.base_period, base_total);
          if (cols[j].kind == Col::kCompute && r.pair[i]) {
            if (c == DiffCompute::kDelta || c == DiffCompute::kDeltaAbs) value = r.delta[i];
            else if (!r.dummy) value = c == DiffCompute::kRatio ? r.ratio[i] : static_cast<double>(r.wdiff[i]);
          }
          if (o.color && !use_sep && value) {
            std::string colored;
            AppendPercentColored(true, *value, text, &colored);
            out->append(colored);
            if (text.size() < width) out->append(width - text.size(), ' ');
            continue;
          }
        } else {
          const SortKey* k = shown[j - cols.size()];
          text.clear();
          k->print(*r.proto, &text);
          if (use_sep) std::replace(text.begin(), text.end(), sep[0], '.');
          else if (k->truncate && text.size() > key_width[j - cols.size()]) text.resize(key_width[j - cols.size()]);
          width = key_width[j - cols.size()];
          pad_last = k->pad_last;
        }
        out->append(text);
        // Every column but the last is padded to its width; some keys (dso) pad
        // themselves even when last.
        if ((!last || pad_last) && text.size() < width) out->append(width - text.size(), ' ');
      }
      out->push_back('\n');
    }
  }
  return Status::Ok();
}

}  // namespace perflens
