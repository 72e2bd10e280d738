// HistEntry: one row of a report — the values of the sort keys for a group of samples
// and their summed period (perf's hist_entry + he_stat). Self ("Overhead") and
// accumulated ("Children") stats are kept apart.
#pragma once

#include <cstdint>
#include <string>

#include "model/dso.h"
#include "model/thread.h"
#include "symbolize/symbol_table.h"

namespace perflens {

struct HistStat {
  uint64_t period = 0;      // sum of sample periods
  uint64_t nr_samples = 0;
  uint64_t period_sys = 0;  // kernel cpumode
  uint64_t period_us = 0;   // user cpumode
  uint64_t period_guest_sys = 0, period_guest_us = 0;
};

// One end of a branch (branch mode): where perf's ip__resolve_ams found `addr`.
struct BranchEnd {
  Dso* dso = nullptr;           // nullptr → "[unknown]"
  const Symbol* sym = nullptr;  // nullptr: rows are told apart by `addr`
  uint64_t addr = 0;            // the raw address
  uint64_t al_addr = 0;         // Map::MapIp(addr) (addr without a map): what is printed
  char level = 'H';             // of the maps it was found in; 'H' in none
  char symtab_origin = '!';     // -v: perf's dso__symtab_origin of dso (Report::Process sets it)
  // The srcline_from/srcline_to keys (report/srcline.h SrcLines::FillBranchEnd, set only
  // when a report sorts by them): the interned text perf's map__srcline gives for
  // al_addr and its id, nullptr otherwise.
  const std::string* srcline = nullptr;
  uint32_t srcline_id = 0;
};

struct HistEntry {
  // Sort-key values; only the ones the report sorts by are meaningful.
  const std::string* comm = nullptr;  // comm at sample time (the "comm" key)
  const Thread* thread = nullptr;     // the "pid" key prints its final comm, as perf
  uint32_t pid = 0, tid = 0;
  uint32_t cpu = UINT32_MAX;
  Dso* dso = nullptr;           // nullptr → "[unknown]"
  const Symbol* sym = nullptr;  // nullptr → unresolved, keyed and printed by key_addr
  // perf's he->ip: a self row's dso_addr (Map::MapIp(ip), the ip without a map); a
  // callchain row's raw ip when unresolved (fill_callchain_info), its dso_addr else.
  uint64_t key_addr = 0;
  // perf's he->ip as -v prints it: the address of the sample or frame that made the
  // row — a self row's dso_addr (as key_addr), a callchain row's raw ip (Children).
  uint64_t ip = 0;
  char level = '.';
  // -v: perf's dso__symtab_origin letter of dso ('!' without one), set by
  // Report::Process from the Symbolizer.
  char symtab_origin = '!';
  // The "srcline" key (report/srcline.h, set only when a report sorts by it): the
  // interned "file:line" of key_addr and its number in the SrcLines table, or nullptr
  // when the address has no line (printed as perf does: "sym+offset", "dso[vaddr]").
  const std::string* srcline = nullptr;
  uint32_t srcline_id = 0;
  uint64_t srcline_vaddr = 0;  // key_addr as a dso_vaddr (the "dso[vaddr]" text)
  // The "srcfile" key: the file part of srcline (interned by SrcLines), nullptr without.
  const std::string* srcfile = nullptr;
  uint32_t srcfile_id = 0;
  // The "parent" key (-p/--parent): the first callchain symbol, leaf first, whose name
  // matches the parent pattern, and its DSO; nullptr: "[other]".
  const Symbol* parent = nullptr;
  const Dso* parent_dso = nullptr;
  // Branch mode (one row per branch-stack entry): the entry's ends and flags.
  bool has_branch = false;
  BranchEnd from, to;
  bool mispred = false, predicted = false, in_tx = false, abort = false;
  uint16_t cycles = 0;
  // The "trace" key (report/trace_texts.h): the formatted tracepoint payload, interned
  // with its id; nullptr unless a report sorts by it.
  const std::string* trace = nullptr;
  uint32_t trace_id = 0;
  // The "time" key: the sample time (ns) rounded down to the time quantum (perf's hist_time).
  uint64_t time = 0;
  HistStat self;
  HistStat acc;  // Children: self plus periods of samples whose chain passes here
};

}  // namespace perflens
