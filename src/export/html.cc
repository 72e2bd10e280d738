#include "export/html.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "base/text_escape.h"
#include "export/html_viewer.h"
#include "session/dso_name.h"

namespace perflens {
namespace {

// A JSON string, safe inside <script>: '<', '>', '&' and control bytes as \u00XX;
// bytes that are not UTF-8 as U+FFFD (JSON text is UTF-8, as the page is).
void AppendJsonString(std::string_view raw, std::string* out) {
  const std::string s = ValidUtf8(raw);
  out->push_back('"');
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20 || c == '<' || c == '>' || c == '&') {
      fmt::format_to(std::back_inserter(*out), "\\u{:04x}", u);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

}  // namespace

void AppendStackNumber(uint64_t v, std::string* out) {
  while (v >= 32) {
    out->push_back(kStackDigits[32 | (v & 31)]);
    v >>= 5;
  }
  out->push_back(kStackDigits[v]);
}

namespace {

void AppendHtmlEscaped(std::string_view s, std::string* out) {
  for (char c : s) {
    switch (c) {
      case '<': out->append("&lt;"); break;
      case '>': out->append("&gt;"); break;
      case '&': out->append("&amp;"); break;
      case '"': out->append("&quot;"); break;
      default: out->push_back(c);
    }
  }
}

}  // namespace

HtmlConsumer::HtmlConsumer(const std::vector<Evsel>& evsels) : totals_(evsels.size(), 0) {
  for (const Evsel& ev : evsels) {
    evsel_names_.push_back(ev.name);
    evsel_kinds_.emplace_back(ev.attr.type, ev.attr.config);
  }
}

uint32_t HtmlConsumer::NameOf(std::string_view name) {
  auto [it, added] = name_ids_.try_emplace(std::string(name), static_cast<uint32_t>(names_.size()));
  if (added) names_.emplace_back(name);
  return it->second;
}

uint32_t HtmlConsumer::FrameOf(const AddrLocation& al) {
  const bool kernel = al.dso && al.dso->is_kernel();
  const FrameKey key{al.sym ? static_cast<const void*>(al.sym) : nullptr, al.dso};
  if (auto found = frame_cache_.find(key); found != frame_cache_.end()) return found->second;
  std::string_view dso_name = ScriptDsoName(al.dso, &scratch_);
  std::string name;
  if (al.sym) {
    name = al.sym->name;
  } else if (al.dso) {
    std::string_view base = dso_name;
    const size_t slash = base.rfind('/');
    if (slash != std::string_view::npos) base.remove_prefix(slash + 1);
    name = fmt::format("[{}]", base);
  } else {
    name = "[unknown]";
  }
  const uint32_t dso_id = NameOf(dso_name);
  const uint32_t name_id = NameOf(name);
  const uint64_t id_key = static_cast<uint64_t>(name_id) << 32 | dso_id;
  auto [it, added] = frame_ids_.try_emplace(id_key, static_cast<uint32_t>(frames_.size() / 3));
  if (added) frames_.insert(frames_.end(), {name_id, dso_id, kernel ? 1u : 0u});
  frame_cache_.emplace(key, it->second);
  return it->second;
}

uint32_t HtmlConsumer::StackOf(int64_t parent, uint32_t frame) {
  const uint64_t key = static_cast<uint64_t>(parent + 1) << 32 | frame;
  auto [it, added] = stack_ids_.try_emplace(key, static_cast<uint32_t>(stacks_.size() / 2));
  if (added) stacks_.insert(stacks_.end(), {parent, static_cast<int64_t>(frame)});
  return it->second;
}

void HtmlConsumer::BeginBaseline(const std::vector<Evsel>& base_evsels, std::string_view base_source) {
  baseline_ = true;
  has_baseline_ = true;
  base_source_ = base_source;
  frame_cache_.clear();
  baseline_evsels_.assign(base_evsels.size(), -1);
  for (size_t i = 0; i < base_evsels.size(); ++i) {
    const std::pair<uint32_t, uint64_t> kind(base_evsels[i].attr.type, base_evsels[i].attr.config);
    auto same = std::find(evsel_kinds_.begin(), evsel_kinds_.end(), kind);
    if (same != evsel_kinds_.end()) baseline_evsels_[i] = static_cast<int32_t>(same - evsel_kinds_.begin());
  }
  base_totals_.assign(totals_.size(), 0);
}

void HtmlConsumer::EndBaseline() {
  baseline_ = false;
  frame_cache_.clear();
}

void HtmlConsumer::OnSample(const ResolvedSample& s) {
  uint32_t evsel = s.evsel;
  if (baseline_) {
    if (evsel >= baseline_evsels_.size() || baseline_evsels_[evsel] < 0) return;
    evsel = static_cast<uint32_t>(baseline_evsels_[evsel]);
  }
  if (evsel >= totals_.size()) return;  // not an evsel of the file: nothing to name it by
  int64_t stack = -1;
  if (s.has_callchain && !s.callchain.empty()) {
    for (auto it = s.callchain.rbegin(); it != s.callchain.rend(); ++it) stack = StackOf(stack, FrameOf(it->al));
  } else {
    stack = StackOf(-1, FrameOf(s.location));
  }
  const ThreadKey tk{s.pid, s.tid, s.comm};
  auto [t, t_added] = thread_ids_.try_emplace(tk, static_cast<uint32_t>(threads_.size()));
  if (t_added) threads_.push_back(tk);
  // A thread is the baseline's or the new file's (its comm is of that file's session):
  // the thread index alone tells the series apart.
  const uint64_t series_key = static_cast<uint64_t>(t->second) << 32 | evsel;
  auto [se, se_added] = series_ids_.try_emplace(series_key, static_cast<uint32_t>(series_.size()));
  if (se_added) series_.push_back({t->second, evsel, baseline_, {}});
  series_[se->second].counts[static_cast<uint32_t>(stack)] += s.nr_samples;
  (baseline_ ? base_totals_ : totals_)[evsel] += s.nr_samples;
}

uint64_t HtmlConsumer::total_samples() const {
  uint64_t total = 0;
  for (uint64_t t : totals_) total += t;
  return total;
}

void HtmlConsumer::AppendJson(std::string_view source, std::string* out) const {
  auto inserter = std::back_inserter(*out);
  out->append("{\"version\":1,\"source\":");
  AppendJsonString(source, out);
  out->append(",\n\"names\":[");
  for (size_t i = 0; i < names_.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(names_[i], out);
  }
  out->append("],\n\"frames\":[");
  for (size_t i = 0; i < frames_.size(); ++i) fmt::format_to(inserter, "{}{}", i ? "," : "", frames_[i]);
  out->append("],\n\"stacks\":\"");
  for (size_t i = 0; i < stacks_.size(); i += 2) {
    const int64_t index = static_cast<int64_t>(i / 2), parent = stacks_[i];
    AppendStackNumber(static_cast<uint64_t>(parent < 0 ? 0 : index - parent), out);
    AppendStackNumber(static_cast<uint64_t>(stacks_[i + 1]), out);
  }
  out->push_back('"');
  out->append(",\n\"threads\":[");
  for (size_t i = 0; i < threads_.size(); ++i) {
    fmt::format_to(inserter, "{}{},{},", i ? "," : "", threads_[i].pid, threads_[i].tid);
    AppendJsonString(threads_[i].comm ? *threads_[i].comm : std::string_view(":unknown"), out);
  }
  out->append("],\n\"events\":[");
  for (size_t i = 0; i < evsel_names_.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(evsel_names_[i], out);
  }
  out->append("],\n\"counts\":");
  AppendCounts(false, out);
  out->append(",\n\"totals\":[");
  for (size_t i = 0; i < totals_.size(); ++i) fmt::format_to(inserter, "{}{}", i ? "," : "", totals_[i]);
  out->push_back(']');
  if (has_baseline_) {
    out->append(",\n\"base\":{\"source\":");
    AppendJsonString(base_source_, out);
    out->append(",\n\"counts\":");
    AppendCounts(true, out);
    out->append(",\n\"totals\":[");
    for (size_t i = 0; i < base_totals_.size(); ++i) fmt::format_to(inserter, "{}{}", i ? "," : "", base_totals_[i]);
    out->append("]}");
  }
  out->append("}\n");
}

void HtmlConsumer::AppendCounts(bool base, std::string* out) const {
  auto inserter = std::back_inserter(*out);
  out->push_back('[');
  bool first = true;
  for (const Series& se : series_) {
    if (se.base != base) continue;
    fmt::format_to(inserter, "{}\n[{},{},[", first ? "" : ",", se.thread, se.event);
    first = false;
    // Stack order: the output does not depend on the hash map's.
    std::vector<std::pair<uint32_t, uint64_t>> sorted(se.counts.begin(), se.counts.end());
    std::sort(sorted.begin(), sorted.end());
    uint32_t previous = 0;
    for (size_t j = 0; j < sorted.size(); ++j) {
      fmt::format_to(inserter, "{}{},{}", j ? "," : "", sorted[j].first - previous, sorted[j].second);
      previous = sorted[j].first;
    }
    out->append("]]");
  }
  out->push_back(']');
}

std::string RenderHtmlReport(std::string_view json, std::string_view title) {
  std::string escaped_title;
  AppendHtmlEscaped(title, &escaped_title);
  // The template's markers, each replaced once, in one pass over the template only:
  // nothing in a replacement is ever read as a marker.
  const std::pair<std::string_view, std::string_view> kMarkers[] = {
      {"/*PERFLENS_TITLE*/", escaped_title},
      {"/*PERFLENS_CSS*/", HtmlViewerCss()},
      {"/*PERFLENS_JS*/", HtmlViewerJs()},
      {"/*PERFLENS_DATA*/", json},
  };
  const std::string_view page = HtmlViewerTemplate();
  std::string out;
  out.reserve(page.size() + json.size() + HtmlViewerCss().size() + HtmlViewerJs().size());
  size_t at = 0;
  while (at < page.size()) {
    size_t next = std::string_view::npos;
    const std::pair<std::string_view, std::string_view>* marker = nullptr;
    for (const auto& m : kMarkers) {
      const size_t found = page.find(m.first, at);
      if (found < next) {
        next = found;
        marker = &m;
      }
    }
    if (!marker) {
      out.append(page.substr(at));
      break;
    }
    out.append(page.substr(at, next - at));
    out.append(marker->second);
    at = next + marker->first.size();
  }
  return out;
}

}  // namespace perflens
