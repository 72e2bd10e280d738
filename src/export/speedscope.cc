#include "export/speedscope.h"

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

}  // namespace

SpeedscopeConsumer::SpeedscopeConsumer(const std::vector<Evsel>& evsels, bool weight_by_period)
    : evsels_(evsels), weight_by_period_(weight_by_period) {}

uint32_t SpeedscopeConsumer::FrameOf(const AddrLocation& al) {
  const std::pair<const void*, const void*> key(al.dso, al.sym);
  auto cached = frame_cache_.find(key);
  if (cached != frame_cache_.end()) return cached->second;
  std::string name = FrameName(al);
  auto [it, added] = frame_ids_.emplace(std::make_pair(name, al.dso), static_cast<uint32_t>(frames_.size()));
  if (added) frames_.push_back({std::move(name), al.dso});
  frame_cache_.emplace(key, it->second);
  return it->second;
}

void SpeedscopeConsumer::OnSample(const ResolvedSample& s) {
  if (s.filtered || s.evsel >= evsels_.size()) return;
  SampleFrames(s, &frames_scratch_);
  stack_scratch_.clear();
  for (auto it = frames_scratch_.rbegin(); it != frames_scratch_.rend(); ++it) stack_scratch_.push_back(FrameOf(*it));
  std::string key(reinterpret_cast<const char*>(stack_scratch_.data()), stack_scratch_.size() * sizeof(uint32_t));
  auto [stack, new_stack] = stack_ids_.emplace(std::move(key), static_cast<uint32_t>(stack_begin_.size() - 1));
  if (new_stack) {
    stack_pool_.insert(stack_pool_.end(), stack_scratch_.begin(), stack_scratch_.end());
    stack_begin_.push_back(static_cast<uint32_t>(stack_pool_.size()));
  }
  auto [p, new_profile] =
      profile_ids_.emplace(std::make_tuple(s.evsel, s.pid, s.tid), static_cast<uint32_t>(profiles_.size()));
  if (new_profile) profiles_.push_back({s.evsel, s.pid, s.tid, s.comm});
  Profile& profile = profiles_[p->second];
  if (s.comm) profile.comm = s.comm;
  const uint64_t weight = weight_by_period_ ? s.period : s.nr_samples;
  profile.stacks.push_back(stack->second);
  profile.weights.push_back(weight);
  profile.total += weight;
  total_weight_ += weight;
}

std::string SpeedscopeConsumer::Serialize(std::string_view name) const {
  std::string out;
  auto o = std::back_inserter(out);
  out += R"({"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[)";
  for (size_t i = 0; i < frames_.size(); ++i) {
    out += i ? ",{\"name\":" : "{\"name\":";
    AppendJsonString(frames_[i].name, &out);
    if (frames_[i].dso) {
      out += ",\"file\":";
      AppendJsonString(frames_[i].dso->long_name(), &out);
    }
    out += '}';
  }
  out += "]},\"profiles\":[";
  std::vector<size_t> order(profiles_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Profile &x = profiles_[a], &y = profiles_[b];
    if (x.evsel != y.evsel) return x.evsel < y.evsel;
    if (x.total != y.total) return x.total > y.total;
    return std::tie(x.pid, x.tid) < std::tie(y.pid, y.tid);
  });
  const bool several = evsels_.size() > 1;
  for (size_t k = 0; k < order.size(); ++k) {
    const Profile& p = profiles_[order[k]];
    const Evsel& ev = evsels_[p.evsel];
    std::string profile_name = fmt::format("{} {}/{}", p.comm ? *p.comm : std::string(":") + std::to_string(p.tid),
                                           p.pid, p.tid);
    if (several) profile_name += " " + ev.name;
    out += k ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":";
    AppendJsonString(profile_name, &out);
    fmt::format_to(o, ",\"unit\":\"{}\",\"startValue\":0,\"endValue\":{},\"samples\":[",
                   weight_by_period_ && IsClockEvent(ev) ? "nanoseconds" : "none", p.total);
    for (size_t i = 0; i < p.stacks.size(); ++i) {
      out += i ? ",[" : "[";
      const uint32_t begin = stack_begin_[p.stacks[i]], end = stack_begin_[p.stacks[i] + 1];
      for (uint32_t f = begin; f < end; ++f) {
        if (f != begin) out += ',';
        fmt::format_to(o, "{}", stack_pool_[f]);
      }
      out += ']';
    }
    out += "],\"weights\":[";
    for (size_t i = 0; i < p.weights.size(); ++i) {
      if (i) out += ',';
      fmt::format_to(o, "{}", p.weights[i]);
    }
    out += "]}";
  }
  out += "],\"name\":";
  AppendJsonString(name, &out);
  out += ",\"activeProfileIndex\":0,\"exporter\":\"perflens 0.1\"}\n";
  return out;
}

}  // namespace perflens
