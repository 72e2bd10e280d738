// HTML export: a session consumer that aggregates the resolved samples into a compact
// call-tree form, and the one self-contained HTML file (export/html/viewer.*, embedded
// in the binary at build time) that shows it in any browser without a network: flame
// graph and icicle, search, thread and event selectors, top-down and bottom-up trees,
// callers and callees of a function.
//
// The data, a JSON object in <script type="application/json" id="perflens-data">:
//   version   1
//   source    the perf.data path
//   names     string table: function names, then DSO names ("[unknown]" and such too)
//   frames    flat [name, dso, kernel] triples: frame i is frames[3i..3i+3), name and dso
//             index `names`, kernel is 1 for a kernel frame. Frame names are the symbol
//             as report prints it; an unresolved frame is "[basename of its dso]" or
//             "[unknown]", as folded stacks name them (export/folded.h).
//   stacks    a string of numbers, two per stack: its parent delta and its frame. Stack
//             i is the call path root → ... → its frame; its parent stack is i - delta
//             (delta 0: a root, outermost frame). A parent always comes before its
//             child, so most deltas are 1. Each number is written in base 32, least
//             significant digit first, one character of kStackDigits per digit: the
//             character's index holds the digit in its low 5 bits and 32 when more
//             digits follow (0 → "A", 1 → "B", 31 → "f", 32 → "gB", 908 → "sc").
//             Example: main → work → leaf is three stacks "A" f_main "B" f_work "B"
//             f_leaf; with frames 0, 1, 2: "AABBBC", and a sample there counts for
//             stack 2. (JSON arrays took twice the bytes: fp.data's 1.7M stacks.)
//   threads   [pid, tid, comm] triples, per (pid, tid, comm) seen
//   events    the evsel names, in file order
//   counts    one entry per (thread, event) with samples: [thread, event, [stack delta,
//             samples, stack delta, samples, ...]] with the leaf stacks in increasing
//             order, each given as the difference to the one before (the first: to 0);
//             samples aggregated per leaf stack, never one entry per sample.
//             Example: [2, 0, [5, 10, 3, 1]] is 10 samples in stack 5 and 1 in stack 8,
//             of thread 2, event 0.
//   totals    per event, the samples exported
//   base      only in `perflens diff --html`'s page: the baseline file's samples, read
//             into the same names, frames, stacks and threads (so a call path of both
//             files is one stack): {"source": its path, "counts": as counts, with its
//             events paired with `events` by attr type and config as perf diff pairs
//             them, "totals": per event}. The top-level
//             fields are the new file's.
// Samples are counted (nr_samples of a summed one), not weighted by period. A sample
// without callchain (or with an empty one) counts for the stack of its own location.
// Source lines are not carried: ResolvedSample frames hold no srcline, and reading DWARF
// for every frame would cost what pprof's export costs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/evlist.h"
#include "session/session.h"

namespace perflens {

// The digits of the stack string (above), base64's alphabet: nothing in it needs
// escaping in JSON or HTML.
inline constexpr char kStackDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// Appends `v` to a stack string.
void AppendStackNumber(uint64_t v, std::string* out);

class HtmlConsumer : public SampleConsumer {
 public:
  explicit HtmlConsumer(const std::vector<Evsel>& evsels);
  void OnSample(const ResolvedSample& s) override;

  // `perflens diff --html`: the samples delivered between BeginBaseline and EndBaseline
  // are the baseline's (the "base" series), from a file whose evsels are `base_evsels`,
  // each paired with the first of the constructor's of the same attr type and config,
  // as perf diff pairs them (evsel__match2; a baseline evsel without one is left out). Frames are cached by Symbol and Dso pointer: both calls drop that cache, the
  // other file's session has its own objects. Both sessions must outlive AppendJson
  // (the thread table points at their comms).
  // `base_source`: the baseline's path, for the page.
  void BeginBaseline(const std::vector<Evsel>& base_evsels, std::string_view base_source);
  void EndBaseline();

  // Appends the data object (above) to *out, as JSON safe inside a <script> element
  // ('<', '>' and '&' escaped as \u003c...; bytes that are not UTF-8 as U+FFFD).
  void AppendJson(std::string_view source, std::string* out) const;

  uint64_t total_samples() const;
  size_t nr_stacks() const { return stacks_.size() / 2; }
  size_t nr_frames() const { return frames_.size() / 3; }

 private:
  uint32_t NameOf(std::string_view name);
  uint32_t FrameOf(const AddrLocation& al);
  uint32_t StackOf(int64_t parent, uint32_t frame);
  // Appends the "counts" array of the new file's series or (base) the baseline's.
  void AppendCounts(bool base, std::string* out) const;

  std::vector<std::string> evsel_names_;
  std::vector<std::pair<uint32_t, uint64_t>> evsel_kinds_;  // attr type, config
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::vector<uint32_t> frames_;  // name, dso, kernel per frame
  // (symbol or dso, kernel) → frame: one lookup per resolved frame without building
  // its name; (name, dso name) → frame behind it, so that two Symbols of one name in
  // one DSO are one frame.
  struct FrameKey {
    const void* sym;
    const void* dso;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const {
      return std::hash<const void*>{}(k.sym) * 31 + std::hash<const void*>{}(k.dso);
    }
  };
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_cache_;
  std::unordered_map<uint64_t, uint32_t> frame_ids_;  // name << 32 | dso name
  std::vector<int64_t> stacks_;                       // parent, frame per stack
  std::unordered_map<uint64_t, uint32_t> stack_ids_;  // (parent + 1) << 32 | frame
  struct ThreadKey {
    uint32_t pid, tid;
    const std::string* comm;
    bool operator==(const ThreadKey&) const = default;
  };
  struct ThreadKeyHash {
    size_t operator()(const ThreadKey& k) const {
      return (static_cast<size_t>(k.pid) * 1000003 + k.tid) * 31 + std::hash<const void*>{}(k.comm);
    }
  };
  std::unordered_map<ThreadKey, uint32_t, ThreadKeyHash> thread_ids_;
  std::vector<ThreadKey> threads_;
  // (thread << 32 | event) → index in series_; each series maps stack → samples.
  std::unordered_map<uint64_t, uint32_t> series_ids_;
  // While the baseline is read: its evsel index → the constructor's (-1: none).
  bool baseline_ = false;
  bool has_baseline_ = false;  // BeginBaseline was called: the data has "base"
  std::string base_source_;
  std::vector<int32_t> baseline_evsels_;
  std::vector<uint64_t> base_totals_;  // per event, the baseline's samples
  struct Series {
    uint32_t thread, event;
    bool base;  // the baseline's
    std::unordered_map<uint32_t, uint64_t> counts;
  };
  std::vector<Series> series_;
  std::vector<uint64_t> totals_;  // per event
  std::string scratch_;
};

// The whole HTML file: the viewer with `json` (HtmlConsumer::AppendJson) embedded and
// `title` (HTML-escaped here) as its title.
std::string RenderHtmlReport(std::string_view json, std::string_view title);

}  // namespace perflens
