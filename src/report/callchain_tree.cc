#include "report/callchain_tree.h"

#include <cctype>

#include "perfdata/perf_event.h"
#include "report/percent_color.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace perflens {

CallchainNode::CallchainNode() = default;
CallchainNode::~CallchainNode() = default;
CallchainNode::CallchainNode(CallchainNode&&) noexcept = default;
CallchainNode& CallchainNode::operator=(CallchainNode&&) noexcept = default;

namespace {

CallchainNode* FindChild(CallchainNode* node, const ChainFrame& f) {
  for (auto& c : node->children)
    if (!c->val.empty() && c->val[0].SameFunction(f)) return c.get();
  return nullptr;
}

void AddNewChild(CallchainNode* parent, std::span<const ChainFrame> chain, uint64_t period) {
  auto node = std::make_unique<CallchainNode>();
  node->val.assign(chain.begin(), chain.end());
  node->hit = period;
  node->count = 1;
  parent->children.push_back(std::move(node));
}

// Splits `node` after `at` entries: the tail (with the node's hits and children) moves
// into a new child.
void Split(CallchainNode* node, size_t at) {
  auto tail = std::make_unique<CallchainNode>();
  tail->val.assign(node->val.begin() + static_cast<long>(at), node->val.end());
  tail->hit = node->hit;
  tail->count = node->count;
  tail->children_hit = node->children_hit;
  tail->children_count = node->children_count;
  tail->children = std::move(node->children);
  node->val.resize(at);
  node->children.clear();
  node->children_hit = tail->cumul();
  node->children_count = tail->count + tail->children_count;
  node->hit = 0;
  node->count = 0;
  node->children.push_back(std::move(tail));
}

}  // namespace

void AppendChain(CallchainNode* root, std::span<const ChainFrame> chain, uint64_t period) {
  CallchainNode* node = root;
  // `node` is an inner node whose val is fully matched; descend among its children.
  while (true) {
    if (chain.empty()) {
      node->hit += period;
      node->count += 1;
      return;
    }
    CallchainNode* child = FindChild(node, chain[0]);
    node->children_hit += period;
    node->children_count += 1;
    if (!child) {
      AddNewChild(node, chain, period);
      return;
    }
    size_t i = 0;
    while (i < child->val.size() && i < chain.size() && child->val[i].SameFunction(chain[i])) ++i;
    if (i < child->val.size()) {
      Split(child, i);
      // The split child now holds chain[0..i); continue below it.
    }
    chain = chain.subspan(i);
    node = child;
  }
}

void ChainBranchCounts::Add(const ChainBranchEntry& e, uint64_t ip, bool creates) {
  ++branch_count;
  if (e.branch_from) {
    branch_to = true;
    if (e.flags.predicted) ++predicted_count;
    if (e.flags.abort) ++abort_count;
    types.Count(e.flags, e.branch_from, ip);
  } else {
    branch_to = false;
    cycles_count += e.flags.cycles;
    iter_count += e.nr_loop_iter;
    iter_cycles += e.iter_cycles;
    if (!creates) ++from_count;
  }
}

void AppendBranchCounts(const ChainBranchCounts& c, std::string* out) {
  if (c.branch_count == 0) {
    out->append(" (calltrace)");
    return;
  }
  int i = 0;  // perf's item index: the first item opens the parenthesis
  auto item = [&](std::string_view text) {
    out->append(i++ ? " " : " (");
    out->append(text);
  };
  if (c.branch_to) {
    c.types.AppendNames(item);
    if (c.predicted_count < c.branch_count)
      item(fmt::format("predicted:{:.1f}%",
                       static_cast<double>(static_cast<float>(c.predicted_count * 100.0 / c.branch_count))));
    if (c.abort_count) {
      // perf counts the item even when it prints nothing (below 0.1%).
      const float pct = static_cast<float>(c.abort_count * 100.0 / c.branch_count);
      if (pct < 0.1f) ++i;
      else item(fmt::format("abort:{:.1f}%", static_cast<double>(pct)));
    }
  } else {
    if (const uint64_t cycles = c.cycles_count / c.branch_count) item(fmt::format("cycles:{}", cycles));
    if (c.iter_count && c.from_count)
      if (const uint64_t v = c.iter_count / c.from_count) {
        item(fmt::format("iter:{}", v));
        item(fmt::format("avg_cycles:{}", c.iter_cycles / c.iter_count));
      }
  }
  if (i) out->push_back(')');
}

bool ParseCallGraphArg(const std::string& arg, CallGraphParams* p, bool* order_set, std::string* error) {
  size_t start = 0;
  bool threshold_set = false;  // the last word was the threshold: a number now is the limit
  while (start <= arg.size()) {
    size_t comma = arg.find(',', start);
    if (comma == std::string::npos) comma = arg.size();
    std::string w = arg.substr(start, comma - start);
    start = comma + 1;
    if (w.empty()) continue;
    const bool number = !w.empty() && (std::isdigit(static_cast<unsigned char>(w[0])) || w[0] == '.');
    if (!number) threshold_set = false;
    if (number && threshold_set) {
      char* end = nullptr;
      const unsigned long limit = std::strtoul(w.c_str(), &end, 0);
      if (end == w.c_str() || *end != '\0' || limit > UINT32_MAX) {
        *error = fmt::format("bad -g/--call-graph print limit '{}'", w);
        return false;
      }
      p->print_limit = static_cast<uint32_t>(limit);
      continue;
    }
    if (w == "none") p->mode = CallGraphMode::kNone;
    else if (w == "graph") p->mode = CallGraphMode::kGraph;
    else if (w == "fractal") p->mode = CallGraphMode::kFractal;
    else if (w == "flat") p->mode = CallGraphMode::kFlat;
    else if (w == "folded") p->mode = CallGraphMode::kFolded;
    else if (w == "caller") { p->caller_order = true; *order_set = true; }
    else if (w == "callee") { p->caller_order = false; *order_set = true; }
    else if (w == "percent") p->value = CallchainValue::kPercent;
    else if (w == "period") p->value = CallchainValue::kPeriod;
    else if (w == "count") p->value = CallchainValue::kCount;
    else if (w == "function") p->key = CallchainKey::kFunction;
    else if (w == "address") p->key = CallchainKey::kAddress;
    else if (w == "branch") p->branch_callstack = true;
    else if (w == "fp" || w == "dwarf" || w == "lbr")
      ;  // record modes: perf accepts them here too
    else {
      char* end = nullptr;
      double v = std::strtod(w.c_str(), &end);
      if (end && *end == '\0' && v >= 0) {
        p->min_percent = v;
        threshold_set = true;
      } else {
        *error = fmt::format("unknown -g/--call-graph word '{}'", w);
        return false;
      }
    }
  }
  return true;
}

uint64_t CallchainMinHit(const CallGraphParams& p, uint64_t total_period, uint64_t parent_children_hit) {
  if (p.mode == CallGraphMode::kFractal)
    return static_cast<uint64_t>(std::ceil(static_cast<double>(parent_children_hit) * p.min_percent / 100.0));
  return static_cast<uint64_t>(static_cast<double>(total_period) * p.min_percent / 100.0);
}

std::string CallchainFrameName(const ChainFrame& f) {
  if (!f.sym) return f.ip ? fmt::format("{:#x}", f.ip) : "0";
  std::string name(f.sym->name);
  if (f.srcline) name.append(" ").append(*f.srcline);
  if (f.sym->inlined) name.append(" (inlined)");
  return name;
}

namespace {

std::string FrameName(const ChainFrame& f) { return CallchainFrameName(f); }

// A graph entry: its name and, with --branch-history, perf's branch counts.
std::string EntryText(const CallchainNode& n, size_t e, const CallGraphParams& p) {
  std::string text = FrameName(n.val[e]);
  if (p.show_branch_counts) AppendBranchCounts(e < n.branch.size() ? n.branch[e] : ChainBranchCounts{}, &text);
  return text;
}

// The order of siblings with equal values: perf's rbtree of children (match_chain) keeps
// them by DSO, then by symbol start (the ip when unresolved, or with the address key);
// later DSO and higher address first.
std::pair<int, uint64_t> TieKey(const CallchainNode* n, CallchainKey key) {
  const ChainFrame& f = n->val.front();
  return {f.dso ? f.dso->id() : -1, f.sym && key == CallchainKey::kFunction ? f.sym->start : f.ip};
}

constexpr std::string_view kMargin = "            ";  // callchain__fprintf_left_margin

// Children of `node` kept for printing, sorted by cumulative period (stable for ties).
std::vector<const CallchainNode*> SortedChildren(const CallchainNode& node, uint64_t min_hit, CallchainKey key) {
  std::vector<const CallchainNode*> v;
  for (const auto& c : node.children)
    if (c->cumul() >= min_hit) v.push_back(c.get());
  // Ties keep perf's input-tree order (TieKey).
  std::stable_sort(v.begin(), v.end(), [&](const CallchainNode* a, const CallchainNode* b) {
    if (a->cumul() != b->cumul()) return a->cumul() > b->cumul();
    return TieKey(a, key) > TieKey(b, key);
  });
  return v;
}

uint64_t MinHit(const CallGraphParams& p, uint64_t total_period, const CallchainNode& parent) {
  return CallchainMinHit(p, total_period, parent.children_hit);
}

// perf's callchain_node__fprintf_value: `hits` is a period, `count` a sample count.
void Value(const CallGraphParams& p, uint64_t hits, uint64_t count, uint64_t total, std::string* out) {
  if (p.value == CallchainValue::kPeriod) {
    fmt::format_to(std::back_inserter(*out), "{}", hits);
    return;
  }
  if (p.value == CallchainValue::kCount) {
    fmt::format_to(std::back_inserter(*out), "{}", count);
    return;
  }
  double pct = total ? 100.0 * static_cast<double>(hits) / static_cast<double>(total) : 0.0;
  if (!p.color) {
    fmt::format_to(std::back_inserter(*out), "{:.2f}%", pct);
    return;
  }
  AppendPercentColored(true, pct, fmt::format("{:.2f}%", pct), out);
}

// perf keeps the graph's "|" columns in an int bit mask and shifts by the depth, which
// on x86 wraps at 32 (the shift count is taken mod 32): past depth 31 the columns
// repeat the pattern of the first 32. Reproduced so deep graphs print as perf's do.
constexpr uint32_t Bit(int i) { return 1u << (static_cast<unsigned>(i) & 31u); }

void PrintGraphLevel(const CallchainNode& parent, const CallGraphParams& p, uint64_t total_period,
                     uint64_t total, int depth, uint32_t depth_mask, int left_margin, std::string* out) {
  auto kids = SortedChildren(parent, MinHit(p, total_period, parent), p.key);
  size_t kids_unprinted = 0;
  uint64_t remaining = total;
  uint32_t new_mask = depth_mask;
  // perf's print limit stops after that many siblings (the last one printed keeps its
  // "|" when more follow unprinted, as perf's mask looks at the next node only).
  if (p.print_limit && kids.size() > p.print_limit) kids_unprinted = kids.size() - p.print_limit;
  const size_t printed_kids = kids.size() - kids_unprinted;
  for (size_t k = 0; k < printed_kids; ++k) {
    const CallchainNode* child = kids[k];
    remaining -= std::min(remaining, child->cumul());
    bool last = k + 1 == kids.size();
    if (last && (p.mode != CallGraphMode::kFractal || remaining == 0)) new_mask &= ~Bit(depth - 1);
    // Separator line keeps the old mask.
    out->append(kMargin);
    out->append(static_cast<size_t>(left_margin), ' ');
    for (int i = 0; i < depth; ++i) out->append((depth_mask & Bit(i)) ? "|          " : "           ");
    out->push_back('\n');
    for (size_t e = 0; e < child->val.size(); ++e) {
      out->append(kMargin);
      out->append(static_cast<size_t>(left_margin), ' ');
      for (int i = 0; i < depth; ++i) {
        out->push_back((new_mask & Bit(i)) ? '|' : ' ');
        if (e == 0 && i == depth - 1) {
          out->append("--");
          Value(p, child->cumul(), child->count + child->children_count, total, out);
          out->append("--");
        } else {
          out->append("          ");
        }
      }
      out->append(EntryText(*child, e, p));
      out->push_back('\n');
    }
    uint64_t new_total = p.mode == CallGraphMode::kFractal ? child->children_hit : total;
    PrintGraphLevel(*child, p, total_period, new_total, depth + 1, new_mask | Bit(depth), left_margin, out);
  }
  // perf: with count values the [...] line shows the samples not in the printed
  // children, and is left out when there are none.
  uint64_t cumul_count = 0;
  for (size_t k = 0; k < printed_kids; ++k) cumul_count += kids[k]->count + kids[k]->children_count;
  uint64_t rem_count = parent.children_count > cumul_count ? parent.children_count - cumul_count : 0;
  if (p.mode == CallGraphMode::kFractal && remaining && remaining != total && !kids.empty() &&
      (p.value != CallchainValue::kCount || rem_count > 0)) {
    out->append(kMargin);
    out->append(static_cast<size_t>(left_margin), ' ');
    uint32_t mask = new_mask & ~Bit(depth - 1);
    for (int i = 0; i < depth; ++i) {
      out->push_back((mask & Bit(i)) ? '|' : ' ');
      if (i == depth - 1) {
        out->append("--");
        Value(p, remaining, rem_count, total, out);
        out->append("--");
      } else {
        out->append("          ");
      }
    }
    out->append("[...]\n");
  }
}

void PrintGraph(const CallchainNode& root, const CallGraphParams& p, uint64_t total_period, uint64_t parent_period,
                uint64_t threshold_total, std::string* out) {
  size_t before = out->size();
  const CallchainNode* level = &root;
  int left_margin = 0;
  auto first = SortedChildren(root, MinHit(p, threshold_total, root), p.key);
  if (first.size() == 1 && first[0]->cumul() == parent_period) {
    // A single root chain: print it without a percentage (need_percent_display).
    const CallchainNode* c = first[0];
    bool printed = false;
    uint32_t entries_printed = 0;
    for (size_t e = 0; e < c->val.size(); ++e) {
      if (e == 0 && p.skip_first_sym) continue;
      if (!printed) {
        out->append(kMargin);
        out->append("|\n");
        out->append(kMargin);
        out->append("---");
        left_margin += 3;
        printed = true;
      } else {
        out->append(kMargin);
        out->append(static_cast<size_t>(left_margin), ' ');
      }
      out->append(EntryText(*c, e, p));
      out->push_back('\n');
      if (++entries_printed == p.print_limit) break;
    }
    level = c;
  }
  uint64_t total = p.mode == CallGraphMode::kFractal ? parent_period : total_period;
  PrintGraphLevel(*level, p, threshold_total, total, 1, 1, left_margin, out);
  if (out->size() != before) out->push_back('\n');
}

// Walks the nodes with hits in perf's __sort_chain_flat order: post-order, children in
// the input tree's order (later DSO first, then the higher address); `path` holds the
// frames from the root.
template <typename Fn>
void ForEachPath(const CallchainNode& node, CallchainKey key, std::vector<const ChainFrame*>* path, Fn&& fn) {
  for (const auto& f : node.val) path->push_back(&f);
  std::vector<const CallchainNode*> kids;
  for (const auto& c : node.children) kids.push_back(c.get());
  std::stable_sort(kids.begin(), kids.end(),
                   [&](const CallchainNode* a, const CallchainNode* b) { return TieKey(a, key) > TieKey(b, key); });
  for (const CallchainNode* c : kids) ForEachPath(*c, key, path, fn);
  if (node.hit) fn(node, *path);
  path->resize(path->size() - node.val.size());
}

}  // namespace

void PrintCallchain(const CallchainNode& root, const CallGraphParams& p, uint64_t total_period,
                    uint64_t parent_period, std::string* out, uint64_t threshold_total) {
  if (threshold_total == 0) threshold_total = total_period;
  switch (p.mode) {
    case CallGraphMode::kNone:
      return;
    case CallGraphMode::kGraph:
    case CallGraphMode::kFractal:
      PrintGraph(root, p, total_period, parent_period, threshold_total, out);
      return;
    case CallGraphMode::kFlat:
    case CallGraphMode::kFolded: {
      // perf prints one chain per node that has hits, sorted by hits (flat: value line,
      // then one frame per line; folded: "value a;b;c").
      struct Leaf {
        uint64_t hit, count;
        uint64_t cumul_hit, cumul_count;  // flat prints these (callchain_node__fprintf_value)
        std::vector<const ChainFrame*> frames;
      };
      std::vector<Leaf> leaves;
      std::vector<const ChainFrame*> path;
      uint64_t min_hit = CallchainMinHit(p, threshold_total, root.children_hit);
      ForEachPath(root, p.key, &path, [&](const CallchainNode& n, const std::vector<const ChainFrame*>& fr) {
        if (n.hit >= min_hit) leaves.push_back({n.hit, n.count, n.cumul(), n.count + n.children_count, fr});
      });
      std::stable_sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) { return a.hit > b.hit; });
      if (p.print_limit && leaves.size() > p.print_limit) leaves.resize(p.print_limit);
      for (const auto& l : leaves) {
        if (p.mode == CallGraphMode::kFlat) {
          out->append("           ");
          Value(p, l.cumul_hit, l.cumul_count, total_period, out);
          out->push_back('\n');
          // perf's __callchain__fprintf_flat/_folded skip entries at or above
          // PERF_CONTEXT_MAX (the ~0 frame that ends a DWARF chain cut off by the copy).
          for (const ChainFrame* f : l.frames)
            if (f->ip < kContextMax) fmt::format_to(std::back_inserter(*out), "                {}\n", FrameName(*f));
          out->push_back('\n');
        } else {
          Value(p, l.hit, l.count, total_period, out);
          out->push_back(' ');
          bool first = true;
          for (const ChainFrame* f : l.frames) {
            if (f->ip >= kContextMax) continue;
            if (!first) out->append(p.folded_separator);
            first = false;
            out->append(FrameName(*f));
          }
          out->push_back('\n');
        }
      }
      return;
    }
  }
}


namespace {

double Percent(uint64_t v, uint64_t total) {
  return total ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0.0;
}

// PrintGraphLevel's walk, building nodes instead of text.
void GraphViewLevel(const CallchainNode& parent, const CallGraphParams& p, uint64_t threshold_total, uint64_t total,
                    std::vector<CallchainViewNode>* out) {
  auto kids = SortedChildren(parent, MinHit(p, threshold_total, parent), p.key);
  const size_t printed = p.print_limit && kids.size() > p.print_limit ? p.print_limit : kids.size();
  for (size_t k = 0; k < printed; ++k) {
    const CallchainNode* child = kids[k];
    CallchainViewNode node{{}, child->cumul(), child->count + child->children_count, Percent(child->cumul(), total), {}};
    for (const ChainFrame& f : child->val) node.frames.push_back(&f);
    uint64_t new_total = p.mode == CallGraphMode::kFractal ? child->children_hit : total;
    GraphViewLevel(*child, p, threshold_total, new_total, &node.children);
    out->push_back(std::move(node));
  }
}

}  // namespace

CallchainView MakeCallchainView(const CallchainNode& root, const CallGraphParams& p, uint64_t total_period,
                                uint64_t parent_period, uint64_t threshold_total) {
  if (threshold_total == 0) threshold_total = total_period;
  CallchainView view;
  if (p.mode == CallGraphMode::kNone) return view;
  if (p.mode == CallGraphMode::kFlat || p.mode == CallGraphMode::kFolded) {
    // PrintCallchain's flat/folded selection and order.
    std::vector<const ChainFrame*> path;
    uint64_t min_hit = CallchainMinHit(p, threshold_total, root.children_hit);
    const bool flat = p.mode == CallGraphMode::kFlat;
    std::vector<std::pair<uint64_t, CallchainViewChain>> leaves;  // (hit, chain)
    ForEachPath(root, p.key, &path, [&](const CallchainNode& n, const std::vector<const ChainFrame*>& fr) {
      if (n.hit < min_hit) return;
      CallchainViewChain c;
      c.period = flat ? n.cumul() : n.hit;
      c.samples = flat ? n.count + n.children_count : n.count;
      c.percent = Percent(c.period, total_period);
      for (const ChainFrame* f : fr)
        if (f->ip < kContextMax) c.frames.push_back(f);
      leaves.emplace_back(n.hit, std::move(c));
    });
    std::stable_sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (p.print_limit && leaves.size() > p.print_limit) leaves.resize(p.print_limit);
    for (auto& l : leaves) view.chains.push_back(std::move(l.second));
    return view;
  }
  // PrintGraph: a single root chain first, then the levels below.
  const uint64_t total = p.mode == CallGraphMode::kFractal ? parent_period : total_period;
  const CallchainNode* level = &root;
  std::vector<CallchainViewNode>* dst = &view.graph;
  auto first = SortedChildren(root, MinHit(p, threshold_total, root), p.key);
  if (first.size() == 1 && first[0]->cumul() == parent_period) {
    const CallchainNode* c = first[0];
    CallchainViewNode node{{}, c->cumul(), c->count + c->children_count, Percent(c->cumul(), total), {}};
    for (size_t e = 0; e < c->val.size(); ++e) {
      if (e == 0 && p.skip_first_sym) continue;
      node.frames.push_back(&c->val[e]);
      if (node.frames.size() == p.print_limit) break;
    }
    level = c;
    if (!node.frames.empty()) {
      view.graph.push_back(std::move(node));
      dst = &view.graph.back().children;
    }
  }
  GraphViewLevel(*level, p, threshold_total, total, dst);
  return view;
}

}  // namespace perflens
