#include <nlohmann/json.hpp>

#include "report/json_printer.h"

#include "report/sort_key.h"

namespace perflens {

namespace {

using nlohmann::json;

// A frame's fields in the call graph: the printed name, the raw symbol (null when
// unresolved, with the ip then), the dso column's name.
void FrameJson(const ChainFrame& f, json* node) {
  (*node)["name"] = CallchainFrameName(f);
  (*node)["symbol"] = f.sym ? json(std::string(f.sym->name)) : json(nullptr);
  if (!f.sym) (*node)["ip"] = f.ip;
  (*node)["dso"] = std::string(DsoColumnName(f.dso));
  if (f.sym && f.sym->inlined) (*node)["inlined"] = true;
  if (f.srcline) (*node)["srcline"] = *f.srcline;
}

json FramesJson(const std::vector<const ChainFrame*>& frames) {
  json arr = json::array();
  for (const ChainFrame* f : frames) {
    json frame;
    FrameJson(*f, &frame);
    arr.push_back(std::move(frame));
  }
  return arr;
}

json GraphJson(const std::vector<CallchainViewNode>& nodes) {
  json arr = json::array();
  for (const CallchainViewNode& n : nodes) {
    json node;
    node["period"] = n.period;
    node["samples"] = n.samples;
    node["percent"] = n.percent;
    node["frames"] = FramesJson(n.frames);
    node["children"] = GraphJson(n.children);
    arr.push_back(std::move(node));
  }
  return arr;
}

json ChainsJson(const std::vector<CallchainViewChain>& chains) {
  json arr = json::array();
  for (const CallchainViewChain& c : chains) {
    json chain;
    chain["period"] = c.period;
    chain["samples"] = c.samples;
    chain["percent"] = c.percent;
    chain["frames"] = FramesJson(c.frames);
    arr.push_back(std::move(chain));
  }
  return arr;
}

const char* ModeName(CallGraphMode m) {
  switch (m) {
    case CallGraphMode::kNone: return "none";
    case CallGraphMode::kGraph: return "graph";
    case CallGraphMode::kFractal: return "fractal";
    case CallGraphMode::kFlat: return "flat";
    case CallGraphMode::kFolded: return "folded";
  }
  return "none";
}

}  // namespace

Status PrintReportJson(const HistsOutput& report, std::string* out) {
  json doc;
  doc["file"] = report.path();
  const CallGraphParams& cg = report.call_graph();
  doc["call_graph"] = {{"mode", ModeName(cg.mode)},
                       {"order", cg.caller_order ? "caller" : "callee"},
                       {"threshold", cg.min_percent},
                       {"print_limit", cg.print_limit},
                       {"key", cg.key == CallchainKey::kAddress ? "address" : "function"}};
  CallchainStore::BuildScratch scratch;
  doc["total_lost_samples"] = report.total_lost_samples();
  json sections = json::array();
  std::string cell;
  const auto& evsels = report.evsels();
  for (size_t ei = 0; ei < report.hists().size(); ++ei) {
    const Hists& h = report.hists()[ei];
    if (h.nr_samples == 0) continue;
    json sec;
    sec["event"] = evsels[ei].name;
    sec["samples"] = h.nr_samples;
    sec["event_count"] = h.total_period;
    json rows = json::array();
    const double limit = report.options().percent_limit;
    for (const HistEntry* e : h.Sorted(report.sort_by_children())) {
      uint64_t limit_period = report.sort_by_children() ? e->acc.period : e->self.period;
      if (limit > 0 && h.total_period &&
          100.0 * static_cast<double>(limit_period) / static_cast<double>(h.total_period) < limit)
        continue;
      json row;
      row["period"] = e->self.period;
      row["samples"] = e->self.nr_samples;
      row["period_sys"] = e->self.period_sys;
      row["period_us"] = e->self.period_us;
      if (report.children()) row["children_period"] = e->acc.period;
      row["overhead"] = h.total_period ? 100.0 * static_cast<double>(e->self.period) / static_cast<double>(h.total_period) : 0.0;
      if (report.children())
        row["children"] = h.total_period ? 100.0 * static_cast<double>(e->acc.period) / static_cast<double>(h.total_period) : 0.0;
      for (const SortKey* k : h.keys()) k->json(*e, &row);
      if (cg.mode != CallGraphMode::kNone) {
        // The tree the stdio printer prints for this row (same arguments).
        if (auto chain = h.BuildChain(e, cg, &scratch)) {
          CallchainView view = MakeCallchainView(*chain, cg, h.all_period(),
                                                 report.children() ? e->acc.period : e->self.period, h.total_period);
          row["callchain"] = cg.mode == CallGraphMode::kFlat || cg.mode == CallGraphMode::kFolded
                                 ? ChainsJson(view.chains)
                                 : GraphJson(view.graph);
        }
      }
      rows.push_back(std::move(row));
    }
    sec["rows"] = std::move(rows);
    sections.push_back(std::move(sec));
  }
  doc["events"] = std::move(sections);
  doc["warnings"] = report.warnings();
  // Names come from the recording and need not be UTF-8: invalid bytes become U+FFFD
  // (nlohmann throws type_error.316 otherwise), so the output is always valid JSON.
  *out += doc.dump(2, ' ', false, json::error_handler_t::replace);
  out->push_back('\n');
  return Status::Ok();
}

}  // namespace perflens
