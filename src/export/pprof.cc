#include "export/pprof.h"

#include <algorithm>
#include <cstring>
#include <span>

#include <libdeflate.h>

#include "perfdata/perf_event.h"
#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "base/text_escape.h"
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
    // Names from the recording need not be UTF-8; profile.proto's strings must be
    // (protobuf refuses to parse the profile otherwise): invalid bytes become U+FFFD.
    p_->add_string_table(ValidUtf8(s));
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

size_t PprofConsumer::ThreadKeyHash::operator()(const ThreadKey& k) const {
  return Mix(Mix(k.pid, k.tid), reinterpret_cast<uintptr_t>(k.comm));
}

PprofConsumer::PprofConsumer(const std::vector<Evsel>& evsels, const Machine* machine)
    : evsels_(evsels),
      machine_(machine),
      location_cache_(4096),
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

uint32_t PprofConsumer::LocationOf(const ResolvedSample& s, uint64_t ip, const AddrLocation* frames, uint32_t n) {
  const AddrLocation& outer = frames[n - 1];
  const LocationKey key{outer.dso, ip - outer.dso_addr, ip, frames[0].sym, n};
  LocationSlot& slot = location_cache_[LocationKeyHash{}(key) & (location_cache_.size() - 1)];
  if (slot.id && slot.key == key) return slot.id;
  bool added = false;
  const uint32_t id = location_ids_.FindOrAdd(
      LocationKeyHash{}(key), [&](uint32_t i) { return locations_[i - 1].key == key; },
      static_cast<uint32_t>(locations_.size() + 1), &added);
  slot = {key, id};
  if (!added) return id;
  LocationData ld;
  ld.key = key;
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
  // The stack's location ids, leaf first, go straight into the pending batch.
  std::vector<uint32_t>& stack = pending_stacks_;
  const auto begin = static_cast<uint32_t>(stack.size());
  const bool chain = s.has_callchain && !s.callchain.empty();
  // The leaf is the sample's own location (report's self row) unless the chain starts
  // at the sample ip, as it does when the kernel recorded it.
  if (!chain || s.callchain[0].ip != s.ip) stack.push_back(LocationOf(s, s.ip, &s.location, 1));
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
      stack.push_back(LocationOf(s, cc[i].ip, group_.data(), static_cast<uint32_t>(group_.size())));
      i = j;
    }
  }
  if (const uint64_t m = locations_[stack[begin] - 1].mapping_id) mappings_[m - 1].weight += s.nr_samples;
  ThreadKey tk{s.pid, s.tid, s.comm};
  if (!(tk == last_thread_)) {
    auto [t, new_thread] = thread_ids_.emplace(tk, static_cast<uint32_t>(threads_.size()));
    if (new_thread) threads_.push_back(tk);
    last_thread_ = tk;
    last_thread_id_ = t->second;
  }
  // The sample: (thread, stack), hashed once and compared with the stored stack when
  // its batch is interned.
  uint64_t hash = Mix(0x51ED270B27A3F2D5ULL, last_thread_id_);
  for (size_t i = begin; i < stack.size(); ++i) hash = Mix(hash, stack[i]);
  sample_ids_.Prefetch(hash);
  pending_.push_back({hash, last_thread_id_, s.evsel, begin, static_cast<uint32_t>(stack.size()),
                      s.nr_samples, s.period});
  if (pending_.size() == kPendingSamples) InternPending();
}

void PprofConsumer::InternPending() {
  const size_t nr_values = 2 * evsels_.size();
  for (const PendingSample& p : pending_) {
    const std::span<const uint32_t> stack(pending_stacks_.data() + p.stack_begin, p.stack_end - p.stack_begin);
    bool added = false;
    const uint32_t sample = sample_ids_.FindOrAdd(
        p.hash,
        [&](uint32_t i) {
          const uint32_t begin = sample_stack_begin_[i], end = sample_stack_begin_[i + 1];
          return sample_threads_[i] == p.thread_id && end - begin == stack.size() &&
                 std::equal(stack.begin(), stack.end(), stack_pool_.begin() + begin);
        },
        static_cast<uint32_t>(sample_threads_.size()), &added);
    if (added) {
      sample_threads_.push_back(p.thread_id);
      stack_pool_.insert(stack_pool_.end(), stack.begin(), stack.end());
      sample_stack_begin_.push_back(static_cast<uint32_t>(stack_pool_.size()));
      values_.resize(values_.size() + nr_values);
    }
    int64_t* v = &values_[sample * nr_values + 2 * p.evsel];
    v[0] += static_cast<int64_t>(p.nr_samples);
    v[1] += static_cast<int64_t>(p.period);
  }
  pending_.clear();
  pending_stacks_.clear();
}

void PprofConsumer::Finish() { InternPending(); }

Result<std::string> PprofConsumer::Serialize(const HeaderEnv& env, const std::vector<std::string>& comments,
                                             Symbolizer* symbolizer) const {
  const std::optional<uint64_t>& first_time = env.first_sample_time;
  const std::optional<uint64_t>& last_time = env.last_sample_time;
  const auto& clock_data = env.clock_data;
  namespace pb = perftools::profiles;
  // On an arena: a profile of 100K samples is millions of small messages, freed at once.
  google::protobuf::Arena arena;
  pb::Profile& p = *google::protobuf::Arena::CreateMessage<pb::Profile>(&arena);
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
  std::vector<int64_t> comm_ids(threads_.size(), 0);
  for (size_t i = 0; i < threads_.size(); ++i)
    if (threads_[i].comm) comm_ids[i] = strings.Id(*threads_[i].comm);
  // pprof takes the first mapping for the main binary ("File:"): the user-space file
  // most leaf samples are in goes first, the rest keep their order.
  std::vector<uint64_t> order;  // new position → old id
  size_t main = mappings_.size();
  for (size_t i = 0; i < mappings_.size(); ++i)
    if (!mappings_[i].key.dso->is_kernel() && (main == mappings_.size() || mappings_[i].weight > mappings_[main].weight))
      main = i;
  if (main < mappings_.size()) order.push_back(main + 1);
  for (size_t i = 0; i < mappings_.size(); ++i)
    if (i != main) order.push_back(i + 1);
  std::vector<uint64_t> new_id(mappings_.size() + 1, 0);
  for (size_t i = 0; i < order.size(); ++i) new_id[order[i]] = i + 1;
  for (size_t i = 0; i < order.size(); ++i) {
    const MappingData& md = mappings_[order[i] - 1];
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
  std::vector<std::string_view> function_files(functions_.size());
  std::vector<bool> mapping_lines(mappings_.size() + 1);
  for (size_t i = 0; i < locations_.size(); ++i) {
    const LocationData& ld = locations_[i];
    pb::Location* loc = p.add_location();
    loc->set_id(i + 1);
    loc->set_mapping_id(new_id[ld.mapping_id]);
    loc->set_address(ld.address);
    SymbolFrames frames;
    if (symbolizer && ld.nr_lines && ld.key.dso) frames = symbolizer->Module(*ld.key.dso)->FramesAt(ld.key.ip - ld.key.bias);
    for (uint32_t k = 0; k < ld.nr_lines; ++k) {
      pb::Line* line = loc->add_line();
      const uint64_t fid = lines_[ld.first_line + k];
      line->set_function_id(fid);
      // The frames DWARF gives at the address: one per line when the chain had the
      // inline frames, else the last (the function the symbol stands for).
      const SymbolFrame* frame = frames.size() == ld.nr_lines ? &frames[k]
                                 : ld.nr_lines == 1 && !frames.empty() ? &frames[frames.size() - 1]
                                                                       : nullptr;
      if (!frame || !frame->line.known()) continue;
      line->set_line(frame->line.line);
      if (function_files[fid - 1].empty()) function_files[fid - 1] = frame->line.file;
      mapping_lines[ld.mapping_id] = true;
    }
  }
  for (size_t i = 0; i < order.size(); ++i)
    if (mapping_lines[order[i]]) {
      p.mutable_mapping(static_cast<int>(i))->set_has_filenames(true);
      p.mutable_mapping(static_cast<int>(i))->set_has_line_numbers(true);
    }
  for (size_t i = 0; i < functions_.size(); ++i) {
    pb::Function* f = p.add_function();
    f->set_id(i + 1);
    const int64_t name = strings.Id(functions_[i]->name);
    f->set_name(name);
    f->set_system_name(name);
    if (!function_files[i].empty()) f->set_filename(strings.Id(function_files[i]));
  }
  std::string raw;
  if (!p.SerializeToString(&raw)) return Err("pprof: the profile could not be serialized");
  {
    // The samples are appended one by one as Profile field 2: a message's fields may
    // come in any order and a repeated field in pieces, and one Sample message reused
    // keeps the 100K-sample profile from being held in memory twice.
    google::protobuf::io::StringOutputStream stream(&raw);
    google::protobuf::io::CodedOutputStream coded(&stream);
    pb::Sample& sample = *google::protobuf::Arena::CreateMessage<pb::Sample>(&arena);
    for (int k = 0; k < 3; ++k) sample.add_label();
    sample.mutable_label(0)->set_key(pid_key);
    sample.mutable_label(1)->set_key(tid_key);
    sample.mutable_label(2)->set_key(comm_key);
    for (size_t i = 0; i < sample_threads_.size(); ++i) {
      const ThreadKey& t = threads_[sample_threads_[i]];
      sample.clear_location_id();
      sample.clear_value();
      const uint32_t begin = sample_stack_begin_[i], end = sample_stack_begin_[i + 1];
      for (uint32_t k = begin; k < end; ++k) sample.add_location_id(stack_pool_[k]);
      for (size_t k = 0; k < nr_values; ++k) sample.add_value(values_[i * nr_values + k]);
      sample.mutable_label(0)->set_num(t.pid);
      sample.mutable_label(1)->set_num(t.tid);
      if (t.comm && sample.label_size() < 3) sample.add_label()->set_key(comm_key);
      if (!t.comm && sample.label_size() == 3) sample.mutable_label()->RemoveLast();
      if (t.comm) sample.mutable_label(2)->set_str(comm_ids[sample_threads_[i]]);
      coded.WriteTag(2 << 3 | 2);  // field 2, length-delimited
      coded.WriteVarint32(static_cast<uint32_t>(sample.ByteSizeLong()));
      sample.SerializeWithCachedSizes(&coded);
    }
    if (coded.HadError()) return Err("pprof: the samples could not be serialized");
  }
  // Level 1, as pprof writes its own profiles (gzip.BestSpeed).
  libdeflate_compressor* c = libdeflate_alloc_compressor(1);
  if (!c) return Err("pprof: out of memory for the gzip compressor");
  std::string out(libdeflate_gzip_compress_bound(c, raw.size()), '\0');
  const size_t n = libdeflate_gzip_compress(c, raw.data(), raw.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  if (n == 0) return Err("pprof: gzip compression failed");
  out.resize(n);
  return out;
}

}  // namespace perflens
