// `perflens export --format speedscope` checked against speedscope's published schema
// (testdata/speedscope-file-format-schema.json, validated by testdata/
// validate_speedscope.py with /usr/bin/python3's jsonschema) and against `perflens
// report` on committed replay fixtures (fixtures/README.md): per event, the weights add
// up to report's "# Samples" (or "# Event count" with --folded-weight period), and the
// leaf frames' weights by name equal report --no-children -s sym's rows. A deliberately
// broken document must fail the validator, so the validation can fail. Without
// /usr/bin/python3 or its jsonschema the test fails; PERFLENS_SKIP_SCHEMA=1 turns that
// into a skip.
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string FixturesDir() { return ScenarioSourceDir() + "/fixtures"; }
std::string TestdataDir() { return ScenarioSourceDir() + "/testdata"; }

// Names both sides print for resolved functions only (report's "0x…", the export's
// "[dso]" and "[unknown]" are not compared).
bool Resolved(const std::string& name) { return !name.empty() && name[0] != '[' && name.rfind("0x", 0) != 0; }

class ExportSpeedscope : public ScratchDirTest<::testing::TestWithParam<std::string>> {
 protected:
  ExportSpeedscope() : ScratchDirTest("speedscope") {}
  std::string File(const std::string& name) const { return FixturesDir() + "/" + GetParam() + "/" + name; }
  // With inline frames a DWARF-unwound chain's leaf is the inlined function (perf
  // script's "Rotl (inlined)") where report's self row names the symbol table's
  // ("Rotl.constprop.0"): the dwarf fixtures are compared without them.
  std::string InlineArgs() const { return GetParam().rfind("dwarf", 0) == 0 ? " --no-inline" : ""; }
  // perflens ARGS -i perf.data, reading only the fixture's files.
  CommandResult Perflens(const std::string& args) {
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) +
                        " " + args + " -i " + ShellQuote(File("perf.data")) + " --buildid-dir " +
                        ShellQuote(FixturesDir() + "/cache") + " --symfs " + ShellQuote(dir_ + "/symfs"),
                    dir_);
  }
  CommandResult Validate(const std::string& document) {
    return RunShell("/usr/bin/python3 " + ShellQuote(TestdataDir() + "/validate_speedscope.py") + " " +
                        ShellQuote(TestdataDir() + "/speedscope-file-format-schema.json") + " " + ShellQuote(document),
                    dir_);
  }
  // Empty when /usr/bin/python3 imports jsonschema; otherwise why not.
  std::string NoValidator() {
    CommandResult r = RunShell("/usr/bin/python3 -c 'import jsonschema'", dir_);
    return r.exit_code == 0 ? "" : "/usr/bin/python3 cannot import jsonschema: " + r.err;
  }
};

#define REQUIRE_VALIDATOR()                                                                          \
  do {                                                                                               \
    const std::string why = NoValidator();                                                           \
    if (!why.empty()) {                                                                              \
      const char* skip = std::getenv("PERFLENS_SKIP_SCHEMA");                                        \
      if (skip && std::string(skip) == "1") GTEST_SKIP() << why << " (PERFLENS_SKIP_SCHEMA=1)";       \
      FAIL() << why << ": install python3-jsonschema (scripts/install-deps.sh), or set "             \
                       "PERFLENS_SKIP_SCHEMA=1";                                                     \
    }                                                                                                \
  } while (0)

TEST_P(ExportSpeedscope, ValidAndEqualsReport) {
  REQUIRE_VALIDATOR();
  CommandResult r = Perflens("report --stdio --no-children -s sym -F sample,period,sym -g none --percent-limit 0 -t '|'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<FlatEventRows> events = ParseFlatSymReport(r.out);
  ASSERT_FALSE(events.empty()) << r.out;
  for (const bool period : {false, true}) {
    SCOPED_TRACE(period ? "--folded-weight period" : "samples");
    const std::string path = dir_ + (period ? "/period.speedscope.json" : "/samples.speedscope.json");
    CommandResult e = Perflens("export --format speedscope" + InlineArgs() + " -o " + ShellQuote(path) +
                               (period ? " --folded-weight period" : ""));
    ASSERT_EQ(e.exit_code, 0) << e.err;
    CommandResult v = Validate(path);
    ASSERT_EQ(v.exit_code, 0) << v.err;
    EXPECT_EQ(v.out, "valid\n");
    const nlohmann::json doc = nlohmann::json::parse(ReadFileOrEmpty(path));
    const auto& frames = doc.at("shared").at("frames");
    ASSERT_FALSE(doc.at("profiles").empty());
    for (const FlatEventRows& ev : events) {
      SCOPED_TRACE("event " + ev.event);
      uint64_t total = 0;
      std::map<std::string, uint64_t> expected, actual;
      for (const auto& [name, sp] : ev.rows)
        if (Resolved(name)) expected[name] = period ? sp.second : sp.first;
      int nr_profiles = 0;
      for (const auto& p : doc.at("profiles")) {
        // With several events each profile's name ends with its event's.
        const std::string name = p.at("name");
        if (events.size() > 1 && !name.ends_with(" " + ev.event)) continue;
        ++nr_profiles;
        const auto& samples = p.at("samples");
        const auto& weights = p.at("weights");
        ASSERT_EQ(samples.size(), weights.size());
        uint64_t profile_total = 0;
        for (size_t i = 0; i < samples.size(); ++i) {
          const uint64_t w = weights[i];
          profile_total += w;
          ASSERT_FALSE(samples[i].empty());
          const std::string leaf = frames.at(samples[i].back().get<size_t>()).at("name");
          if (Resolved(leaf)) actual[leaf] += w;
        }
        EXPECT_EQ(p.at("endValue").get<uint64_t>(), profile_total) << name;
        total += profile_total;
      }
      EXPECT_GT(nr_profiles, 0);
      EXPECT_EQ(total, period ? ev.total_period : ev.total_samples);
      ASSERT_FALSE(expected.empty()) << r.out;
      EXPECT_EQ(actual, expected) << r.out;
    }
  }
}

// The validator rejects what speedscope would: a unit outside its enum, a sample that is
// not an array of numbers, and bytes that are not UTF-8.
TEST_P(ExportSpeedscope, ValidatorRejectsBrokenDocuments) {
  REQUIRE_VALIDATOR();
  const std::string path = dir_ + "/p.speedscope.json";
  CommandResult e = Perflens("export --format speedscope" + InlineArgs() + " -o " + ShellQuote(path));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const std::string good = ReadFileOrEmpty(path);
  ASSERT_EQ(Validate(path).exit_code, 0);
  const std::vector<std::pair<std::string, std::string>> breaks = {
      {"\"unit\":\"none\"", "\"unit\":\"frames\""},
      {"\"samples\":[[", "\"samples\":[[\"x\","},
      {"\"name\":\"", "\"name\":\"\xff"},
  };
  for (const auto& [from, to] : breaks) {
    SCOPED_TRACE(to);
    std::string bad = good;
    const size_t at = bad.find(from);
    ASSERT_NE(at, std::string::npos);
    bad.replace(at, from.size(), to);
    WriteFile(dir_ + "/bad.json", bad);
    CommandResult v = Validate(dir_ + "/bad.json");
    EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportSpeedscope, ::testing::Values("threads", "cxx", "two_events", "dwarf_c"));

}  // namespace
}  // namespace perflens::scenario
