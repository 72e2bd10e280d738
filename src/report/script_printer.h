// Script: `perf script` for sample events — reads the file in perf's order, rebuilds the
// Machine, resolves each sample (and its callchain) and prints one block per sample with
// perf 6.1's layout (builtin-script.c process_event, evsel_fprintf.c); or, with
// `-F folded`, aggregates the stacks into flamegraph "folded" lines (FoldedStacks).
//
// Addresses printed: the sample line shows the raw ip; callchain lines show
// Map::MapIp(ip) for user DSOs (perf: "binary offset for userspace") and the raw ip for
// kernel DSOs and frames in no map. E.g. PIE /tmp/hot mapped at 0x5632c9815000 pgoff
// 0x1000, ip 0x5632c98163a0 → callchain line "\t            13a0 hash_mix+0x30 (/tmp/hot)".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/machine.h"
#include "perfdata/perf_file.h"
#include "report/callchain.h"
#include "report/resolver.h"
#include "report/sample_counts.h"
#include "symbolize/symbolizer.h"

namespace perflens {

class TextBuffer;

// -F fields (perf's PERF_OUTPUT_* subset).
enum ScriptField : uint32_t {
  kFieldComm = 1u << 0,
  kFieldTid = 1u << 1,
  kFieldPid = 1u << 2,
  kFieldTime = 1u << 3,
  kFieldCpu = 1u << 4,
  kFieldEvent = 1u << 5,
  kFieldIp = 1u << 6,
  kFieldSym = 1u << 7,
  kFieldSymOff = 1u << 8,
  kFieldDso = 1u << 9,
  kFieldPeriod = 1u << 10,
};

// A parsed -F argument: either a set (`comm,tid`), or changes to the defaults
// (`+pid,-period`), or folded-stacks mode.
struct ScriptFieldSpec {
  enum class Mode { kDefault, kSet, kChange };
  Mode mode = Mode::kDefault;
  uint32_t fields = 0;   // kSet: the fields; kChange: the ones added
  uint32_t removed = 0;  // kChange: the ones removed
  bool folded = false;
};
// Parses perf's -F syntax ("[type:]field,..."; "+f"/"-f" change the defaults).
Result<ScriptFieldSpec> ParseScriptFields(std::string_view arg);

// The fields printed for `evsel`, following evsel__check_attr: a default field whose
// sample_type bit is missing is dropped; an explicitly requested one is an error
// (perf's message).
Result<uint32_t> ResolveScriptFields(const ScriptFieldSpec& spec, const Evsel& evsel);

struct ScriptOptions {
  std::string fields;               // -F; "" → perf's defaults; "folded" → folded stacks
  bool folded_weight_period = false;  // --folded-weight period (default: sample count)
  bool hide_call_graph = false;     // -G
  int max_stack = 127;              // --max-stack
  std::vector<std::string> comms;   // --comms
  std::vector<uint32_t> pids, tids; // --pid, --tid
  SymbolizeOptions symbolize;
};

// Folded stacks ("comm;caller;...;leaf weight"), aggregated and printed sorted by stack
// text, as FlameGraph's stackcollapse-perf.pl. Frame names: the symbol (';' → ':'); an
// unresolved frame is "[basename of dso]" or "[unknown]"; kernel frames get "_[k]".
// The comm has ' ' → '_'. Usable by any caller that has a comm and resolved frames.
class FoldedStacks {
 public:
  // `callee_first`: the resolved frames as perf delivers them (leaf first).
  void Add(std::string_view comm, std::span<const AddrLocation> callee_first, uint64_t weight);
  // Appends "stack weight\n" lines sorted by stack (byte order).
  void Print(std::string* out) const;
  uint64_t total_weight() const { return total_; }
  size_t size() const { return stacks_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint64_t, Hash, std::equal_to<>> stacks_;
  std::string key_;      // scratch, reused
  std::string scratch_;  // scratch, reused
  uint64_t total_ = 0;
};

struct ScriptCounters : SampleCounts {
  uint64_t nr_filtered = 0;        // dropped by --comms/--pid/--tid
  uint64_t nr_bad_callchains = 0;  // corrupt chains (printed with no frames, as perf)
};

class Script {
 public:
  static constexpr size_t kFlushBytes = 1 << 16;
  // Receives the text in order, in chunks of about kFlushBytes.
  using WriteFn = std::function<void(std::string_view)>;

  // Errors: bad -F, or a requested field the recording lacks.
  static Result<std::unique_ptr<Script>> Create(PerfFile* file, const ScriptOptions& options);

  // Reads every record and hands the text to `write`. Folded lines come at the end.
  Status Run(const WriteFn& write);

  const ScriptCounters& counters() const { return counters_; }
  const ReadStats& read_stats() const { return read_stats_; }
  const FoldedStacks& folded() const { return folded_; }
  std::vector<std::string> SummaryLines() const;

 private:
  Script() = default;
  void ProcessSample(const RecordView& r, TextBuffer* out);
  void PrintSample(const Sample& s, const Evsel& ev, Thread* thread, const AddrLocation& al,
                   bool has_chain, TextBuffer* out);
  // One callchain line ("\t%16lx sym+0x%lx (dso)\n", per `fields`), from frame_lines_
  // when it was printed before.
  void PrintFrame(Thread* thread, uint16_t cpumode, uint64_t ip, uint32_t fields, TextBuffer* out);
  bool Filtered(const Thread* thread) const;

  PerfFile* file_ = nullptr;
  ScriptOptions options_;
  bool folded_mode_ = false;
  std::vector<uint32_t> fields_;       // per evsel
  std::vector<bool> evsel_chain_;      // per evsel: callchains shown
  size_t name_width_ = 0;
  std::unique_ptr<Machine> machine_;
  std::unique_ptr<Symbolizer> symbolizer_;
  std::unique_ptr<Resolver> resolver_;
  // Callchain lines repeat (fp.data: 2.9M lines, 10K distinct), so the text of recent
  // ones is kept, direct-mapped by (Maps::id, Maps::generation, ip, fields): the same
  // state of the same address space resolves an ip the same way. Lines longer than
  // `text` are printed uncached.
  struct FrameLine {
    uint64_t maps_id = 0;  // 0: empty
    uint64_t generation = 0;
    uint64_t ip = 0;
    uint8_t fields = 0;  // the sym/symoff/dso bits, shifted down
    uint8_t size = 0;
    char text[102] = {};  // copied whole on a hit: keep the tail initialized
  };
  static constexpr size_t kFrameLines = 8192;
  std::vector<FrameLine> frame_lines_;  // kFrameLines when callchains are printed
  Sample sample_;                        // the sample being printed
  std::vector<CallchainFrame> frames_;   // reused per sample
  std::vector<AddrLocation> fold_frames_;  // reused per sample
  FoldedStacks folded_;
  ScriptCounters counters_;
  ReadStats read_stats_;
};

}  // namespace perflens
