// `perflens report --json` call graphs against `perflens report --stdio` of the same
// options on the frame-pointer fixtures: the JSON tree, walked in order, names the same
// frames with the same values (percent, or period / count with those -g values) as the
// stdio graph lines; child periods never exceed their parent's. And `perflens script
// --json` against the script text (ScriptJson below).
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

// `perflens export --format json` is `perflens report --json` with the same filters:
// the same document, byte for byte, and (the recordings have callchains) with call
// graphs in it.
class ExportJson : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-exportjson-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override { RunShell("rm -rf " + ShellQuote(dir_), "/tmp"); }
  CommandResult Run(const std::string& subcommand_and_args) {
    const std::string fx = FixturesDir() + "/" + GetParam();
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                        ShellQuote(PerflensBinary()) + " " + subcommand_and_args + " -i " +
                        ShellQuote(fx + "/perf.data") + " --buildid-dir " + ShellQuote(FixturesDir() + "/cache") +
                        " --symfs " + ShellQuote(dir_ + "/symfs"),
                    dir_);
  }
  std::string dir_;
};

TEST_P(ExportJson, SameDocumentAsReportJson) {
  for (const char* filters : {"", " --max-stack 3 -U"}) {
    SCOPED_TRACE(filters);
    CommandResult report = Run(std::string("report --json") + filters);
    ASSERT_EQ(report.exit_code, 0) << report.err;
    CommandResult exported = Run(std::string("export --format json -o -") + filters);
    ASSERT_EQ(exported.exit_code, 0) << exported.err;
    EXPECT_EQ(exported.out, report.out);
    json doc = json::parse(exported.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << exported.out.substr(0, 400);
    size_t rows_with_chains = 0;
    for (const json& ev : doc["events"])
      for (const json& row : ev["rows"]) rows_with_chains += row.contains("callchain");
    EXPECT_GT(rows_with_chains, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportJson, ::testing::Values("threads", "cxx", "syscalls"));

// `perflens script --json` against `perflens script` text on the same fixture: one
// line per sample, each parses, and the first samples agree with
// `-F comm,tid,time,ip,sym,dso --ns` (the callchain lines frame by frame).
class ScriptJson : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-scriptjson-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    for (const char* sub : {"/home", "/symfs"}) ASSERT_EQ(mkdir((dir_ + sub).c_str(), 0700), 0);
  }
  void TearDown() override { RunShell("rm -rf " + ShellQuote(dir_), "/tmp"); }
  CommandResult Script(const std::string& args) {
    const std::string fx = FixturesDir() + "/" + GetParam();
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                        ShellQuote(PerflensBinary()) + " script " + args + " -i " + ShellQuote(fx + "/perf.data") +
                        " --buildid-dir " + ShellQuote(FixturesDir() + "/cache") + " --symfs " +
                        ShellQuote(dir_ + "/symfs"),
                    dir_);
  }
  std::string dir_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

TEST_P(ScriptJson, OneLinePerSampleAgreeingWithText) {
  CommandResult js = Script("--json");
  ASSERT_EQ(js.exit_code, 0) << js.err;
  CommandResult count = Script("-F comm,tid");
  ASSERT_EQ(count.exit_code, 0) << count.err;
  std::vector<std::string> json_lines = Lines(js.out);
  ASSERT_FALSE(json_lines.empty());
  EXPECT_EQ(json_lines.size(), Lines(count.out).size());
  std::vector<json> samples;
  for (const std::string& l : json_lines) {
    json o = json::parse(l, nullptr, false);
    ASSERT_FALSE(o.is_discarded()) << l;
    for (const char* k : {"comm", "pid", "tid", "cpu", "time", "event", "period", "ip", "sym", "symoff", "dso"})
      ASSERT_TRUE(o.contains(k)) << k << " missing: " << l;
    samples.push_back(std::move(o));
  }
  // The text: a header line per sample ("comm tid sec.ns:" then " ip sym (dso)" or
  // callchain lines below), blank lines between callchain samples.
  CommandResult text = Script("-F comm,tid,time,ip,sym,dso --ns");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  static const std::regex head(R"(^(.*\S) +(-?\d+) +(\d+)\.(\d{9}):(.*)$)");
  static const std::regex frame(R"(^\t *([0-9a-f]+) (.*) \((.*)\)$)");
  static const std::regex inline_ip(R"(^ +([0-9a-f]+) (.*) \((.*)\)$)");
  std::vector<std::string> tl = Lines(text.out);
  size_t at = 0, compared = 0;
  for (size_t i = 0; i < samples.size() && i < 20; ++i) {
    while (at < tl.size() && tl[at].empty()) ++at;
    ASSERT_LT(at, tl.size());
    std::smatch m;
    ASSERT_TRUE(std::regex_match(tl[at], m, head)) << tl[at];
    const json& o = samples[i];
    EXPECT_EQ(Trim(m[1]), o["comm"].get<std::string>());
    EXPECT_EQ(std::stoll(m[2]), o["tid"].get<int64_t>());
    EXPECT_EQ(std::stoull(m[3]) * 1000000000ull + std::stoull(m[4]), o["time"].get<uint64_t>());
    auto check = [&](const std::string& hex, const std::string& sym, const std::string& dso, const json& f) {
      const uint64_t printed = std::stoull(hex, nullptr, 16);
      EXPECT_TRUE(printed == f["ip"].get<uint64_t>() ||
                  (f.contains("dso_addr") && printed == f["dso_addr"].get<uint64_t>()))
          << hex << " vs " << f.dump();
      EXPECT_EQ(sym, f["sym"].is_null() ? "[unknown]" : f["sym"].get<std::string>());
      EXPECT_EQ(dso, f["dso"].get<std::string>());
      ++compared;
    };
    const std::string rest = m[5];
    ++at;
    if (o.contains("callchain")) {
      for (const json& f : o["callchain"]) {
        ASSERT_LT(at, tl.size());
        ASSERT_TRUE(std::regex_match(tl[at], m, frame)) << tl[at];
        check(m[1], m[2], m[3], f);
        ++at;
      }
    } else {
      ASSERT_TRUE(std::regex_match(rest, m, inline_ip)) << rest;
      check(m[1], m[2], m[3], o);
    }
  }
  EXPECT_GT(compared, 0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ScriptJson, ::testing::Values("threads", "cxx", "syscalls", "tracepoints"));

}  // namespace
}  // namespace perflens::scenario
