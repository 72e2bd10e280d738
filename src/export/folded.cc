#include "export/folded.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "session/dso_name.h"

namespace perflens {
namespace {

void AppendSanitized(std::string_view s, char from, char to, std::string* out) {
  for (char c : s) out->push_back(c == from ? to : c);
}

}  // namespace

void FoldedStacks::Add(std::string_view comm, std::span<const AddrLocation> callee_first, uint64_t weight) {
  key_.clear();
  for (char c : comm) key_.push_back(c == ' ' ? '_' : c == ';' ? ':' : c);
  for (auto it = callee_first.rbegin(); it != callee_first.rend(); ++it) {
    const AddrLocation& al = *it;
    key_.push_back(';');
    if (al.sym) {
      AppendSanitized(al.sym->name, ';', ':', &key_);
    } else if (al.dso) {
      // stackcollapse-perf: an unknown symbol is named after the basename of the DSO
      // name perf script prints.
      std::string_view name = ScriptDsoName(al.dso, &scratch_);
      size_t slash = name.rfind('/');
      if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
      key_.push_back('[');
      AppendSanitized(name, ';', ':', &key_);
      key_.push_back(']');
    } else {
      key_.append("[unknown]");
    }
    if (al.dso && al.dso->is_kernel()) key_.append("_[k]");
  }
  auto found = stacks_.find(std::string_view(key_));
  if (found == stacks_.end()) found = stacks_.emplace(key_, 0).first;
  found->second += weight;
  total_ += weight;
}

void FoldedStacks::Print(std::string* out) const {
  std::vector<const std::pair<const std::string, uint64_t>*> sorted;
  sorted.reserve(stacks_.size());
  for (const auto& entry : stacks_) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : sorted) fmt::format_to(std::back_inserter(*out), "{} {}\n", entry->first, entry->second);
}

void FoldedConsumer::OnSample(const ResolvedSample& s) {
  frames_.clear();
  if (s.has_callchain) {
    for (const CallchainFrame& f : s.callchain) frames_.push_back(f.al);
  } else {
    frames_.push_back(s.location);
  }
  stacks_.Add(*s.comm, frames_, weight_by_period_ ? s.period : s.nr_samples);
}

}  // namespace perflens
