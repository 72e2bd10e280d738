#include "report/sort_key.h"

#include <fmt/format.h>

namespace perflens {
namespace {

int Cmp(std::string_view a, std::string_view b) { return a < b ? -1 : a > b ? 1 : 0; }

uint64_t GroupComm(const HistEntry& e) { return reinterpret_cast<uintptr_t>(e.comm); }
int OrderComm(const HistEntry& a, const HistEntry& b) { return Cmp(*a.comm, *b.comm); }
void PrintComm(const HistEntry& e, std::string* out) { out->append(*e.comm); }

uint64_t GroupPid(const HistEntry& e) { return e.tid; }
int OrderPid(const HistEntry& a, const HistEntry& b) { return a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0; }
void PrintPid(const HistEntry& e, std::string* out) {
  // perf's "Pid:Command": "%7d:%s" of the thread's tid and comm.
  // perf prints thread__comm_str(he->thread): the thread's comm at output time.
  fmt::format_to(std::back_inserter(*out), "{:>7}:{}", static_cast<int32_t>(e.tid),
                 e.thread ? e.thread->comm() : *e.comm);
}

uint64_t GroupDso(const HistEntry& e) { return reinterpret_cast<uintptr_t>(e.dso); }
int OrderDso(const HistEntry& a, const HistEntry& b) { return Cmp(DsoColumnName(a.dso), DsoColumnName(b.dso)); }
void PrintDso(const HistEntry& e, std::string* out) { out->append(DsoColumnName(e.dso)); }

uint64_t GroupSym(const HistEntry& e) {
  // perf compares resolved symbols by identity and unresolved ones by address.
  return e.sym ? reinterpret_cast<uintptr_t>(e.sym) : e.addr ^ 0x8000000000000000ULL;
}
int OrderSym(const HistEntry& a, const HistEntry& b) {
  if (!a.sym || !b.sym) return (!a.sym && !b.sym) ? 0 : (!a.sym ? 1 : -1);
  return Cmp(a.sym->name, b.sym->name);
}

uint64_t GroupCpu(const HistEntry& e) { return e.cpu; }
int OrderCpu(const HistEntry& a, const HistEntry& b) { return a.cpu < b.cpu ? -1 : a.cpu > b.cpu ? 1 : 0; }
void PrintCpu(const HistEntry& e, std::string* out) {
  int cpu = static_cast<int32_t>(e.cpu);
  // perf prints "%*.*d" with width and precision 3: -1 → "-001".
  if (cpu < 0) fmt::format_to(std::back_inserter(*out), "-{:03}", -cpu);
  else fmt::format_to(std::back_inserter(*out), "{:03}", cpu);
}

const SortKey kSortKeys[] = {
    {"comm", "Command", GroupComm, OrderComm, PrintComm, true},
    {"pid", "    Pid:Command", GroupPid, OrderPid, PrintPid, true, 15},
    {"dso", "Shared Object", GroupDso, OrderDso, PrintDso, true},
    {"sym", "Symbol", GroupSym, OrderSym, PrintSymbolColumn, false},
    {"cpu", "CPU", GroupCpu, OrderCpu, PrintCpu, true, 0, true},
};

}  // namespace

std::string_view DsoColumnName(const Dso* dso) { return dso ? std::string_view(dso->short_name()) : "[unknown]"; }

void PrintSymbolColumn(const HistEntry& e, std::string* out) {
  out->push_back('[');
  out->push_back(e.level);
  out->append("] ");
  if (e.sym) out->append(e.sym->name);
  // perf prints "%-#.*llx" with precision 16; C's '#' adds no "0x" to a zero value.
  else if (e.addr == 0) out->append("0000000000000000");
  else fmt::format_to(std::back_inserter(*out), "{:#018x}", e.addr);
}

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
    if (!k) return Err("unknown sort key '{}' (known: comm, pid, tid, dso, sym, symbol, cpu)", name);
    bool dup = false;
    for (auto* have : keys) dup |= have == k;
    if (!dup) keys.push_back(k);
  }
  if (keys.empty()) return Err("no sort keys given");
  return keys;
}

}  // namespace perflens
