// Evlist: the event selectors of one perf.data (perf's evlist) and the sample id →
// evsel index. Each Evsel carries its SampleLayout, computed when the evsel is added,
// so every sample decoder and the ordering timestamp read the same description.
//
// Owned by PerfHeader; read-only once the header is parsed (a stream adds no evsel
// after its first kernel record). Layout sources: tools/perf/util/evlist.c
// (evlist__id2evsel, evlist__event2evsel: id_pos/is_pos are those of the first evsel,
// perf requires all evsels to agree), tools/perf/util/header.c (EVENT_DESC), spec A5–A8.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/byte_order.h"
#include "perfdata/event_attr.h"
#include "perfdata/features.h"
#include "perfdata/record.h"
#include "perfdata/sample.h"
#include "perfdata/sample_layout.h"

namespace perflens {

// One event selector: an attr, its name and its sample ids.
struct Evsel {
  int index = 0;
  EventAttr attr;
  std::string name;  // "cycles:u", from EVENT_DESC / EVENT_UPDATE or synthesized
  std::vector<uint64_t> ids;
  SampleLayout layout;  // MakeSampleLayout(attr), set by Evlist::Add
  // Event group (HEADER_GROUP_DESC, perf's process_group_desc): the leader's index (its
  // own when not in a group), the members counted with the leader (1 when alone; set on
  // the leader only) and the group's name ("" for perf's anonymous "{anon_group}").
  int leader = 0;
  uint32_t nr_members = 1;
  std::string group_name;
  bool is_group_leader() const { return leader == index; }
};

// perf's name for an attr when the file carries none ("cycles", "cpu-clock:u", ...),
// following evsel__name / evsel__add_modifiers.
std::string SynthesizeEvselName(const EventAttr& attr);

class Evlist {
 public:
  // Files hold at most this many attrs (each costs a histogram in a report).
  static constexpr uint64_t kMaxEvsels = 1 << 16;

  void set_loader(const Loader& ld) { loader_ = ld; }
  const std::vector<Evsel>& evsels() const { return evsels_; }
  size_t size() const { return evsels_.size(); }
  bool empty() const { return evsels_.empty(); }

  // Adds an evsel (index size()) with its sample ids and layout; an id already owned
  // by an earlier evsel stays with that one, as in perf's id hash.
  void Add(const EventAttr& attr, std::vector<uint64_t> ids);
  // EVENT_UPDATE (NAME): names the evsel that owns sample id `id`, escaping control
  // bytes; no-op for an unknown id.
  void SetNameById(uint64_t id, std::string_view name);
  // After the header: groups from GROUP_DESC (ApplyGroups), names from EVENT_DESC
  // (paired by index), else a tracepoint's "system:name" from `tracing_data` (may be
  // null), else synthesized, and the sample_id positions of the first evsel.
  void Finish(const std::vector<EventDesc>& event_desc, const std::vector<GroupDesc>& group_desc = {},
              const TracingData* tracing_data = nullptr);
  // Groups as GROUP_DESC described them: each group's leader and its nr_members - 1
  // following evsels. A description perf would reject (a leader out of order, members
  // past the last evsel, overlapping groups) leaves no groups at all.
  void ApplyGroups(const std::vector<GroupDesc>& group_desc);
  // Number of groups with more than one member.
  size_t nr_groups() const { return nr_groups_; }
  // The evsel that owns sample id `id` (ATTR ids, ID_INDEX), or nullptr.
  const Evsel* FindById(uint64_t id) const {
    auto it = id_to_evsel_.find(id);
    return it == id_to_evsel_.end() ? nullptr : &evsels_[static_cast<size_t>(it->second)];
  }

  // The evsel of a SAMPLE (by its IDENTIFIER/ID word when several), or nullptr for an
  // unknown id or a record too short to hold it.
  const Evsel* ForSample(const RecordView& r) const {
    if (evsels_.size() == 1) return &evsels_[0];
    if (evsels_.empty()) return nullptr;
    if (sample_evsel_id_ == 0) return &evsels_[0];
    if (sample_evsel_id_ + 8u > r.size) return nullptr;
    return FindById(loader_.U64(r.data + sample_evsel_id_));
  }
  // The evsel whose sample_id trailer applies to a non-sample record: the first one
  // without sample_id_all or an id in the trailer; nullptr when the record is shorter
  // than the id's position; the first one for an unknown id.
  const Evsel* ForRecord(const RecordView& r) const;
  // Timestamp of any record in ns: a sample's TIME, or the sample_id trailer's; 0 when
  // it has none (or the record is too short for it).
  uint64_t RecordTime(const RecordView& r) const;

 private:
  Loader loader_;
  std::vector<Evsel> evsels_;
  std::unordered_map<uint64_t, int> id_to_evsel_;
  // From the first evsel's layout (spec A7): byte offset of the evsel id in a SAMPLE,
  // its distance from the end of a trailer (0: none), and sample_id_all.
  uint32_t sample_evsel_id_ = 0;
  uint32_t trailer_evsel_id_ = 0;
  bool sample_id_all_ = false;
  size_t nr_groups_ = 0;
};

// perf report's --group/--no-group on a file without groups (evlist__force_leader, run
// whenever either is given): every evsel joins the first one's group (nr_members = all),
// printed without "anon group { }". No-op when `evsels` has a group already.
// Returns whether it forced.
bool ForceLeader(std::vector<Evsel>* evsels);

}  // namespace perflens
