#include "perfdata/evlist.h"

#include "base/text_escape.h"
#include "perfdata/perf_event.h"

namespace perflens {

void Evlist::Add(const EventAttr& attr, std::vector<uint64_t> ids) {
  Evsel ev;
  ev.index = static_cast<int>(evsels_.size());
  ev.attr = attr;
  ev.ids = std::move(ids);
  ev.layout = MakeSampleLayout(attr);
  for (uint64_t id : ev.ids) id_to_evsel_.emplace(id, ev.index);
  evsels_.push_back(std::move(ev));
}

void Evlist::SetNameById(uint64_t id, std::string_view name) {
  auto it = id_to_evsel_.find(id);
  // Escaped here, as Finish does, since a stream applies names after it.
  if (it != id_to_evsel_.end()) evsels_[static_cast<size_t>(it->second)].name = EscapeControl(name);
}

void Evlist::Finish(const std::vector<EventDesc>& event_desc, const std::vector<GroupDesc>& group_desc,
                    const TracingData* tracing_data) {
  ApplyGroups(group_desc);
  for (size_t i = 0; i < evsels_.size(); ++i) {
    Evsel& ev = evsels_[i];
    if (ev.name.empty() && i < event_desc.size()) ev.name = event_desc[i].name;
    // perf's evsel__prepare_tracepoint_event: "system:name" of the format whose ID is
    // the attr's config.
    if (ev.name.empty() && ev.attr.type == kPerfTypeTracepoint && tracing_data)
      ev.name = tracing_data->EventName(ev.attr.config);
    if (ev.name.empty()) ev.name = SynthesizeEvselName(ev.attr);
    if (HasControlChars(ev.name)) ev.name = EscapeControl(ev.name);
  }
  if (!evsels_.empty()) {
    const SampleLayout& first = evsels_[0].layout;
    sample_id_all_ = evsels_[0].attr.sample_id_all();
    sample_evsel_id_ = first.sample_evsel_id;
    trailer_evsel_id_ = first.trailer_evsel_id;
  }
}

void Evlist::ApplyGroups(const std::vector<GroupDesc>& group_desc) {
  for (Evsel& ev : evsels_) {
    ev.leader = ev.index;
    ev.nr_members = 1;
    ev.group_name.clear();
  }
  nr_groups_ = 0;
  // perf's process_group_desc walks the evsels in order, taking the descriptions in
  // their order: an evsel at the next leader_idx opens a group, the nr_members - 1
  // after it join it. Anything else is "invalid group desc" and perf keeps no groups.
  size_t next = 0;
  uint32_t left = 0;  // members still to come in the open group
  int leader = 0;
  bool valid = true;
  for (Evsel& ev : evsels_) {
    if (next < group_desc.size() && static_cast<uint64_t>(ev.index) == group_desc[next].leader_idx) {
      if (left > 0 || group_desc[next].nr_members == 0) { valid = false; break; }
      leader = ev.index;
      ev.nr_members = group_desc[next].nr_members;
      if (group_desc[next].name != "{anon_group}") ev.group_name = group_desc[next].name;
      left = ev.nr_members - 1;
      ++next;
    } else if (left > 0) {
      ev.leader = leader;
      --left;
    }
  }
  if (!valid || next != group_desc.size() || left != 0) {
    for (Evsel& ev : evsels_) {
      ev.leader = ev.index;
      ev.nr_members = 1;
      ev.group_name.clear();
    }
    return;
  }
  for (const Evsel& ev : evsels_) nr_groups_ += ev.is_group_leader() && ev.nr_members > 1;
}

bool ForceLeader(std::vector<Evsel>* evsels) {
  if (evsels->empty()) return false;
  for (const Evsel& ev : *evsels)
    if (ev.is_group_leader() && ev.nr_members > 1) return false;
  for (Evsel& ev : *evsels) ev.leader = 0;
  (*evsels)[0].nr_members = static_cast<uint32_t>(evsels->size());
  return true;
}

const Evsel* Evlist::ForRecord(const RecordView& r) const {
  if (evsels_.size() == 1) return &evsels_[0];
  if (evsels_.empty()) return nullptr;
  if (!sample_id_all_ || trailer_evsel_id_ == 0) return &evsels_[0];
  if (r.size < 8u + trailer_evsel_id_) return nullptr;
  const Evsel* ev = FindById(loader_.U64(r.data + r.size - trailer_evsel_id_));
  return ev ? ev : &evsels_[0];
}

uint64_t Evlist::RecordTime(const RecordView& r) const {
  if (r.type == kRecordSample) {
    const Evsel* ev = ForSample(r);
    if (!ev) return 0;
    const uint32_t at = ev->layout.time;
    return at && at + 8u <= r.size ? loader_.U64(r.data + at) : 0;
  }
  if (r.type >= 64 || !sample_id_all_) return 0;
  const Evsel* ev = ForRecord(r);
  if (!ev || !ev->layout.trailer_time || r.size < 8u + ev->layout.trailer_size) return 0;
  return loader_.U64(r.data + r.size - ev->layout.trailer_time);
}

}  // namespace perflens
