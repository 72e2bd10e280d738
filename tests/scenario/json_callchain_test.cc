// `perflens report --json` call graphs against `perflens report --stdio` of the same
// options on the frame-pointer fixtures: the JSON tree, walked in order, names the same
// frames with the same values (percent, or period / count with those -g values) as the
// stdio graph lines; child periods never exceed their parent's.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "scenario_util.h"

namespace perflens::scenario {
namespace {

using nlohmann::json;

std::string FixturesDir() { return ScenarioSourceDir() + "/fixtures"; }

struct JsonCase {
  std::string fixture;
  std::string args;  // report options but the output format
  std::string value;  // -g value: percent, period, count
};

// One graph line as (value, name): value "" for lines printed without one.
using Line = std::pair<std::string, std::string>;

// The call-graph lines of stdio text: the lines in the 12-space margin, minus the
// "|" separator lines and fractal "[...]" lines.
std::vector<Line> StdioLines(const std::string& text) {
  static const std::regex valued(R"(^[ |]*--([0-9.]+%?)--(.*)$)");
  static const std::regex root(R"(^ *---(.*)$)");
  std::vector<Line> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("            ", 0) != 0) continue;
    if (l.find_first_not_of(" |") == std::string::npos) continue;
    std::smatch m;
    if (std::regex_match(l, m, valued)) {
      if (m[2] == "[...]") continue;
      out.emplace_back(m[1], m[2]);
    } else if (std::regex_match(l, m, root)) {
      out.emplace_back("", m[1]);
    } else {
      size_t at = l.find_first_not_of(" |");
      out.emplace_back("", l.substr(at));
    }
  }
  return out;
}

std::string Value(const json& node, const std::string& value) {
  if (value == "period") return std::to_string(node["period"].get<uint64_t>());
  if (value == "count") return std::to_string(node["samples"].get<uint64_t>());
  return fmt::format("{:.2f}%", node["percent"].get<double>());
}

// Walks the JSON nodes in print order; `single_root`: the node is a single root chain
// (printed without a value). Checks the periods on the way.
void JsonLines(const json& nodes, uint64_t parent_period, bool top, uint64_t row_period, const std::string& value,
               std::vector<Line>* out) {
  ASSERT_TRUE(nodes.is_array());
  uint64_t sum = 0;
  for (const json& n : nodes) {
    const uint64_t period = n["period"].get<uint64_t>();
    EXPECT_LE(period, parent_period) << n.dump();
    sum += period;
    const bool single_root = top && nodes.size() == 1 && period == row_period;
    const json& frames = n["frames"];
    ASSERT_FALSE(frames.empty()) << n.dump();
    for (size_t i = 0; i < frames.size(); ++i) {
      ASSERT_TRUE(frames[i]["dso"].is_string());
      out->emplace_back(i == 0 && !single_root ? Value(n, value) : "", frames[i]["name"].get<std::string>());
    }
    JsonLines(n["children"], period, false, row_period, value, out);
  }
  EXPECT_LE(sum, parent_period);
}

class JsonCallchain : public ::testing::TestWithParam<JsonCase> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-jsoncc-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override { RunShell("rm -rf " + ShellQuote(dir_), "/tmp"); }

  CommandResult Perflens(const std::string& args) {
    const std::string fx = FixturesDir() + "/" + GetParam().fixture;
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                        ShellQuote(PerflensBinary()) + " report " + args + " -i " + ShellQuote(fx + "/perf.data") +
                        " --buildid-dir " + ShellQuote(FixturesDir() + "/cache") + " --symfs " +
                        ShellQuote(dir_ + "/symfs"),
                    dir_);
  }
  std::string dir_;
};

TEST_P(JsonCallchain, TreeMatchesStdio) {
  const JsonCase& c = GetParam();
  CommandResult text = Perflens("--stdio " + c.args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  CommandResult js = Perflens("--json " + c.args);
  ASSERT_EQ(js.exit_code, 0) << js.err;
  json doc = json::parse(js.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << js.out.substr(0, 400);
  const bool children = c.args.find("--children") != std::string::npos;
  std::vector<Line> from_json;
  size_t rows_with_chains = 0;
  for (const json& ev : doc["events"]) {
    for (const json& row : ev["rows"]) {
      if (!row.contains("callchain")) continue;
      ++rows_with_chains;
      const uint64_t row_period = row[children ? "children_period" : "period"].get<uint64_t>();
      JsonLines(row["callchain"], row_period, true, row_period, c.value, &from_json);
    }
  }
  EXPECT_GT(rows_with_chains, 0u);
  std::vector<Line> from_stdio = StdioLines(text.out);
  ASSERT_FALSE(from_stdio.empty()) << text.out;
  ASSERT_EQ(from_json.size(), from_stdio.size());
  for (size_t i = 0; i < from_json.size(); ++i) {
    EXPECT_EQ(from_json[i], from_stdio[i]) << "graph line " << i;
    if (from_json[i] != from_stdio[i]) break;
  }
}

std::vector<JsonCase> Cases() {
  std::vector<JsonCase> v;
  for (const char* fx : {"threads", "cxx", "syscalls"}) {
    v.push_back({fx, "-g graph --no-children", "percent"});
    v.push_back({fx, "-g graph --children", "percent"});
    v.push_back({fx, "-g fractal,0.5,callee --no-children", "percent"});
    v.push_back({fx, "-g graph,0,caller,function,period --no-children", "period"});
    v.push_back({fx, "-g graph,0.5,callee,function,count --children", "count"});
    v.push_back({fx, "-g graph,0.5,callee,function,percent,3 --no-children --sort sym", "percent"});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, JsonCallchain, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<JsonCase>& info) {
                           return info.param.fixture + "_" + std::to_string(info.index);
                         });

}  // namespace
}  // namespace perflens::scenario
