// Annotate: `perf annotate --stdio`'s front-end (perf 6.1, builtin-annotate.c
// and util/annotate.c): the self samples of each evsel summed per (dso, symbol)
// and per address inside the symbol, then each chosen symbol's code
// disassembled (capstone, symbolize/disassembler.h) from the image its module
// resolved it in, with every instruction's share of the symbol's samples
// ("percent: local period", perf's default), source lines between the
// instructions and, with -l, perf's sorted summary of the hottest source lines.
//
// Addresses: a sample's location.dso_addr is the file_offset in the DSO
// (kUser/kVdso modules; symbols live in the same space); the cost of a sample
// is kept at its offset from the symbol's start, and the instructions are
// printed at dso_vaddr (what objdump prints). Example: Func0467 of
// bench/workload, symbol [0x14b00, 0x14b7c) in file offsets of a PIE whose text
// has p_vaddr == p_offset: a sample at ip 0x555964406b2e in the map
// [0x5559643f7000, +0x14000) with pgoff 0x5000 is at file offset 0x14b2e, offset 0x2e,
// and the instruction `sub $0x1,%eax` at dso_vaddr 0x14b2e gets it.
//
// Percentages as perf's calc_percent: an instruction gets the samples at the
// addresses from its first byte up to the next instruction's (the symbol's end
// for the last one), over all the samples in the symbol, by period.
//
// Threads: Process reads with a session (a reading thread beside the caller);
// the rest runs on the caller's thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/perf_file.h"
#include "session/session.h"
#include "symbolize/disassembler.h"
#include "symbolize/symbolizer.h"

namespace perflens {

struct AnnotateOptions {
  // -s/--symbol: only the symbols of this name (as perf report prints it). "":
  // every symbol with samples, hottest first (perf 6.1's --stdio default).
  std::string symbol;
  bool print_line = false;  // -l/--print-line: the sorted summary and "// file:line" marks
  bool full_path = false;   // -P/--full-paths: whole DSO and source paths
  SymbolizeOptions symbolize;
  bool use_threads = true;
  // SessionOptions::parallel_read (--parallel-read; the same output).
  SessionOptions::ParallelRead parallel_read = SessionOptions::ParallelRead::kAuto;
  SessionProgressFn progress;  // Session::Run's progress calls (SessionOptions::progress)
};

// Summed self samples at one address.
struct AddrCost {
  uint64_t nr_samples = 0;
  uint64_t period = 0;
};

// One symbol of one evsel with its samples.
struct AnnotatedSymbol {
  uint32_t evsel = 0;
  const Dso* dso = nullptr;
  const Symbol* sym = nullptr;
  AddrCost total;
  // Offset from sym->start (dso_addr space) → cost, in address order.
  std::map<uint64_t, AddrCost> by_offset;
};

// perf's calc_percent over disassembled code: the cost of each instruction of
// `code` (first byte at `start_vaddr`, the symbol's start), from `by_offset`
// (offsets from that start), counting the addresses up to the next instruction
// (the last one up to `size`, the symbol's size). One entry per instruction.
std::vector<AddrCost> CostsPerInstruction(std::span<const Instruction> code, uint64_t start_vaddr, uint64_t size,
                                          const std::map<uint64_t, AddrCost>& by_offset);

// perf's "percent: local period" of `c` in a symbol whose samples total
// `total`.
inline double LocalPeriodPercent(const AddrCost& c, const AddrCost& total) {
  return total.period ? 100.0 * static_cast<double>(c.period) / static_cast<double>(total.period) : 0.0;
}

class Annotate {
 public:
  ~Annotate();
  static Result<std::unique_ptr<Annotate>> Create(PerfFile* file, const AnnotateOptions& options);

  // Reads the file. Errors only when the file cannot be read at all.
  Status Process();

  // The symbols to annotate, in perf's order: evsel by evsel, hottest (by
  // period) first; only those named options.symbol when given.
  std::vector<const AnnotatedSymbol*> Selected() const;

  // Appends the annotation of `s` as perf annotate --stdio prints it (with -l,
  // the sorted summary first). Errors, with nothing appended: a kernel symbol
  // (not yet), a DSO whose file was not found or is not ELF, code
  // that cannot be read or an arch capstone does not know.
  Status Print(const AnnotatedSymbol& s, std::string* out);

  const ReadStats& read_stats() const { return session_->read_stats(); }
  std::vector<std::string> SummaryLines() const { return session_->ProblemLines(); }

 private:
  class Consumer;
  Annotate() = default;
  const std::vector<std::string>* SourceFile(std::string_view path);

  AnnotateOptions options_;
  PerfFile* file_ = nullptr;
  std::unique_ptr<Session> session_;
  std::unique_ptr<Consumer> consumer_;
  std::optional<Disassembler> disassembler_;
  std::string arch_name_;
  // Source files read for interleaving, by the path DWARF names (inside --symfs when
  // given); an empty vector: unreadable, "file:line" is printed instead of the text.
  std::unordered_map<std::string, std::vector<std::string>> sources_;
  std::string prev_path_;  // perf's static prev_line of the "// file:line" marks
};

}  // namespace perflens
