// HTML export: a session consumer that aggregates the resolved samples into a compact
// call-tree form, and the one self-contained HTML file (export/html/viewer.*, embedded
// in the binary at build time) that shows it in any browser without a network: flame
// graph and icicle, search, thread and event selectors, top-down and bottom-up trees,
// callers and callees of a function.
//
// The data, a JSON object, gzip-compressed (libdeflate, level 1) and then base64-encoded
// (RFC 4648 with '=' padding) in
//   <script type="text/plain" id="perflens-data" data-encoding="gzip+base64">
// The viewer inflates it with the browser's DecompressionStream('gzip') (every current
// browser; file:// pages too) before JSON.parse; ReadHtmlReportData gives it back in
// C++. Base64's alphabet has no '<', '>' or '&': whatever the names hold, the data can
// never end its <script> element nor start another. (Version 1 had the JSON inline
// in <script type="application/json"> and stacks as parent deltas; fp.data's 349K
// samples, 1.7M stacks: 7.6 MB then, 4.6 MB now.) The JSON:
//   version   2
//   source    the perf.data path
//   names     string table: function names, then DSO names ("[unknown]" and such too)
//   frames    flat [name, dso, kernel] triples: frame i is frames[3i..3i+3), name and dso
//             index `names`, kernel is 1 for a kernel frame. Frame names are the symbol
//             as report prints it; an unresolved frame is "[basename of its dso]" or
//             "[unknown]", as folded stacks name them (export/folded.h).
//   stacks    a string of numbers, two per stack: its climb and its frame. Stack i is
//             the call path root → ... → its frame. The stacks come in preorder (a
//             stack right after its parent, or after an earlier sibling's subtree), so
//             a stack's parent is an ancestor of the stack before it, or the stack
//             itself: the climb is the number of levels it sits above a child of the
//             stack before it (0: that child; depth(i) = depth(i - 1) + 1 - climb,
//             roots at depth 0, the first stack's climb 0). Each number is written in
//             base 32, least significant digit first, one character of kStackDigits
//             per digit: the character's index holds the digit in its low 5 bits and
//             32 when more digits follow (0 → "A", 1 → "B", 31 → "f", 32 → "gB",
//             908 → "sc").
//             Example: main → work → leaf and main → other, frames 0, 1, 2, 3: "AA"
//             main, "AB" work, "AC" leaf, "CD" other (two levels above leaf's child:
//             main's child): "AAABACCD"; a sample in main → other counts for stack 3.
//             (Parent deltas took 1.3x the gzip bytes, JSON arrays twice the bytes:
//             fp.data's 1.7M stacks.)
//   threads   [pid, tid, comm] triples, per (pid, tid, comm) seen
//   events    the evsel names, in file order
//   counts    one entry per (thread, event) with samples: [thread, event, [stack delta,
//             samples, stack delta, samples, ...]] with the leaf stacks in increasing
//             order, each given as the difference to the one before (the first: to 0);
//             samples aggregated per leaf stack, never one entry per sample.
//             Example: [2, 0, [5, 10, 3, 1]] is 10 samples in stack 5 and 1 in stack 8,
//             of thread 2, event 0.
//   totals    per event, the samples exported
//   srclines  only where DWARF gives them (AddSourceLines): flat [frame, name] pairs,
//             name indexing `names`: "/path/file.c:line" of the function's entry
//             address (perf's srcline of the symbol's start, with
//             --full-source-path): its opening line, or with optimized code often
//             the first line of its body.
//   base      only in `perflens diff --html`'s page: the baseline file's samples, read
//             into the same names, frames, stacks and threads (so a call path of both
//             files is one stack): {"source": its path, "counts": as counts, with its
//             events paired with `events` by attr type and config as perf diff pairs
//             them, "totals": per event}. The top-level
//             fields are the new file's.
// Samples are counted (nr_samples of a summed one), not weighted by period. A sample
// without callchain (or with an empty one) counts for the stack of its own location.
// Source lines are one per function, not per sample address (reading DWARF for every
// address would cost what pprof's export costs); `perflens diff --html` has none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/id_index.h"
#include "base/result.h"
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

  // Looks up each resolved user-space function's source file and line at its entry in
  // its DSO's DWARF (DsoModule::FramesAt; nothing without line tables) for "srclines".
  // Call after the session has delivered its samples, with its symbolizer; not for a
  // page with a baseline (the frames' Symbols come from two sessions).
  void AddSourceLines(Symbolizer& symbolizer);

  // Appends the data object (above) to *out, as JSON safe inside a <script> element
  // ('<', '>' and '&' escaped as \u003c...; bytes that are not UTF-8 as U+FFFD).
  void AppendJson(std::string_view source, std::string* out) const;

  uint64_t total_samples() const;
  // The baseline's samples (BeginBaseline), over its paired events.
  uint64_t base_total_samples() const;
  size_t nr_stacks() const { return stacks_.size() / 2; }
  size_t nr_frames() const { return frames_.size() / 3; }

 private:
  uint32_t NameOf(std::string_view name);
  uint32_t FrameOf(const AddrLocation& al);
  uint32_t StackOf(int64_t parent, uint32_t frame, bool* added);
  // Appends the "counts" array of the new file's series or (base) the baseline's;
  // `counts`: (series << 32 | output stack id, samples), sorted.
  void AppendCounts(bool base, const std::vector<std::pair<uint64_t, uint64_t>>& counts, std::string* out) const;
  // Forgets what is keyed by the Symbol and Dso pointers of one session.
  void ClearFrameCache();

  std::vector<std::string> evsel_names_;
  std::vector<std::pair<uint32_t, uint64_t>> evsel_kinds_;  // attr type, config
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::vector<uint32_t> frames_;  // name, dso, kernel per frame
  // Per frame: the first Dso and Symbol it was made from (AddSourceLines).
  std::vector<std::pair<const Dso*, const Symbol*>> frame_origins_;
  std::vector<std::pair<uint32_t, uint32_t>> srclines_;  // frame, name of "file:line"
  // (symbol or dso, kernel) → frame: one lookup per resolved frame without building
  // its name; (name, dso name) → frame behind it, so that two Symbols of one name in
  // one DSO are one frame.
  struct FrameKey {
    const void* sym;
    const void* dso;
    bool operator==(const FrameKey&) const = default;
  };
  // frame_cache_ ids index cache_keys_ and cache_frames_.
  IdIndex frame_cache_;
  std::vector<FrameKey> cache_keys_;
  std::vector<uint32_t> cache_frames_;
  std::unordered_map<uint64_t, uint32_t> frame_ids_;  // name << 32 | dso name
  std::vector<uint32_t> stacks_;  // parent + 1 (0: a root), frame per stack: 8 bytes
  // (parent + 1) << 32 | frame → stack: the key is its own hash (one key per hash),
  // so a hit needs no compare.
  IdIndex stack_ids_;
  // The previous sample's chain, root first: its frame keys and stacks. A sample that
  // shares a prefix with it (most do: deep stacks differ near the leaf) takes the
  // prefix's stacks without a lookup.
  std::vector<FrameKey> last_chain_;
  std::vector<uint32_t> last_stacks_;
  std::vector<uint32_t> new_frames_;  // scratch: the frames under a new stack
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
  ThreadKey last_thread_{UINT32_MAX, UINT32_MAX, nullptr};
  uint32_t last_thread_id_ = 0;
  // (thread << 32 | event) → index in series_.
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
  };
  std::vector<Series> series_;
  uint64_t last_series_key_ = UINT64_MAX;
  uint32_t last_series_ = 0;
  // (series << 32 | leaf stack) → samples: count_ids_ (key is its own hash) indexes
  // count_keys_ and count_values_.
  IdIndex count_ids_;
  std::vector<uint64_t> count_keys_;
  std::vector<uint64_t> count_values_;
  std::vector<uint64_t> totals_;  // per event
  std::string scratch_;
};

// The whole HTML file: the viewer with `json` (HtmlConsumer::AppendJson) embedded and
// `title` (HTML-escaped here) as its title.
// The page's data element holds `json` compressed and encoded as above.
std::string RenderHtmlReport(std::string_view json, std::string_view title);

// The JSON embedded in a page RenderHtmlReport made: the data element found, base64
// decoded and gunzipped. Errors: no data element, bad base64, a broken gzip stream.
Result<std::string> ReadHtmlReportData(std::string_view page);

}  // namespace perflens
