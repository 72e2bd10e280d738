#include "report/sort_key.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/srcline.h"

namespace perflens {

uint64_t CommIds::FindSlow(const std::string* comm) {
  if (!comm) return UINT64_MAX;
  auto [it, added] = by_pointer_.try_emplace(comm, 0);
  if (added) it->second = by_text_.try_emplace(*comm, static_cast<uint32_t>(by_text_.size())).first->second;
  last_ = comm;
  last_id_ = it->second;
  return last_id_;
}

namespace {

int Cmp(std::string_view a, std::string_view b) { return a < b ? -1 : a > b ? 1 : 0; }
template <typename T>
int CmpValue(T a, T b) { return a < b ? -1 : a > b ? 1 : 0; }

constexpr uint64_t kNoId = UINT64_MAX;  // a null pointer's id word (ids are 32-bit)

std::string_view CommText(const HistEntry& e) { return e.comm ? std::string_view(*e.comm) : std::string_view(); }

void IdComm(const HistEntry& e, CommIds* comms, uint64_t* w) { w[0] = comms->Find(e.comm); }
int CollapseComm(const HistEntry& a, const HistEntry& b) { return Cmp(CommText(a), CommText(b)); }
int OrderComm(const HistEntry& a, const HistEntry& b) { return Cmp(*a.comm, *b.comm); }
void PrintComm(const HistEntry& e, std::string* out) { out->append(*e.comm); }
void JsonComm(const HistEntry& e, nlohmann::json* row) { (*row)["comm"] = *e.comm; }

// The pid key is perf's "thread" key: grouped by tid, printed with the thread's comm.
std::string_view PidCommText(const HistEntry& e) {
  // perf prints thread__comm_str(he->thread): the thread's comm at output time.
  return e.thread ? std::string_view(e.thread->comm()) : CommText(e);
}
void IdPid(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.tid; }
int CollapsePid(const HistEntry& a, const HistEntry& b) {
  if (int c = CmpValue(a.tid, b.tid)) return c;
  return Cmp(PidCommText(a), PidCommText(b));
}
int OrderPid(const HistEntry& a, const HistEntry& b) { return CmpValue(a.tid, b.tid); }
void PrintPid(const HistEntry& e, std::string* out) {
  // perf's "Pid:Command": "%7d:%s" of the thread's tid and comm.
  fmt::format_to(std::back_inserter(*out), "{:>7}:{}", static_cast<int32_t>(e.tid), PidCommText(e));
}
void JsonPid(const HistEntry& e, nlohmann::json* row) {
  (*row)["pid"] = e.pid;
  (*row)["tid"] = e.tid;
  (*row)["comm"] = *e.comm;
}

uint64_t DsoId(const Dso* dso) { return dso ? static_cast<uint32_t>(dso->id()) : kNoId; }
void IdDso(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = DsoId(e.dso); }
int OrderDso(const HistEntry& a, const HistEntry& b) { return Cmp(DsoColumnName(a.dso), DsoColumnName(b.dso)); }
void PrintDso(const HistEntry& e, std::string* out) { out->append(DsoColumnName(e.dso)); }
void JsonDso(const HistEntry& e, nlohmann::json* row) {
  (*row)["dso"] = std::string(DsoColumnName(e.dso));
  if (e.dso) (*row)["dso_path"] = e.dso->long_name();
}

// Word 0 says which space word 1 is in (and the dso for symbols): as perf, resolved
// symbols are told apart by identity — (dso, position in its table) — and unresolved
// ones by address alone. A Symbol outside any table (Report's placeholders for deferred
// kernel symbols, one per address) is keyed by (dso, start). (dso, index) names what
// the Symbol* named because the Symbolizer keeps one table per Dso (kKernel Dsos share
// kallsyms' table, but only Machine::kernel_dso is ever mapped).
constexpr uint64_t kSymUnresolved = 0, kSymInTable = 1ULL << 32, kSymOutsideTable = 2ULL << 32;
void IdSym(const HistEntry& e, CommIds*, uint64_t* w) {
  const uint64_t dso = e.dso ? static_cast<uint32_t>(e.dso->id()) : UINT32_MAX;
  if (!e.sym) {
    w[0] = kSymUnresolved;
    w[1] = e.key_addr;
  } else if (e.sym->index != Symbol::kNoIndex) {
    w[0] = kSymInTable | dso;
    w[1] = e.sym->index;
  } else {
    w[0] = kSymOutsideTable | dso;
    w[1] = e.sym->start;
  }
}
int OrderSym(const HistEntry& a, const HistEntry& b) {
  if (!a.sym || !b.sym) return (!a.sym && !b.sym) ? 0 : (!a.sym ? 1 : -1);
  return Cmp(a.sym->name, b.sym->name);
}
int CollapseSym(const HistEntry& a, const HistEntry& b) {
  if (a.sym && b.sym) return Cmp(a.sym->name, b.sym->name);
  if (a.sym || b.sym) return a.sym ? -1 : 1;
  return CmpValue(a.key_addr, b.key_addr);
}
void JsonSym(const HistEntry& e, nlohmann::json* row) {
  (*row)["symbol"] = e.sym ? nlohmann::json(std::string(e.sym->name)) : nlohmann::json(nullptr);
  if (e.sym && e.sym->inlined) (*row)["inlined"] = true;
  (*row)["addr"] = e.key_addr;
  (*row)["level"] = std::string(1, e.level);
}

void IdCpu(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.cpu; }
int OrderCpu(const HistEntry& a, const HistEntry& b) { return CmpValue(a.cpu, b.cpu); }
void PrintCpu(const HistEntry& e, std::string* out) {
  int cpu = static_cast<int32_t>(e.cpu);
  // perf prints "%*.*d" with width and precision 3: -1 → "-001".
  if (cpu < 0) fmt::format_to(std::back_inserter(*out), "-{:03}", -cpu);
  else fmt::format_to(std::back_inserter(*out), "{:03}", cpu);
}
void JsonCpu(const HistEntry& e, nlohmann::json* row) { (*row)["cpu"] = static_cast<int32_t>(e.cpu); }

// srcline (report/srcline.h): rows with a line are one row per "file:line" text; rows
// without one are one per (dso, address), whose fallback texts differ. Ordered and
// collapsed by the printed text, as perf's sort__srcline_cmp compares he->srcline.
constexpr uint64_t kSrclineKnown = 1ULL << 63;
void IdSrcline(const HistEntry& e, CommIds*, uint64_t* w) {
  if (e.srcline) {
    w[0] = kSrclineKnown | e.srcline_id;
    w[1] = 0;
  } else {
    w[0] = DsoId(e.dso);
    w[1] = e.key_addr;
  }
}
std::string SrclineText(const HistEntry& e) {
  std::string text;
  SrcLines::Print(e, &text);
  return text;
}
int OrderSrcline(const HistEntry& a, const HistEntry& b) {
  if (a.srcline && b.srcline) return Cmp(*a.srcline, *b.srcline);
  return Cmp(SrclineText(a), SrclineText(b));
}
void JsonSrcline(const HistEntry& e, nlohmann::json* row) { (*row)["srcline"] = SrclineText(e); }
// srcfile: one row per file name; addresses without a line share perf's empty one.
void IdSrcfile(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.srcfile ? e.srcfile_id : kNoId; }
std::string_view SrcfileText(const HistEntry& e) { return e.srcfile ? std::string_view(*e.srcfile) : std::string_view(); }
int OrderSrcfile(const HistEntry& a, const HistEntry& b) { return Cmp(SrcfileText(a), SrcfileText(b)); }
void JsonSrcfile(const HistEntry& e, nlohmann::json* row) { (*row)["srcfile"] = std::string(SrcfileText(e)); }

// parent (-p/--parent): identified like a resolved symbol; printed by name, "[other]"
// without one; ordered by name as perf's sort__parent_cmp.
void IdParent(const HistEntry& e, CommIds*, uint64_t* w) {
  if (!e.parent) {
    w[0] = kNoId;
    w[1] = 0;
    return;
  }
  const uint64_t dso = e.parent_dso ? static_cast<uint32_t>(e.parent_dso->id()) : UINT32_MAX;
  const bool in_table = e.parent->index != Symbol::kNoIndex;
  w[0] = (in_table ? kSymInTable : kSymOutsideTable) | dso;
  w[1] = in_table ? e.parent->index : e.parent->start;
}
std::string_view ParentText(const HistEntry& e) { return e.parent ? std::string_view(e.parent->name) : "[other]"; }
int OrderParent(const HistEntry& a, const HistEntry& b) { return Cmp(ParentText(a), ParentText(b)); }
void PrintParent(const HistEntry& e, std::string* out) { out->append(ParentText(e)); }
void JsonParent(const HistEntry& e, nlohmann::json* row) {
  (*row)["parent"] = e.parent ? nlohmann::json(std::string(e.parent->name)) : nlohmann::json(nullptr);
}

// Branch mode keys (perf's sort_dimension branch_sort_dimensions). Their order
// functions follow perf 6.1's se_cmp directions, which differ from the keys above: dso
// names descending (no dso first), addresses and symbol starts ascending, cycles
// descending. Without a branch entry they print "N/A" (perf).
int OrderBranchDso(const Dso* a, const Dso* b) {
  if (!a || !b) return (!a && !b) ? 0 : (!a ? -1 : 1);
  return -Cmp(a->short_name(), b->short_name());
}
void PrintBranchDso(const HistEntry& e, const BranchEnd& end, std::string* out) {
  out->append(e.has_branch ? DsoColumnName(end.dso) : "N/A");
}
uint64_t BranchEndIdWord(const BranchEnd& end) {
  return end.sym ? (kSymInTable | (end.dso ? static_cast<uint32_t>(end.dso->id()) : UINT32_MAX)) : kSymUnresolved;
}
void IdBranchSym(const BranchEnd& end, uint64_t* w) {
  w[0] = BranchEndIdWord(end);
  w[1] = end.sym ? (end.sym->index != Symbol::kNoIndex ? end.sym->index : end.sym->start) : end.addr;
}
int OrderBranchSym(const BranchEnd& a, const BranchEnd& b) {
  if (!a.sym && !b.sym) {
    // _sort__addr_cmp: the signed difference, as perf.
    const auto d = static_cast<int64_t>(b.addr - a.addr);
    return d > 0 ? -1 : d < 0 ? 1 : 0;
  }
  if (!a.sym || !b.sym) return a.sym ? -1 : 1;
  if (a.sym == b.sym) return 0;
  if (int c = CmpValue(a.sym->start, b.sym->start)) return c;
  return CmpValue(a.sym->end, b.sym->end);
}
int CollapseBranchSym(const BranchEnd& a, const BranchEnd& b) {
  if (a.sym && b.sym) return Cmp(a.sym->name, b.sym->name);
  if (a.sym || b.sym) return a.sym ? -1 : 1;
  return CmpValue(a.addr, b.addr);
}
void PrintBranchSym(const HistEntry& e, const BranchEnd& end, std::string* out) {
  if (!e.has_branch) {
    out->append("N/A");
    return;
  }
  HistEntry shown;
  shown.level = end.level;
  shown.sym = end.sym;
  shown.key_addr = end.al_addr;
  PrintSymbolColumn(shown, out);
}
void JsonBranchEnd(const BranchEnd& end, const char* prefix, nlohmann::json* row) {
  const std::string p(prefix);
  (*row)[p + "_symbol"] = end.sym ? nlohmann::json(std::string(end.sym->name)) : nlohmann::json(nullptr);
  (*row)[p + "_addr"] = end.addr;
  (*row)[p + "_dso"] = std::string(DsoColumnName(end.dso));
}

// hists__calc_col_len for branch ends: a resolved symbol's name + 4 ("[.] ") and its
// dso's name; unresolved, the raw address's 22 and BITS_PER_LONG / 4 for the dso.
size_t BranchSymColLen(const BranchEnd& end) { return end.sym ? end.sym->name.size() + 4 : 16 + 4 + 2; }
size_t BranchDsoColLen(const BranchEnd& end) { return end.sym ? DsoColumnName(end.dso).size() : 16; }
size_t ColLenSymFrom(const HistEntry& e) { return BranchSymColLen(e.from); }
size_t ColLenSymTo(const HistEntry& e) { return BranchSymColLen(e.to); }
size_t ColLenDsoFrom(const HistEntry& e) { return BranchDsoColLen(e.from); }
size_t ColLenDsoTo(const HistEntry& e) { return BranchDsoColLen(e.to); }

void IdDsoFrom(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = DsoId(e.from.dso); }
void IdDsoTo(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = DsoId(e.to.dso); }
int OrderDsoFrom(const HistEntry& a, const HistEntry& b) { return OrderBranchDso(a.from.dso, b.from.dso); }
int OrderDsoTo(const HistEntry& a, const HistEntry& b) { return OrderBranchDso(a.to.dso, b.to.dso); }
int CollapseDsoFrom(const HistEntry& a, const HistEntry& b) {
  return Cmp(DsoColumnName(a.from.dso), DsoColumnName(b.from.dso));
}
int CollapseDsoTo(const HistEntry& a, const HistEntry& b) { return Cmp(DsoColumnName(a.to.dso), DsoColumnName(b.to.dso)); }
void PrintDsoFrom(const HistEntry& e, std::string* out) { PrintBranchDso(e, e.from, out); }
void PrintDsoTo(const HistEntry& e, std::string* out) { PrintBranchDso(e, e.to, out); }
void JsonDsoFrom(const HistEntry& e, nlohmann::json* row) { (*row)["dso_from"] = std::string(DsoColumnName(e.from.dso)); }
void JsonDsoTo(const HistEntry& e, nlohmann::json* row) { (*row)["dso_to"] = std::string(DsoColumnName(e.to.dso)); }

void IdSymFrom(const HistEntry& e, CommIds*, uint64_t* w) { IdBranchSym(e.from, w); }
void IdSymTo(const HistEntry& e, CommIds*, uint64_t* w) { IdBranchSym(e.to, w); }
int OrderSymFrom(const HistEntry& a, const HistEntry& b) { return OrderBranchSym(a.from, b.from); }
int OrderSymTo(const HistEntry& a, const HistEntry& b) { return OrderBranchSym(a.to, b.to); }
int CollapseSymFrom(const HistEntry& a, const HistEntry& b) { return CollapseBranchSym(a.from, b.from); }
int CollapseSymTo(const HistEntry& a, const HistEntry& b) { return CollapseBranchSym(a.to, b.to); }
void PrintSymFrom(const HistEntry& e, std::string* out) { PrintBranchSym(e, e.from, out); }
void PrintSymTo(const HistEntry& e, std::string* out) { PrintBranchSym(e, e.to, out); }
void JsonSymFrom(const HistEntry& e, nlohmann::json* row) { JsonBranchEnd(e.from, "from", row); }
void JsonSymTo(const HistEntry& e, nlohmann::json* row) { JsonBranchEnd(e.to, "to", row); }

// mispredict: "N" predicted, "Y" mispredicted, "N/A" neither. perf 6.1 keeps the text
// in a static and prints the previous row's answer for a row with neither flag; the
// truth is printed here (README "differs on purpose"). perf's se_cmp only says whether
// two rows differ, which orders nothing: rows stay in the order of the later keys.
void IdMispredict(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = (e.mispred ? 1u : 0u) | (e.predicted ? 2u : 0u); }
int OrderMispredict(const HistEntry&, const HistEntry&) { return 0; }
int CollapseMispredict(const HistEntry& a, const HistEntry& b) {
  return CmpValue((a.mispred ? 1 : 0) | (a.predicted ? 2 : 0), (b.mispred ? 1 : 0) | (b.predicted ? 2 : 0));
}
std::string_view MispredictText(const HistEntry& e) {
  if (!e.has_branch) return "N/A";
  return e.predicted ? "N" : e.mispred ? "Y" : "N/A";
}
void PrintMispredict(const HistEntry& e, std::string* out) { out->append(MispredictText(e)); }
void JsonMispredict(const HistEntry& e, nlohmann::json* row) { (*row)["mispredict"] = std::string(MispredictText(e)); }

void IdCycles(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.cycles; }
int OrderCycles(const HistEntry& a, const HistEntry& b) { return -CmpValue(a.cycles, b.cycles); }
int CollapseCycles(const HistEntry& a, const HistEntry& b) { return CmpValue(a.cycles, b.cycles); }
void PrintCycles(const HistEntry& e, std::string* out) {
  if (!e.has_branch) out->append("N/A");
  else if (e.cycles == 0) out->append("-");
  else fmt::format_to(std::back_inserter(*out), "{}", e.cycles);
}
void JsonCycles(const HistEntry& e, nlohmann::json* row) { (*row)["cycles"] = e.cycles; }
// srcline_from / srcline_to: perf's map__srcline of each end, one row per text (as
// perf's strcmp compare), ordered by it. perf 6.1 computes the text only inside its
// compare, so a row never compared on it prints "(null)"; the truth is printed here
// (README "differs on purpose").
std::string_view BranchSrclineText(const HistEntry& e, const BranchEnd& end) {
  if (!e.has_branch) return "N/A";
  return end.srcline ? std::string_view(*end.srcline) : std::string_view("??:0");
}
void IdBranchSrcline(const BranchEnd& end, uint64_t* w) { w[0] = end.srcline ? end.srcline_id : kNoId; }
void IdSrclineFrom(const HistEntry& e, CommIds*, uint64_t* w) { IdBranchSrcline(e.from, w); }
void IdSrclineTo(const HistEntry& e, CommIds*, uint64_t* w) { IdBranchSrcline(e.to, w); }
int OrderSrclineFrom(const HistEntry& a, const HistEntry& b) {
  return Cmp(BranchSrclineText(a, a.from), BranchSrclineText(b, b.from));
}
int OrderSrclineTo(const HistEntry& a, const HistEntry& b) {
  return Cmp(BranchSrclineText(a, a.to), BranchSrclineText(b, b.to));
}
void PrintSrclineFrom(const HistEntry& e, std::string* out) { out->append(BranchSrclineText(e, e.from)); }
void PrintSrclineTo(const HistEntry& e, std::string* out) { out->append(BranchSrclineText(e, e.to)); }
void JsonSrclineFrom(const HistEntry& e, nlohmann::json* row) { (*row)["srcline_from"] = std::string(BranchSrclineText(e, e.from)); }
void JsonSrclineTo(const HistEntry& e, nlohmann::json* row) { (*row)["srcline_to"] = std::string(BranchSrclineText(e, e.to)); }

// in_tx / abort: the entry's transaction flags, "tx"/"A" when set, "." when not
// (perf's in_tx / abort keys), ascending (perf's flag difference).
void IdInTx(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.in_tx; }
int OrderInTx(const HistEntry& a, const HistEntry& b) { return CmpValue(a.in_tx, b.in_tx); }
void PrintInTx(const HistEntry& e, std::string* out) { out->append(!e.has_branch ? "N/A" : e.in_tx ? "tx" : "."); }
void JsonInTx(const HistEntry& e, nlohmann::json* row) { (*row)["in_tx"] = e.in_tx; }
void IdAbort(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.abort; }
int OrderAbort(const HistEntry& a, const HistEntry& b) { return CmpValue(a.abort, b.abort); }
void PrintAbort(const HistEntry& e, std::string* out) { out->append(!e.has_branch ? "N/A" : e.abort ? "A" : "."); }
void JsonAbort(const HistEntry& e, nlohmann::json* row) { (*row)["abort"] = e.abort; }

// ipc_null: the column perf adds after a -s list naming "symbol" outside branch mode
// (no cycles to compute an IPC from): grouped like sym, printed "-      -".
void PrintIpcNull(const HistEntry&, std::string* out) { out->append("-      -"); }
void JsonIpcNull(const HistEntry&, nlohmann::json*) {}

// trace (report/trace_texts.h): one row per payload text, ordered by it (perf's
// sort__trace_cmp compares he->trace_output).
void IdTrace(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.trace ? e.trace_id : kNoId; }
std::string_view TraceText(const HistEntry& e) { return e.trace ? std::string_view(*e.trace) : std::string_view(); }
int OrderTrace(const HistEntry& a, const HistEntry& b) { return Cmp(TraceText(a), TraceText(b)); }
void PrintTrace(const HistEntry& e, std::string* out) { out->append(TraceText(e)); }
void JsonTrace(const HistEntry& e, nlohmann::json* row) { (*row)["trace"] = std::string(TraceText(e)); }

// time: the sample time's bucket, earliest first among equal overheads (perf's
// sort__time_cmp), printed as seconds with 6 decimals, or 9 with --ns (its
// timestamp__scnprintf_usec/nsec) in a column 12 (16) wide that cuts longer texts
// ("%-.*s": a sample without PERF_SAMPLE_TIME has time -1, "18446744073.").
void IdTime(const HistEntry& e, CommIds*, uint64_t* w) { w[0] = e.time; }
int OrderTime(const HistEntry& a, const HistEntry& b) { return CmpValue(a.time, b.time); }
void PrintTimeUs(const HistEntry& e, std::string* out) {
  fmt::format_to(std::back_inserter(*out), "{}.{:06}", e.time / 1000000000, e.time % 1000000000 / 1000);
}
void PrintTimeNs(const HistEntry& e, std::string* out) {
  fmt::format_to(std::back_inserter(*out), "{}.{:09}", e.time / 1000000000, e.time % 1000000000);
}
void JsonTime(const HistEntry& e, nlohmann::json* row) { (*row)["time"] = e.time; }
// -v (perf's verbose > 0). The Shared Object column is the DSO's long name
// (_hist_entry__dso_snprintf); the Symbol column starts with "%-#*llx %c " of the row's
// address and its DSO's symtab origin, 18 wide (BITS_PER_LONG / 4 + 2; C's '#' gives a
// zero no "0x"), e.g. "0x1270             B [.] StatPaths". perf's hists__calc_col_len
// widens the column by 21 for resolved rows only: an unresolved one keeps its 22.
std::string_view VerboseDsoName(const Dso* dso) {
  return dso ? std::string_view(dso->printable_long_name()) : "[unknown]";
}
void PrintDsoVerbose(const HistEntry& e, std::string* out) { out->append(VerboseDsoName(e.dso)); }
// perf's _sort__dso_cmp compares long names with verbose: "/tmp/…" before "[kernel.kallsyms]".
int OrderDsoVerbose(const HistEntry& a, const HistEntry& b) { return Cmp(VerboseDsoName(a.dso), VerboseDsoName(b.dso)); }
constexpr size_t kVerbosePrefix = 18 + 3;
void AppendVerbosePrefix(uint64_t ip, char origin, std::string* out) {
  const size_t before = out->size();
  if (ip == 0) out->push_back('0');
  else fmt::format_to(std::back_inserter(*out), "{:#x}", ip);
  const size_t n = out->size() - before;
  if (n < 18) out->append(18 - n, ' ');
  out->push_back(' ');
  out->push_back(origin);
  out->push_back(' ');
}
void PrintSymVerbose(const HistEntry& e, std::string* out) {
  AppendVerbosePrefix(e.ip, e.symtab_origin, out);
  PrintSymbolColumn(e, out);
}
// The stdio printer takes " (inlined)" off a sym row's width again (perf's namelen + 4).
size_t ColLenSymVerbose(const HistEntry& e) {
  if (!e.sym) return 16 + 4 + 2;
  return kVerbosePrefix + 4 + e.sym->name.size() + (e.sym->inlined ? std::string_view(" (inlined)").size() : 0);
}
void PrintBranchSymVerbose(const HistEntry& e, const BranchEnd& end, std::string* out) {
  if (e.has_branch) AppendVerbosePrefix(end.al_addr, end.symtab_origin, out);
  PrintBranchSym(e, end, out);
}
void PrintSymFromVerbose(const HistEntry& e, std::string* out) { PrintBranchSymVerbose(e, e.from, out); }
void PrintSymToVerbose(const HistEntry& e, std::string* out) { PrintBranchSymVerbose(e, e.to, out); }
size_t BranchSymColLenVerbose(const BranchEnd& end) { return BranchSymColLen(end) + (end.sym ? kVerbosePrefix : 0); }
size_t ColLenSymFromVerbose(const HistEntry& e) { return BranchSymColLenVerbose(e.from); }
size_t ColLenSymToVerbose(const HistEntry& e) { return BranchSymColLenVerbose(e.to); }
void PrintBranchDsoVerbose(const HistEntry& e, const BranchEnd& end, std::string* out) {
  out->append(e.has_branch ? VerboseDsoName(end.dso) : "N/A");
}
void PrintDsoFromVerbose(const HistEntry& e, std::string* out) { PrintBranchDsoVerbose(e, e.from, out); }
void PrintDsoToVerbose(const HistEntry& e, std::string* out) { PrintBranchDsoVerbose(e, e.to, out); }
int OrderBranchDsoVerbose(const Dso* a, const Dso* b) {
  if (!a || !b) return (!a && !b) ? 0 : (!a ? -1 : 1);
  return -Cmp(a->printable_long_name(), b->printable_long_name());
}
int OrderDsoFromVerbose(const HistEntry& a, const HistEntry& b) { return OrderBranchDsoVerbose(a.from.dso, b.from.dso); }
int OrderDsoToVerbose(const HistEntry& a, const HistEntry& b) { return OrderBranchDsoVerbose(a.to.dso, b.to.dso); }
size_t BranchDsoColLenVerbose(const BranchEnd& end) { return end.sym ? VerboseDsoName(end.dso).size() : 16; }
size_t ColLenDsoFromVerbose(const HistEntry& e) { return BranchDsoColLenVerbose(e.from); }
size_t ColLenDsoToVerbose(const HistEntry& e) { return BranchDsoColLenVerbose(e.to); }

constexpr SortKey kVerboseKeys[] = {
    {.name = "dso", .header = "Shared Object", .id = IdDso, .collapse = OrderDsoVerbose, .order = OrderDsoVerbose,
     .print = PrintDsoVerbose, .json = JsonDso},
    {.name = "sym", .header = "Symbol", .id_words = 2, .id = IdSym, .collapse = CollapseSym, .order = OrderSym,
     .print = PrintSymVerbose, .json = JsonSym, .pad_last = false, .col_len = ColLenSymVerbose},
    {.name = "dso_from", .header = "Source Shared Object", .id = IdDsoFrom, .collapse = CollapseDsoFrom,
     .order = OrderDsoFromVerbose, .print = PrintDsoFromVerbose, .json = JsonDsoFrom, .col_len = ColLenDsoFromVerbose,
     .truncate = true},
    {.name = "dso_to", .header = "Target Shared Object", .id = IdDsoTo, .collapse = CollapseDsoTo,
     .order = OrderDsoToVerbose, .print = PrintDsoToVerbose, .json = JsonDsoTo, .col_len = ColLenDsoToVerbose,
     .truncate = true},
    {.name = "symbol_from", .header = "Source Symbol", .id_words = 2, .id = IdSymFrom, .collapse = CollapseSymFrom,
     .order = OrderSymFrom, .print = PrintSymFromVerbose, .json = JsonSymFrom, .col_len = ColLenSymFromVerbose},
    {.name = "symbol_to", .header = "Target Symbol", .id_words = 2, .id = IdSymTo, .collapse = CollapseSymTo,
     .order = OrderSymTo, .print = PrintSymToVerbose, .json = JsonSymTo, .col_len = ColLenSymToVerbose},
};

constexpr SortKey kTimeNsKey = {.name = "time", .header = "Time", .id = IdTime, .collapse = OrderTime,
                                .order = OrderTime, .print = PrintTimeNs, .json = JsonTime, .pad_last = false,
                                .min_width = 16, .fixed_width = true, .truncate = true};

constexpr SortKey kSortKeys[] = {
    {.name = "comm", .header = "Command", .id = IdComm, .collapse = CollapseComm, .order = OrderComm,
     .print = PrintComm, .json = JsonComm},
    {.name = "pid", .header = "    Pid:Command", .id = IdPid, .collapse = CollapsePid, .order = OrderPid,
     .print = PrintPid, .json = JsonPid, .min_width = 15},
    {.name = "dso", .header = "Shared Object", .id = IdDso, .collapse = OrderDso, .order = OrderDso,
     .print = PrintDso, .json = JsonDso},
    {.name = "sym", .header = "Symbol", .id_words = 2, .id = IdSym, .collapse = CollapseSym, .order = OrderSym,
     .print = PrintSymbolColumn, .json = JsonSym, .pad_last = false},
    {.name = "cpu", .header = "CPU", .id = IdCpu, .collapse = OrderCpu, .order = OrderCpu, .print = PrintCpu,
     .json = JsonCpu, .fixed_width = true},
    {.name = "srcline", .header = "Source:Line", .id_words = 2, .id = IdSrcline, .collapse = OrderSrcline,
     .order = OrderSrcline, .print = SrcLines::Print, .json = JsonSrcline, .pad_last = false},
    {.name = "srcfile", .header = "Source File", .id = IdSrcfile, .collapse = OrderSrcfile, .order = OrderSrcfile,
     .print = SrcLines::PrintFile, .json = JsonSrcfile, .pad_last = false},
    {.name = "parent", .header = "Parent symbol", .id_words = 2, .id = IdParent, .collapse = OrderParent,
     .order = OrderParent, .print = PrintParent, .json = JsonParent},
    {.name = "dso_from", .header = "Source Shared Object", .id = IdDsoFrom, .collapse = CollapseDsoFrom,
     .order = OrderDsoFrom, .print = PrintDsoFrom, .json = JsonDsoFrom, .col_len = ColLenDsoFrom, .truncate = true},
    {.name = "dso_to", .header = "Target Shared Object", .id = IdDsoTo, .collapse = CollapseDsoTo,
     .order = OrderDsoTo, .print = PrintDsoTo, .json = JsonDsoTo, .col_len = ColLenDsoTo, .truncate = true},
    {.name = "symbol_from", .header = "Source Symbol", .id_words = 2, .id = IdSymFrom, .collapse = CollapseSymFrom,
     .order = OrderSymFrom, .print = PrintSymFrom, .json = JsonSymFrom, .col_len = ColLenSymFrom, .truncate = true},
    {.name = "symbol_to", .header = "Target Symbol", .id_words = 2, .id = IdSymTo, .collapse = CollapseSymTo,
     .order = OrderSymTo, .print = PrintSymTo, .json = JsonSymTo, .col_len = ColLenSymTo, .truncate = true},
    {.name = "mispredict", .header = "Branch Mispredicted", .id = IdMispredict, .collapse = CollapseMispredict,
     .order = OrderMispredict, .print = PrintMispredict, .json = JsonMispredict},
    {.name = "cycles", .header = "Basic Block Cycles", .id = IdCycles, .collapse = CollapseCycles,
     .order = OrderCycles, .print = PrintCycles, .json = JsonCycles},
    {.name = "time", .header = "Time", .id = IdTime, .collapse = OrderTime, .order = OrderTime,
     .print = PrintTimeUs, .json = JsonTime, .pad_last = false, .min_width = 12, .fixed_width = true,
     .truncate = true},
    {.name = "srcline_from", .header = "From Source:Line", .id = IdSrclineFrom, .collapse = OrderSrclineFrom,
     .order = OrderSrclineFrom, .print = PrintSrclineFrom, .json = JsonSrclineFrom},
    {.name = "srcline_to", .header = "To Source:Line", .id = IdSrclineTo, .collapse = OrderSrclineTo,
     .order = OrderSrclineTo, .print = PrintSrclineTo, .json = JsonSrclineTo},
    {.name = "in_tx", .header = "Branch in transaction", .id = IdInTx, .collapse = OrderInTx, .order = OrderInTx,
     .print = PrintInTx, .json = JsonInTx},
    {.name = "abort", .header = "Transaction abort", .id = IdAbort, .collapse = OrderAbort, .order = OrderAbort,
     .print = PrintAbort, .json = JsonAbort},
    {.name = "ipc_null", .header = "IPC   [IPC Coverage]", .id_words = 2, .id = IdSym, .collapse = CollapseSym,
     .order = OrderSym, .print = PrintIpcNull, .json = JsonIpcNull},
    {.name = "trace", .header = "Trace output", .id = IdTrace, .collapse = OrderTrace, .order = OrderTrace,
     .print = PrintTrace, .json = JsonTrace, .pad_last = false},
};

}  // namespace

std::string_view DsoColumnName(const Dso* dso) { return dso ? std::string_view(dso->short_name()) : "[unknown]"; }

void PrintSymbolColumn(const HistEntry& e, std::string* out) {
  out->push_back('[');
  out->push_back(e.level);
  out->append("] ");
  if (e.sym) {
    out->append(e.sym->name);
    if (e.sym->inlined) out->append(" (inlined)");  // _hist_entry__sym_snprintf
  }
  // perf prints "%-#.*llx" with precision 16; C's '#' adds no "0x" to a zero value.
  else if (e.key_addr == 0) out->append("0000000000000000");
  else fmt::format_to(std::back_inserter(*out), "{:#018x}", e.key_addr);
}

const SortKey* VerboseSortKey(const SortKey* key) {
  for (const auto& k : kVerboseKeys)
    if (k.name == key->name) return &k;
  return key;
}

const SortKey* TimeSortKey(bool ns) { return ns ? &kTimeNsKey : FindSortKey("time"); }

const SortKey* FindSortKey(std::string_view name) {
  if (name == "symbol") name = "sym";
  if (name == "tid") name = "pid";
  for (const auto& k : kSortKeys)
    if (k.name == name) return &k;
  return nullptr;
}

Result<std::vector<const SortKey*>> ParseSortKeys(std::string_view list) {
  std::vector<const SortKey*> keys;
  while (!list.empty()) {
    auto comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) continue;
    const SortKey* k = FindSortKey(name);
    if (!k)
      return Err("unknown sort key '{}' (known: comm, pid, tid, dso, sym, symbol, cpu, srcline, srcfile, trace, parent, time; "
                 "branch mode: dso_from, dso_to, symbol_from, symbol_to, mispredict, cycles, srcline_from, "
                 "srcline_to, in_tx, abort)",
                 name);
    bool dup = false;
    for (auto* have : keys) dup |= have == k;
    if (!dup) keys.push_back(k);
  }
  if (keys.empty()) return Err("no sort keys given");
  return keys;
}

}  // namespace perflens
