// CallchainTree: perf's per-entry callchain tree (tools/perf/util/callchain.c): chains of
// frames are merged by function (same DSO and symbol start, or same ip when unresolved);
// a node holds a run of frames that always occur together, split when a new chain
// diverges inside it. Printed as perf report's graph / fractal / flat / folded.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/dso.h"
#include "report/branch_type.h"
#include "symbolize/symbol_table.h"

namespace perflens {

struct ChainFrame {
  const Dso* dso = nullptr;
  const Symbol* sym = nullptr;
  uint64_t ip = 0;  // the entry's raw ip (runtime address; printed when unresolved)
  // With the address key (-g ...,address): the frame's source line as perf prints it
  // after the name ("file:line", "??:0", or "+offset" where addr2line has no file);
  // interned by the report, nullptr otherwise.
  const std::string* srcline = nullptr;
  bool SameFunction(const ChainFrame& o) const {
    if (dso != o.dso) return false;
    // perf's match_chain: inlined frames share their function's start, so they
    // compare by name.
    if (sym && o.sym) return sym->inlined || o.sym->inlined ? sym->name == o.sym->name : sym->start == o.sym->start;
    return ip == o.ip;
  }
};

// One callchain entry's part of a branch stack (--branch-history, perf's
// callchain_cursor_node branch fields): the entry is the target of the branch from
// `branch_from` (non-zero) or its source (0), with that entry's flags; a source keeps
// the loop iterations remove_loops folded into it.
struct ChainBranchEntry {
  uint64_t branch_from = 0;
  BranchFlags flags;
  uint32_t nr_loop_iter = 0;
  uint64_t iter_cycles = 0;
};

// What perf's callchain_list counts for one printed entry over the chains through it
// (fill_node, match_chain), and prints after its name with --branch-history.
struct ChainBranchCounts {
  uint64_t branch_count = 0, predicted_count = 0, abort_count = 0, cycles_count = 0;
  uint64_t iter_count = 0, iter_cycles = 0, from_count = 0;
  BranchTypeStat types;
  bool branch_to = false;  // the last entry counted was a branch target
  // Counts one chain's entry; `creates`: the first chain through the entry, whose
  // source perf's fill_node leaves out of from_count (only match_chain counts it).
  void Add(const ChainBranchEntry& e, uint64_t ip, bool creates);
};

// perf's counts_str_build: " (calltrace)" for an entry of the recorded callchain, else
// " (COND_BWD predicted:50.0%)" for targets, " (cycles:7 iter:1 avg_cycles:7)" for
// sources, nothing when there is nothing to say.
void AppendBranchCounts(const ChainBranchCounts& c, std::string* out);

struct CallchainNode {
  CallchainNode();
  ~CallchainNode();
  CallchainNode(CallchainNode&&) noexcept;
  CallchainNode& operator=(CallchainNode&&) noexcept;
  std::vector<ChainFrame> val;
  // With branch counts (CallchainStore with branch entries): one per val entry.
  std::vector<ChainBranchCounts> branch;
  uint64_t hit = 0;           // period of chains that end here
  uint64_t children_hit = 0;  // period of chains that continue below
  uint64_t count = 0, children_count = 0;
  std::vector<std::unique_ptr<CallchainNode>> children;  // insertion order
  uint64_t cumul() const { return hit + children_hit; }
};

// Adds one chain (already in the print order: caller or callee first) with `period`:
// perf's append_chain, one sample at a time. The report builds its trees with
// CallchainStore instead; this is the reference it is tested against.
void AppendChain(CallchainNode* root, std::span<const ChainFrame> chain, uint64_t period);

enum class CallGraphMode { kNone, kGraph, kFractal, kFlat, kFolded };

// What makes two frames one call-graph node (perf's callchain_param.key): the function
// (DSO and symbol start; inlined frames by name), or the address (DSO and the entry's
// ip: each call site apart, printed with its source line).
enum class CallchainKey { kFunction, kAddress };

// What a call-graph line shows (perf's callchain_param.value): percent of the total,
// the period ("period"), or the number of samples ("count").
enum class CallchainValue { kPercent, kPeriod, kCount };

struct CallGraphParams {
  CallGraphMode mode = CallGraphMode::kGraph;
  double min_percent = 0.5;  // threshold
  CallchainValue value = CallchainValue::kPercent;
  CallchainKey key = CallchainKey::kFunction;
  bool caller_order = false;  // resolved by the report: caller with children, else callee
  bool skip_first_sym = false;  // perf omits the first entry when sorting by sym only
  // perf's print_limit (-g graph,0.5,N: the number after the threshold): at most N
  // siblings per graph level, N frames of a single root chain, N flat/folded chains;
  // 0 = all.
  uint32_t print_limit = 0;
  // Percentages in perf's colours (percent_color.h): --stdio-color, or a terminal.
  bool color = false;
  // Between folded frames: ";", or -t's separator (perf's field_sep ?: ";").
  std::string folded_separator = ";";
  // perf's callchain_param.branch_callstack (-g ...,branch, --branch-history): the
  // sample's branch stack is put in front of its callchain.
  bool branch_callstack = false;
  // perf's show_branchflag_count (--branch-history on a file with branch stacks):
  // graph entries end with their branch counts (AppendBranchCounts).
  bool show_branch_counts = false;
};

// Parses perf's -g argument: "graph,0.5,caller,function,percent", "none", "folded"...
// As perf's __parse_callchain_report_opt: the first number after a word is the
// threshold, a second one in a row the print limit. Unknown words are errors (message
// names them). Order words set *order_set.
bool ParseCallGraphArg(const std::string& arg, CallGraphParams* params, bool* order_set, std::string* error);

// The smallest cumulative period a child of a node with `parent_children_hit` below it
// needs to be printed: min_percent of the histogram's total, or of the parent's
// children with fractal (perf's callchain_param.min_percent / hierarchy).
uint64_t CallchainMinHit(const CallGraphParams& params, uint64_t total_period, uint64_t parent_children_hit);

// Appends the callchain text for one report row. `total_period` is the histogram's
// total (the percentages' base), `parent_period` the row's own (children: accumulated)
// period, `threshold_total` the base of the threshold (0: total_period; perf's
// hists__total_period, the filtered total with --percentage relative, where the
// percentages keep every sample's total).
void PrintCallchain(const CallchainNode& root, const CallGraphParams& params, uint64_t total_period,
                    uint64_t parent_period, std::string* out, uint64_t threshold_total = 0);

// The call graph PrintCallchain prints, as a structure for printers that want one
// (JSON). Graph/fractal: one node per printed value line ("--12.5%--"), holding the run
// of frames printed under it (perf's callchain_node), children in print order, pruned by
// the same threshold and print limit. A single root chain (printed without a value)
// is a node too. The fractal "[...]" remainder lines are left out (they are a
// parent's period minus its children's).
struct CallchainViewNode {
  std::vector<const ChainFrame*> frames;  // into the CallchainNode tree it was made from
  uint64_t period = 0;                    // period of the chains through this node
  uint64_t samples = 0;                   // number of those chains (samples)
  double percent = 0;                     // as the graph prints it: of the total, fractal of the parent
  std::vector<CallchainViewNode> children;
};
// Flat/folded: one chain per printed line group, in print order, frames in the chain's
// print order, context markers (ip >= kContextMax) left out. period/samples/percent
// are the printed value's: flat the chains through the chain's last frame, folded the
// chains ending there.
struct CallchainViewChain {
  uint64_t period = 0, samples = 0;
  double percent = 0;
  std::vector<const ChainFrame*> frames;
};
struct CallchainView {
  std::vector<CallchainViewNode> graph;   // graph, fractal
  std::vector<CallchainViewChain> chains;  // flat, folded
};
// Same arguments as PrintCallchain.
CallchainView MakeCallchainView(const CallchainNode& root, const CallGraphParams& params, uint64_t total_period,
                                uint64_t parent_period, uint64_t threshold_total = 0);

// A frame's name as the call graph prints it (perf's callchain_list__sym_name): the
// symbol, " srcline" with the address key, " (inlined)"; the ip in hex when unresolved.
std::string CallchainFrameName(const ChainFrame& f);

}  // namespace perflens
