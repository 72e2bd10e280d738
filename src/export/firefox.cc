#include "export/firefox.h"

#include <algorithm>
#include <iterator>
#include <numeric>

#include <fmt/format.h>

#include "export/sample_frames.h"

namespace perflens {
namespace {

bool IsClockEvent(const Evsel& ev) {
  return ev.attr.type == 1 /* PERF_TYPE_SOFTWARE */ && (ev.attr.config == 0 || ev.attr.config == 1);
}

// The profiler's numbers are JavaScript doubles: exact up to 2^53.
constexpr uint64_t kMaxExact = uint64_t{1} << 53;

// Breakpad's id of an ELF build-id: its first 16 bytes (zero-padded) as a GUID — the
// first three fields byte-swapped — in upper-case hex, then the age "0".
// Example: 0102030405060708090a0b0c0d0e0f1011121314 → 0403020106050807090A0B0C0D0E0F100.
std::string BreakpadId(const BuildId& id) {
  uint8_t b[16] = {};
  std::copy_n(id.bytes.begin(), std::min<size_t>(id.size, 16), b);
  std::swap(b[0], b[3]);
  std::swap(b[1], b[2]);
  std::swap(b[4], b[5]);
  std::swap(b[6], b[7]);
  std::string out;
  for (uint8_t c : b) fmt::format_to(std::back_inserter(out), "{:02X}", c);
  return out + "0";
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Appends `name`:[v0,v1,...] with each value written by `write`.
template <typename T, typename Write>
void AppendColumn(std::string* out, std::string_view name, const std::vector<T>& values, Write&& write) {
  out->push_back('"');
  out->append(name);
  out->append("\":[");
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out->push_back(',');
    write(values[i]);
  }
  out->push_back(']');
}

// Appends `name`:[v,v,...] with `n` copies of `value`.
void AppendRepeated(std::string* out, std::string_view name, std::string_view value, size_t n) {
  out->push_back('"');
  out->append(name);
  out->append("\":[");
  for (size_t i = 0; i < n; ++i) {
    if (i) out->push_back(',');
    out->append(value);
  }
  out->push_back(']');
}

}  // namespace

FirefoxConsumer::FirefoxConsumer(const std::vector<Evsel>& evsels) : evsels_(evsels) {}

uint32_t FirefoxConsumer::StringOf(Thread& t, const std::string& s) {
  auto [it, added] = t.string_ids.emplace(s, static_cast<uint32_t>(t.strings.size()));
  if (added) t.strings.push_back(s);
  return it->second;
}

uint32_t FirefoxConsumer::LibOf(const Dso* dso) {
  auto [it, added] = lib_ids_.emplace(dso, static_cast<uint32_t>(libs_.size()));
  if (added) libs_.push_back(dso);
  return it->second;
}

FirefoxConsumer::FrameKey FirefoxConsumer::KeyOf(const AddrLocation& al) {
  const uint8_t category = al.level == 'k' ? kKernel : al.level == '.' ? kUser : kOther;
  const int64_t address =
      al.dso && category == kUser && al.dso_addr < kMaxExact ? static_cast<int64_t>(al.dso_addr) : -1;
  return {al.dso, al.sym, address, category};
}

uint32_t FirefoxConsumer::FrameOf(Thread& t, const FrameKey& key, const AddrLocation& al) {
  auto cached = t.frame_cache.find(key);
  if (cached != t.frame_cache.end()) return cached->second;
  std::string name = FrameName(al);
  auto [func, new_func] =
      t.func_ids.emplace(std::make_pair(name, static_cast<const Dso*>(al.dso)), static_cast<uint32_t>(t.func_name.size()));
  if (new_func) {
    t.func_name.push_back(StringOf(t, name));
    int32_t resource = -1;
    if (al.dso) {
      auto [r, new_resource] = t.resource_ids.emplace(al.dso, static_cast<uint32_t>(t.resource_lib.size()));
      if (new_resource) {
        t.resource_lib.push_back(LibOf(al.dso));
        t.resource_name.push_back(StringOf(t, std::string(Basename(al.dso->long_name()))));
      }
      resource = static_cast<int32_t>(r->second);
    }
    t.func_resource.push_back(resource);
  }
  auto [frame, new_frame] = t.frame_ids.emplace(std::make_tuple(func->second, key.address, key.category),
                                                static_cast<uint32_t>(t.frame_func.size()));
  if (new_frame) {
    t.frame_func.push_back(func->second);
    t.frame_address.push_back(key.address);
    t.frame_category.push_back(key.category);
  }
  t.frame_cache.emplace(key, frame->second);
  return frame->second;
}

void FirefoxConsumer::OnSample(const ResolvedSample& s) {
  if (s.filtered || s.evsel >= evsels_.size()) return;
  auto [id, added] = thread_ids_.emplace(std::make_tuple(s.evsel, s.pid, s.tid), static_cast<uint32_t>(threads_.size()));
  if (added) {
    threads_.emplace_back();
    threads_.back().evsel = s.evsel;
    threads_.back().pid = s.pid;
    threads_.back().tid = s.tid;
    threads_.back().comm = s.comm;
  }
  Thread& t = threads_[id->second];
  if (s.comm) t.comm = s.comm;
  SampleFrames(s, &frames_scratch_);
  // Root first. A thread's consecutive samples mostly share their outer frames: while
  // the frames equal the last sample's, its stack ids are reused without a lookup.
  int64_t stack = -1;
  size_t depth = 0;
  for (auto it = frames_scratch_.rbegin(); it != frames_scratch_.rend(); ++it, ++depth) {
    const FrameKey key = KeyOf(*it);
    if (depth < t.last_path.size() && t.last_path[depth].first == key) {
      stack = t.last_path[depth].second;
      continue;
    }
    t.last_path.resize(depth);
    const uint32_t frame = FrameOf(t, key, *it);
    const uint64_t stack_key = static_cast<uint64_t>(stack + 1) << 32 | frame;
    auto [found, new_stack] = t.stack_ids.emplace(stack_key, static_cast<uint32_t>(t.stack_frame.size()));
    if (new_stack) {
      t.stack_prefix.push_back(stack);
      t.stack_frame.push_back(frame);
    }
    stack = found->second;
    t.last_path.emplace_back(key, static_cast<uint32_t>(stack));
  }
  t.last_path.resize(depth);
  // SampleFrames gives at least the sample's own location.
  t.sample_stack.push_back(static_cast<uint32_t>(stack));
  t.sample_time.push_back(s.time);
  t.sample_weight.push_back(s.nr_samples);
  t.summed |= s.nr_samples != 1;
  first_time_ = std::min(first_time_, s.time);
  nr_samples_ += s.nr_samples;
}

std::string FirefoxConsumer::Serialize(const HeaderEnv& env) const {
  std::string out;
  auto o = std::back_inserter(out);
  const uint64_t t0 = first_time_ == UINT64_MAX ? 0 : first_time_;
  // meta.interval: the first evsel's sampling interval in ms.
  double interval_ms = 1;
  if (!evsels_.empty() && IsClockEvent(evsels_[0]) && evsels_[0].attr.sample_period) {
    const uint64_t sp = evsels_[0].attr.sample_period;
    interval_ms = evsels_[0].attr.freq() ? 1000.0 / static_cast<double>(sp) : static_cast<double>(sp) / 1e6;
  }
  double start_ms = 0;
  if (env.clock_data && first_time_ != UINT64_MAX)
    start_ms = static_cast<double>(t0 - env.clock_data->clockid_time_ns + env.clock_data->wall_clock_ns) / 1e6;
  fmt::format_to(o,
                 R"({{"meta":{{"version":24,"preprocessedProfileVersion":49,"processType":0,"product":"perflens",)"
                 R"("stackwalk":1,"debug":false,"interval":{},"startTime":{},"symbolicated":true,)"
                 R"("pausedRanges":[],"markerSchema":[],"usesOnlyOneStackType":true,)"
                 R"("doesNotUseFrameImplementation":true,"sourceCodeIsNotOnSearchfox":true,)"
                 R"("sampleUnits":{{"time":"ms","eventDelay":"ms","threadCPUDelta":"µs"}},)"
                 R"("categories":[{{"name":"User","color":"yellow","subcategories":["Other"]}},)"
                 R"({{"name":"Kernel","color":"orange","subcategories":["Other"]}},)"
                 R"({{"name":"Other","color":"grey","subcategories":["Other"]}}]}},"libs":[)",
                 interval_ms, start_ms);
  for (size_t i = 0; i < libs_.size(); ++i) {
    const Dso* dso = libs_[i];
    const std::string& path = dso->long_name();
    out += i ? ",{\"name\":" : "{\"name\":";
    AppendJsonString(Basename(path), &out);
    out += ",\"path\":";
    AppendJsonString(path, &out);
    out += ",\"debugName\":";
    AppendJsonString(Basename(path), &out);
    out += ",\"debugPath\":";
    AppendJsonString(path, &out);
    out += ",\"breakpadId\":";
    AppendJsonString(dso->build_id().empty() ? "" : BreakpadId(dso->build_id()), &out);
    out += ",\"codeId\":";
    if (dso->build_id().empty()) {
      out += "null";
    } else {
      AppendJsonString(dso->build_id().ToHex(), &out);
    }
    out += ",\"arch\":\"\"}";
  }
  out += "],\"threads\":[";
  std::vector<size_t> order(threads_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Thread &x = threads_[a], &y = threads_[b];
    return std::make_tuple(x.evsel, x.pid, x.tid != x.pid, x.tid) < std::make_tuple(y.evsel, y.pid, y.tid != y.pid, y.tid);
  });
  // A process's name: its main thread's comm when it had samples.
  std::map<std::pair<uint32_t, uint32_t>, const std::string*> process_names;  // (evsel, pid)
  for (const Thread& t : threads_)
    if (t.tid == t.pid || !process_names.count({t.evsel, t.pid})) process_names[{t.evsel, t.pid}] = t.comm;
  const bool several = evsels_.size() > 1;
  auto write_number = [&](auto v) { fmt::format_to(o, "{}", v); };
  for (size_t k = 0; k < order.size(); ++k) {
    const Thread& t = threads_[order[k]];
    const std::string comm = t.comm ? *t.comm : fmt::format(":{}", t.tid);
    const std::string* pname = process_names[{t.evsel, t.pid}];
    std::string name = comm, process_name = pname ? *pname : comm;
    if (several) {
      name += " (" + evsels_[t.evsel].name + ")";
      process_name += " (" + evsels_[t.evsel].name + ")";
    }
    // Samples in time order (the session delivers them so; a stable sort keeps ties).
    std::vector<size_t> by_time(t.sample_time.size());
    std::iota(by_time.begin(), by_time.end(), 0);
    std::stable_sort(by_time.begin(), by_time.end(),
                     [&](size_t a, size_t b) { return t.sample_time[a] < t.sample_time[b]; });
    const double register_ms = by_time.empty() ? 0 : static_cast<double>(t.sample_time[by_time[0]] - t0) / 1e6;
    out += k ? ",{\"name\":" : "{\"name\":";
    AppendJsonString(name, &out);
    out += ",\"processName\":";
    AppendJsonString(process_name, &out);
    fmt::format_to(o,
                   R"(,"isMainThread":{},"pid":"{}","tid":{},"processType":"default","processStartupTime":0,)"
                   R"("processShutdownTime":null,"registerTime":{},"unregisterTime":null,"pausedRanges":[],)",
                   t.tid == t.pid, t.pid, t.tid, register_ms);
    // samples
    fmt::format_to(o, R"("samples":{{"length":{},"weightType":"samples",)", by_time.size());
    AppendColumn(&out, "stack", by_time, [&](size_t i) { write_number(t.sample_stack[i]); });
    out += ',';
    AppendColumn(&out, "time", by_time,
                 [&](size_t i) { write_number(static_cast<double>(t.sample_time[i] - t0) / 1e6); });
    out += ',';
    if (t.summed) {
      AppendColumn(&out, "weight", by_time, [&](size_t i) { write_number(t.sample_weight[i]); });
    } else {
      out += "\"weight\":null";
    }
    out += "},";
    // stackTable
    fmt::format_to(o, R"("stackTable":{{"length":{},)", t.stack_frame.size());
    AppendColumn(&out, "prefix", t.stack_prefix, [&](int64_t p) {
      if (p < 0) out += "null";
      else write_number(p);
    });
    out += ',';
    AppendColumn(&out, "frame", t.stack_frame, write_number);
    out += ',';
    AppendColumn(&out, "category", t.stack_frame, [&](uint32_t f) { write_number(t.frame_category[f]); });
    out += ',';
    AppendRepeated(&out, "subcategory", "0", t.stack_frame.size());
    out += "},";
    // frameTable
    const size_t nr_frames = t.frame_func.size();
    fmt::format_to(o, R"("frameTable":{{"length":{},)", nr_frames);
    AppendColumn(&out, "address", t.frame_address, write_number);
    out += ',';
    AppendRepeated(&out, "inlineDepth", "0", nr_frames);
    out += ',';
    AppendColumn(&out, "category", t.frame_category, [&](uint8_t c) { write_number(c); });
    out += ',';
    AppendRepeated(&out, "subcategory", "0", nr_frames);
    out += ',';
    AppendColumn(&out, "func", t.frame_func, write_number);
    for (const char* column : {"nativeSymbol", "innerWindowID", "implementation", "line", "column"}) {
      out += ',';
      AppendRepeated(&out, column, "null", nr_frames);
    }
    out += "},";
    // funcTable
    const size_t nr_funcs = t.func_name.size();
    fmt::format_to(o, R"("funcTable":{{"length":{},)", nr_funcs);
    AppendColumn(&out, "name", t.func_name, write_number);
    out += ',';
    AppendRepeated(&out, "isJS", "false", nr_funcs);
    out += ',';
    AppendRepeated(&out, "relevantForJS", "false", nr_funcs);
    out += ',';
    AppendColumn(&out, "resource", t.func_resource, write_number);
    for (const char* column : {"fileName", "lineNumber", "columnNumber"}) {
      out += ',';
      AppendRepeated(&out, column, "null", nr_funcs);
    }
    out += "},";
    // resourceTable
    const size_t nr_resources = t.resource_lib.size();
    fmt::format_to(o, R"("resourceTable":{{"length":{},)", nr_resources);
    AppendColumn(&out, "lib", t.resource_lib, write_number);
    out += ',';
    AppendColumn(&out, "name", t.resource_name, write_number);
    out += ',';
    AppendRepeated(&out, "host", "null", nr_resources);
    out += ',';
    AppendRepeated(&out, "type", "1", nr_resources);
    out += "},";
    out += R"("nativeSymbols":{"length":0,"libIndex":[],"address":[],"name":[],"functionSize":[]},)";
    out += R"("markers":{"length":0,"data":[],"name":[],"startTime":[],"endTime":[],"phase":[],"category":[]},)";
    out += "\"stringArray\":[";
    for (size_t i = 0; i < t.strings.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(t.strings[i], &out);
    }
    out += "]}";
  }
  out += "],\"pages\":[],\"profilerOverhead\":[],\"counters\":[]}\n";
  return out;
}

}  // namespace perflens
