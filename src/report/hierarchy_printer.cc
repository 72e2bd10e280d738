#include "report/hierarchy_printer.h"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

namespace perflens {
namespace {

constexpr size_t kIndent = 3;  // perf's HIERARCHY_INDENT

// One entry of a level: the rows sharing the values of the keys down to its level
// (compared as printed, perf's hierarchy insert by se_collapse), with their summed stats.
struct Node {
  const HistEntry* e = nullptr;  // its first row: the key values printed
  std::vector<HistStat> stats;   // per member
  const HistEntry* chain_row = nullptr;  // a last-level entry's first leader row
  bool visible = false;  // has a row -x keeps (every row without -x)
  std::vector<std::unique_ptr<Node>> children;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

class Printer {
 public:
  Printer(const HistsOutput& report, const std::vector<const Hists*>& hists, const std::vector<OutputField>& fields,
          const std::vector<size_t>& member_len)
      : report_(report), hists_(hists), h_(*hists[0]), sep_(report.options().field_separator) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!fields[i].numeric()) {
        keys_.push_back(&fields[i]);
        continue;
      }
      values_.push_back(&fields[i]);
      value_len_.push_back(hists.size() > 1 && i < member_len.size() ? member_len[i] : fields[i].width);
    }
    levels_ = keys_.size();
  }

  void Build(const std::vector<HierarchyRow>& rows) {
    for (const HierarchyRow& row : rows) {
      const HistEntry* e = row.e;
      Node* parent = &root_;
      for (size_t level = 0; level < levels_; ++level) {
        // Siblings are told apart by the level's key (they agree on the keys above).
        Index& index = child_index_.try_emplace(parent, LevelLess{keys_[level]->key}).first->second;
        Node*& found = index[e];
        if (!found) {
          parent->children.push_back(std::make_unique<Node>());
          found = parent->children.back().get();
          found->e = e;
          found->stats.resize(hists_.size());
        }
        for (size_t k = 0; k < row.vals.size() && k < found->stats.size(); ++k)
          if (row.vals[k]) Add(&found->stats[k], row.vals[k]->self);
        found->visible |= !report_.options().exclude_other || e->parent;
        parent = found;
      }
      if (!parent->chain_row && !row.vals.empty()) parent->chain_row = row.vals[0];
    }
    SortChildren(&root_, 0);
  }

  void Print(std::string* out) const {
    const bool use_sep = !sep_.empty();
    const size_t nodes = levels_ + 1;  // perf's nr_hpp_node: the value columns are one
    const size_t indent = nodes >= 2 ? (nodes - 2) * kIndent : 0;
    // Header: the value headers, then the keys' headers joined with " / " (none with -q).
    if (report_.options().quiet) {
      PrintChildren(root_, 0, out);
      return;
    }
    out->append("# ");
    if (!use_sep) out->append(indent, ' ');
    for (const OutputField* f : values_) {
      fmt::format_to(std::back_inserter(*out), "{:>{}}", f->header, f->width);
      out->append(use_sep ? sep_ : "  ");
    }
    size_t header_width = 0;
    for (size_t i = 0; i < keys_.size(); ++i) {
      const std::string_view name = Trim(keys_[i]->header);
      if (i) out->append(" / ");
      out->append(name);
      header_width += name.size() + (i ? 3 : 0);
    }
    out->append("\n# ");
    if (!use_sep) out->append(indent, '.');
    for (size_t i = 0; i < values_.size(); ++i) {
      if (i) out->append(use_sep ? sep_ : "..");
      out->append(values_[i]->width, '.');
    }
    for (size_t i = 0; i < keys_.size(); ++i) header_width = std::max(header_width, i * kIndent + keys_[i]->width);
    out->append(use_sep ? sep_ : "  ");
    out->append(header_width, '.');
    out->append("\n#\n");
    PrintChildren(root_, 0, out);
  }

 private:
  // perf's hierarchy insert compares a level with its key's se_collapse, or its se_cmp
  // where it has none: the symbol key's is sort__sym_cmp (the dso, then the symbol's
  // address), so two functions of one name (static functions of two files, overloads
  // whose names print alike) stay two entries; the other keys compare as printed.
  struct LevelLess {
    const SortKey* key;
    bool operator()(const HistEntry* a, const HistEntry* b) const {
      if (int c = key->collapse(*a, *b)) return c < 0;
      static const auto sym_id = FindSortKey("sym")->id;
      if (key->id != sym_id) return false;
      uint64_t wa[4] = {}, wb[4] = {};  // IdSym needs no CommIds
      key->id(*a, nullptr, wa);
      key->id(*b, nullptr, wb);
      return std::lexicographical_compare(wa, wa + key->id_words, wb, wb + key->id_words);
    }
  };
  using Index = std::map<const HistEntry*, Node*, LevelLess>;

  static void Add(HistStat* s, const HistStat& v) {
    s->period += v.period;
    s->nr_samples += v.nr_samples;
    s->period_sys += v.period_sys;
    s->period_us += v.period_us;
  }

  // Each level by period, largest first, then the level's key order, then first seen
  // (perf's hierarchy_insert_output_entry with hist_entry__sort).
  void SortChildren(Node* n, size_t level) {
    if (level >= levels_) return;
    const SortKey* key = keys_[level]->key;
    std::stable_sort(n->children.begin(), n->children.end(), [&](const auto& a, const auto& b) {
      for (size_t k = 0; k < a->stats.size(); ++k)  // the leader's, then each member's
        if (a->stats[k].period != b->stats[k].period) return a->stats[k].period > b->stats[k].period;
      return key->order(*a->e, *b->e) < 0;
    });
    for (auto& c : n->children) SortChildren(c.get(), level + 1);
  }

  bool Shown(const Node& n) const {
    const double limit = report_.options().percent_limit;
    if (!n.visible) return false;
    return !(limit > 0 && Percent(n.stats[0].period, h_.total_period) < limit);
  }

  void PrintChildren(const Node& n, size_t depth, std::string* out) const {
    for (const auto& c : n.children) {
      if (!Shown(*c)) continue;
      PrintEntry(*c, depth, out);
      if (depth + 1 < levels_) {
        if (std::none_of(c->children.begin(), c->children.end(), [&](const auto& g) { return Shown(*g); })) {
          // perf's "no entry >= x.xx%" under an entry whose children are all below the limit.
          if (sep_.empty()) out->append((levels_ + 1 + depth + 1 - 2) * kIndent, ' ');
          size_t width = 0;
          for (size_t i = 0; i < values_.size(); ++i) width += values_[i]->width + (i ? 2 : 0);
          out->append(width + 4, ' ');
          fmt::format_to(std::back_inserter(*out), "no entry >= {:.2f}%\n", report_.options().percent_limit);
        } else {
          PrintChildren(*c, depth + 1, out);
        }
      }
    }
  }

  void PrintEntry(const Node& n, size_t depth, std::string* out) const {
    const bool use_sep = !sep_.empty();
    out->append(depth * kIndent, ' ');
    std::vector<FieldValue> vals;
    for (size_t i = 0; i < values_.size(); ++i) {
      const OutputField& f = *values_[i];
      if (!use_sep || i) out->append(use_sep ? sep_ : "  ");
      // One value per member, each in its own width (as the flat layout).
      vals.clear();
      for (size_t k = 0; k < n.stats.size(); ++k) vals.push_back({&n.stats[k], n.stats[k].period, hists_[k]->total_period});
      AppendNumericCell(f, vals, value_len_[i], sep_, report_.options().color, out);
    }
    const size_t nodes = levels_ + 1;
    if (!use_sep && nodes >= 2) out->append((nodes - 2) * kIndent, ' ');
    // The level's key, padded as a column but with leading blanks dropped (perf's ltrim).
    const OutputField& f = *keys_[depth];
    std::string cell;
    f.key->print(*n.e, &cell);
    if (use_sep) std::replace(cell.begin(), cell.end(), sep_[0], '.');
    else if (f.key->truncate && cell.size() > f.width) cell.resize(f.width);
    if (f.key->pad_last && cell.size() < f.width) cell.append(f.width - cell.size(), ' ');
    out->append(use_sep ? sep_ : "  ");
    out->append(cell, std::min(cell.find_first_not_of(' '), cell.size()));
    out->push_back('\n');
    if (depth + 1 == levels_ && report_.call_graph().mode != CallGraphMode::kNone) {
      // The leaf's call graph, as the flat layout prints it (its first leader row's).
      if (const HistEntry* e = n.chain_row)
        if (auto chain = h_.BuildChain(e, report_.call_graph()))
          PrintCallchain(*chain, report_.call_graph(), h_.all_period(), e->self.period, out, h_.total_period);
    }
  }

  const HistsOutput& report_;
  const std::vector<const Hists*>& hists_;
  const Hists& h_;  // the leader's
  const std::string& sep_;
  std::vector<const OutputField*> values_, keys_;
  std::vector<size_t> value_len_;  // parallel to values_: one member's width
  size_t levels_ = 0;
  Node root_;
  std::map<const Node*, Index> child_index_;
};

}  // namespace

void AppendHierarchy(const HistsOutput& report, const std::vector<const Hists*>& hists,
                     const std::vector<HierarchyRow>& rows, const std::vector<OutputField>& fields,
                     const std::vector<size_t>& member_len, std::string* out) {
  if (hists.empty()) return;
  Printer p(report, hists, fields, member_len);
  p.Build(rows);
  p.Print(out);
}

}  // namespace perflens
