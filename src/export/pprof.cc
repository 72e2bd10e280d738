#include "export/pprof.h"

#include <cstring>

#include <libdeflate.h>

#include "perfdata/perf_event.h"
#include "profile.pb.h"

namespace perflens {
namespace {

constexpr uint64_t kSwCpuClock = 0, kSwTaskClock = 1;

bool IsClockEvent(const Evsel& ev) {
  return ev.attr.type == 1 /* PERF_TYPE_SOFTWARE */ &&
         (ev.attr.config == kSwCpuClock || ev.attr.config == kSwTaskClock);
}

size_t Mix(size_t h, uint64_t v) { return (h ^ v) * 0x9E3779B97F4A7C15ULL + (h >> 29); }

// The string table: index 0 is "", as pprof requires.
class Strings {
 public:
  explicit Strings(perftools::profiles::Profile* p) : p_(p) { Id(""); }
  int64_t Id(std::string_view s) {
    auto found = ids_.find(std::string(s));
    if (found != ids_.end()) return found->second;
    const int64_t id = p_->string_table_size();
    p_->add_string_table(std::string(s));
    ids_.emplace(std::string(s), id);
    return id;
  }

 private:
  perftools::profiles::Profile* p_;
  std::unordered_map<std::string, int64_t> ids_;
};

}  // namespace

size_t PprofConsumer::LocationKeyHash::operator()(const LocationKey& k) const {
  size_t h = Mix(0, reinterpret_cast<uintptr_t>(k.dso));
  h = Mix(h, k.bias);
  h = Mix(h, k.ip);
  h = Mix(h, reinterpret_cast<uintptr_t>(k.sym));
  return Mix(h, k.nr_lines);
}

size_t PprofConsumer::MappingKeyHash::operator()(const MappingKey& k) const {
  return Mix(Mix(Mix(Mix(0, reinterpret_cast<uintptr_t>(k.dso)), k.start), k.end), k.pgoff);
}

PprofConsumer::PprofConsumer(const std::vector<Evsel>& evsels, const Machine* machine)
    : evsels_(evsels),
      machine_(machine),
      total_samples_(evsels.size()),
      total_period_(evsels.size()) {}

PprofConsumer::~PprofConsumer() = default;

uint64_t PprofConsumer::FunctionOf(const Symbol* sym) {
  auto [it, added] = function_ids_.emplace(sym, functions_.size() + 1);
  if (added) functions_.push_back(sym);
  return it->second;
}

uint64_t PprofConsumer::MappingOf(const ResolvedSample& s, uint64_t ip, const AddrLocation& al) {
  if (!al.dso) return 0;
  // The map the resolver found: the ip's, or for a return address looked up one byte
  // before, that byte's.
  const Map* map = nullptr;
  for (uint64_t at : {ip, ip - 1}) {
    const Map* m = machine_->FindMap(s.thread, al.cpumode, at);
    if (m && m->dso == al.dso) {
      map = m;
      break;
    }
  }
  MappingKey key{al.dso, 0, 0, 0};
  if (map) {
    key = {al.dso, map->start, map->end, map->pgoff};
  } else {
    // No map holds it (a kernel address beyond the kernel map's text): one mapping per
    // (Dso, placement) spanning the ips seen, at the offset the placement gives.
    key.pgoff = ip - al.dso_addr;  // the bias, as key
    key.start = key.end = UINT64_MAX;
  }
  auto [it, added] = mapping_ids_.emplace(key, mappings_.size() + 1);
  if (added) mappings_.push_back({key, map != nullptr});
  MappingData& md = mappings_[it->second - 1];
  if (!map) {
    // start/end of an unfound mapping: the ips seen (end exclusive); pgoff: the bias.
    if (!md.found && (md.key.start == UINT64_MAX || ip < md.key.start)) md.key.start = ip;
    if (!md.found && (md.key.end == UINT64_MAX || ip + 1 > md.key.end)) md.key.end = ip + 1;
  }
  return it->second;
}

uint64_t PprofConsumer::LocationOf(const ResolvedSample& s, uint64_t ip, const AddrLocation* frames, uint32_t n) {
  const AddrLocation& outer = frames[n - 1];
  LocationKey key{outer.dso, ip - outer.dso_addr, ip, frames[0].sym, n};
  auto found = location_ids_.find(key);
  if (found != location_ids_.end()) return found->second;
  LocationData ld;
  ld.address = ip;
  ld.mapping_id = MappingOf(s, ip, outer);
  ld.first_line = static_cast<uint32_t>(lines_.size());
  for (uint32_t i = 0; i < n; ++i)
    if (frames[i].sym) lines_.push_back(FunctionOf(frames[i].sym));
  ld.nr_lines = static_cast<uint32_t>(lines_.size()) - ld.first_line;
  if (ld.mapping_id) {
    MappingData& md = mappings_[ld.mapping_id - 1];
    md.has_functions |= ld.nr_lines > 0;
    md.has_inline_frames |= ld.nr_lines > 1;
  }
  locations_.push_back(ld);
  const uint64_t id = locations_.size();
  location_ids_.emplace(key, id);
  return id;
}

void PprofConsumer::OnSample(const ResolvedSample& s) {
  if (s.filtered || s.evsel >= evsels_.size()) return;
  total_samples_[s.evsel] += s.nr_samples;
  total_period_[s.evsel] += s.period;
  if (s.time) {
    first_time_ = std::min(first_time_, s.time);
    last_time_ = std::max(last_time_, s.time);
  }
  key_.resize(16);
  std::memcpy(key_.data(), &s.pid, 4);
  std::memcpy(key_.data() + 4, &s.tid, 4);
  std::memcpy(key_.data() + 8, &s.comm, 8);
  auto add_location = [&](uint64_t id) {
    const uint32_t id32 = static_cast<uint32_t>(id);
    key_.append(reinterpret_cast<const char*>(&id32), 4);
  };
  const bool chain = s.has_callchain && !s.callchain.empty();
  // The leaf is the sample's own location (report's self row) unless the chain starts
  // at the sample ip, as it does when the kernel recorded it.
  if (!chain || s.callchain[0].ip != s.ip) add_location(LocationOf(s, s.ip, &s.location, 1));
  if (chain) {
    const auto& cc = s.callchain;
    for (size_t i = 0; i < cc.size();) {
      // Inline frames of one ip: the inlined functions then the one they are in.
      group_.clear();
      size_t j = i;
      while (j < cc.size() && cc[j].ip == cc[i].ip) {
        group_.push_back(cc[j].al);
        ++j;
        if (!(cc[j - 1].al.sym && cc[j - 1].al.sym->inlined)) break;
      }
      add_location(LocationOf(s, cc[i].ip, group_.data(), static_cast<uint32_t>(group_.size())));
      i = j;
    }
  }
  const size_t nr_values = 2 * evsels_.size();
  auto found = sample_index_.find(std::string_view(key_));
  if (found == sample_index_.end()) {
    found = sample_index_.emplace(key_, static_cast<uint32_t>(sample_keys_.size())).first;
    sample_keys_.push_back(&found->first);
    values_.resize(values_.size() + nr_values);
  }
  int64_t* v = &values_[found->second * nr_values + 2 * s.evsel];
  v[0] += static_cast<int64_t>(s.nr_samples);
  v[1] += static_cast<int64_t>(s.period);
}

Result<std::string> PprofConsumer::Serialize(const HeaderEnv& env, const std::vector<std::string>& comments) const {
  const std::optional<uint64_t>& first_time = env.first_sample_time;
  const std::optional<uint64_t>& last_time = env.last_sample_time;
  const auto& clock_data = env.clock_data;
  namespace pb = perftools::profiles;
  pb::Profile p;
  Strings strings(&p);
  const bool several = evsels_.size() > 1;
  for (const Evsel& ev : evsels_) {
    pb::ValueType* count = p.add_sample_type();
    count->set_type(strings.Id(several ? ev.name + "_samples" : "samples"));
    count->set_unit(strings.Id("count"));
    pb::ValueType* period = p.add_sample_type();
    period->set_type(strings.Id(ev.name));
    period->set_unit(strings.Id(IsClockEvent(ev) ? "nanoseconds" : "count"));
  }
  if (!evsels_.empty()) {
    const Evsel& ev = evsels_[0];
    pb::ValueType* pt = p.mutable_period_type();
    pt->set_type(strings.Id(ev.name));
    pt->set_unit(strings.Id(IsClockEvent(ev) ? "nanoseconds" : "count"));
    const uint64_t sp = ev.attr.sample_period;
    p.set_period(!ev.attr.freq() ? static_cast<int64_t>(sp) : IsClockEvent(ev) && sp ? 1000000000 / sp : 0);
    p.set_default_sample_type(strings.Id(ev.name));
  }
  uint64_t t0 = first_time_, t1 = last_time_;
  if (t0 > t1 && first_time && last_time) t0 = *first_time, t1 = *last_time;
  if (t0 <= t1) {
    // Sample times are the recording clock's (perf's default: monotonic); with
    // HEADER_CLOCK_DATA (perf record -k) they are put on the wall clock pprof shows.
    const uint64_t duration = t1 - t0;
    if (clock_data) t0 = t0 - clock_data->clockid_time_ns + clock_data->wall_clock_ns;
    p.set_time_nanos(static_cast<int64_t>(t0));
    p.set_duration_nanos(static_cast<int64_t>(duration));
  }
  for (const std::string& c : comments) p.add_comment(strings.Id(c));

  const int64_t pid_key = strings.Id("pid"), tid_key = strings.Id("tid"), comm_key = strings.Id("comm");
  const size_t nr_values = 2 * evsels_.size();
  p.mutable_sample()->Reserve(static_cast<int>(sample_keys_.size()));
  for (size_t i = 0; i < sample_keys_.size(); ++i) {
    const std::string& key = *sample_keys_[i];
    uint32_t pid, tid;
    const std::string* comm;
    std::memcpy(&pid, key.data(), 4);
    std::memcpy(&tid, key.data() + 4, 4);
    std::memcpy(&comm, key.data() + 8, 8);
    pb::Sample* sample = p.add_sample();
    for (size_t at = 16; at + 4 <= key.size(); at += 4) {
      uint32_t id;
      std::memcpy(&id, key.data() + at, 4);
      sample->add_location_id(id);
    }
    for (size_t k = 0; k < nr_values; ++k) sample->add_value(values_[i * nr_values + k]);
    pb::Label* l = sample->add_label();
    l->set_key(pid_key);
    l->set_num(pid);
    l = sample->add_label();
    l->set_key(tid_key);
    l->set_num(tid);
    if (comm) {
      l = sample->add_label();
      l->set_key(comm_key);
      l->set_str(strings.Id(*comm));
    }
  }
  for (size_t i = 0; i < mappings_.size(); ++i) {
    const MappingData& md = mappings_[i];
    pb::Mapping* m = p.add_mapping();
    m->set_id(i + 1);
    m->set_memory_start(md.key.start);
    m->set_memory_limit(md.key.end);
    // An unfound mapping's key holds the bias (ip - dso_addr): its offset at start.
    m->set_file_offset(md.found ? md.key.pgoff : md.key.start - md.key.pgoff);
    m->set_filename(strings.Id(md.key.dso->printable_long_name()));
    if (!md.key.dso->build_id().empty()) m->set_build_id(strings.Id(md.key.dso->build_id().ToHex()));
    m->set_has_functions(md.has_functions);
    m->set_has_inline_frames(md.has_inline_frames);
  }
  for (size_t i = 0; i < locations_.size(); ++i) {
    const LocationData& ld = locations_[i];
    pb::Location* loc = p.add_location();
    loc->set_id(i + 1);
    loc->set_mapping_id(ld.mapping_id);
    loc->set_address(ld.address);
    for (uint32_t k = 0; k < ld.nr_lines; ++k) loc->add_line()->set_function_id(lines_[ld.first_line + k]);
  }
  for (size_t i = 0; i < functions_.size(); ++i) {
    pb::Function* f = p.add_function();
    f->set_id(i + 1);
    const int64_t name = strings.Id(functions_[i]->name);
    f->set_name(name);
    f->set_system_name(name);
  }
  std::string raw;
  if (!p.SerializeToString(&raw)) return Err("pprof: the profile could not be serialized");
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  if (!c) return Err("pprof: out of memory for the gzip compressor");
  std::string out(libdeflate_gzip_compress_bound(c, raw.size()), '\0');
  const size_t n = libdeflate_gzip_compress(c, raw.data(), raw.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  if (n == 0) return Err("pprof: gzip compression failed");
  out.resize(n);
  return out;
}

}  // namespace perflens
