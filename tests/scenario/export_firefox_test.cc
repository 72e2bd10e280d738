// `perflens export --format firefox` checked by a structural validator of the Firefox
// Profiler's processed format, version 49 (testdata/validate_firefox_profile.py, run with
// /usr/bin/python3), and against `perflens report` on committed replay fixtures
// (fixtures/README.md): the samples add up to report's "# Samples" over every event, and
// the leaf functions' samples by name (read here through stack → frame → func → string)
// equal report --no-children -s sym's rows. Profiles broken on purpose (an index out of
// range, a prefix that is not below its stack, a time going back, a column too short)
// must fail the validator, so the validation can fail. Without /usr/bin/python3 the test
// fails; PERFLENS_SKIP_SCHEMA=1 turns that into a skip.
// The real consumer: the Firefox Profiler's own loading code (the vendored
// @firefox-devtools/profiler-cli 0.10.0, testdata/README.md) loads each export under
// node, offline, and its thread, sample and call-tree counts must be the file's
// (testdata/check_firefox_profile.mjs); broken exports must fail that check too.
// Without node on PATH the test fails; PERFLENS_SKIP_SCHEMA=1 turns that into a skip.
#include <cstdlib>
#include <functional>
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
std::string Validator() { return ScenarioSourceDir() + "/testdata/validate_firefox_profile.py"; }
std::string ProfilerCheck() { return ScenarioSourceDir() + "/testdata/check_firefox_profile.mjs"; }
std::string ProfilerCli() { return ScenarioSourceDir() + "/testdata/firefox-profiler-cli/profiler-cli.js"; }

// `report --stdio --no-children -s sym -F sample,sym -t '|'` text: the sum of every
// event's "# Samples", and rows name → samples summed over the events.
struct Flat {
  uint64_t total = 0;
  std::map<std::string, uint64_t> rows;
};
Flat ParseFlatReport(const std::string& text) {
  Flat flat;
  static const std::regex kSamples(R"(^# Samples: (\d+)\s+of event '([^']*)'.*$)");
  static const std::regex kRow(R"(^\s*(\d+)\s*\|\[.\] (.*?)\s*$)");
  for (const std::string& line : SplitLines(text)) {
    std::smatch m;
    if (std::regex_match(line, m, kSamples)) flat.total += std::stoull(m[1]);
    else if (std::regex_match(line, m, kRow)) flat.rows[m[2]] += std::stoull(m[1]);
  }
  return flat;
}

// Names of resolved functions only (report's "0x…", the export's "[dso]"/"[unknown]").
bool Resolved(const std::string& name) { return !name.empty() && name[0] != '[' && name.rfind("0x", 0) != 0; }

class ExportFirefox : public ScratchDirTest<::testing::TestWithParam<std::string>> {
 protected:
  ExportFirefox() : ScratchDirTest("firefox") {}
  std::string File(const std::string& name) const { return FixturesDir() + "/" + GetParam() + "/" + name; }
  // With inline frames a DWARF-unwound chain's leaf is the inlined function (perf
  // script's "Rotl (inlined)") where report's self row names the symbol table's
  // ("Rotl.constprop.0"): the dwarf fixtures are compared without them.
  std::string InlineArgs() const { return GetParam().rfind("dwarf", 0) == 0 ? " --no-inline" : ""; }
  CommandResult Perflens(const std::string& args) {
    return RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " + ShellQuote(PerflensBinary()) +
                        " " + args + " -i " + ShellQuote(File("perf.data")) + " --buildid-dir " +
                        ShellQuote(FixturesDir() + "/cache") + " --symfs " + ShellQuote(dir_ + "/symfs"),
                    dir_);
  }
  CommandResult Validate(const std::string& profile) {
    return RunShell("/usr/bin/python3 " + ShellQuote(Validator()) + " " + ShellQuote(profile), dir_);
  }
  // The Firefox Profiler's verdict on `profile` (check_firefox_profile.mjs).
  CommandResult LoadInProfiler(const std::string& profile) {
    return RunShell("node " + ShellQuote(ProfilerCheck()) + " " + ShellQuote(profile) + " " + ShellQuote(ProfilerCli()),
                    dir_);
  }
  std::string NoNode() {
    CommandResult r = RunShell("node --version", dir_);
    return r.exit_code == 0 ? "" : "no node on PATH: " + r.err;
  }
  std::string NoValidator() {
    CommandResult r = RunShell("/usr/bin/python3 -c 'import json'", dir_);
    return r.exit_code == 0 ? "" : "no usable /usr/bin/python3: " + r.err;
  }
};

#define REQUIRE_VALIDATOR()                                                                          \
  do {                                                                                               \
    const std::string why = NoValidator();                                                           \
    if (!why.empty()) {                                                                              \
      const char* skip = std::getenv("PERFLENS_SKIP_SCHEMA");                                        \
      if (skip && std::string(skip) == "1") GTEST_SKIP() << why << " (PERFLENS_SKIP_SCHEMA=1)";       \
      FAIL() << why << ": install python3, or set PERFLENS_SKIP_SCHEMA=1";                          \
    }                                                                                                \
  } while (0)

TEST_P(ExportFirefox, ValidAndEqualsReport) {
  REQUIRE_VALIDATOR();
  const std::string path = dir_ + "/profile.json";
  CommandResult e = Perflens("export --format firefox" + InlineArgs() + " -o " + ShellQuote(path));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  CommandResult r = Perflens("report --stdio --no-children -s sym -F sample,sym -g none --percent-limit 0 -t '|'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Flat flat = ParseFlatReport(r.out);
  ASSERT_GT(flat.total, 0u) << r.out;
  CommandResult v = Validate(path);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  const nlohmann::json doc = nlohmann::json::parse(ReadFileOrEmpty(path));
  EXPECT_EQ(v.out, "valid: " + std::to_string(flat.total) + " samples in " + std::to_string(doc.at("threads").size()) +
                       " threads\n");
  std::map<std::string, uint64_t> expected, actual;
  for (const auto& [name, samples] : flat.rows)
    if (Resolved(name)) expected[name] = samples;
  uint64_t total = 0;
  for (const auto& t : doc.at("threads")) {
    const auto& samples = t.at("samples");
    EXPECT_TRUE(samples.at("weight").is_null());  // every sample has its own time
    const auto& stacks = t.at("stackTable");
    const auto& frames = t.at("frameTable");
    const auto& funcs = t.at("funcTable");
    const auto& strings = t.at("stringArray");
    for (const auto& stack : samples.at("stack")) {
      ++total;
      ASSERT_FALSE(stack.is_null());
      const size_t frame = stacks.at("frame").at(stack.get<size_t>());
      const size_t func = frames.at("func").at(frame);
      const std::string name = strings.at(funcs.at("name").at(func).get<size_t>());
      if (Resolved(name)) ++actual[name];
    }
  }
  EXPECT_EQ(total, flat.total);
  // Frames in the kernel's Dso are in the Kernel category, the others in User.
  const auto& categories = doc.at("meta").at("categories");
  ASSERT_EQ(categories.size(), 3u);
  EXPECT_EQ(categories[0].at("name"), "User");
  EXPECT_EQ(categories[1].at("name"), "Kernel");
  EXPECT_EQ(categories[2].at("color"), "grey");
  int kernel_frames = 0;
  for (const auto& t : doc.at("threads")) {
    const auto& frames = t.at("frameTable");
    const auto& funcs = t.at("funcTable");
    const auto& resources = t.at("resourceTable");
    for (size_t i = 0; i < frames.at("length").get<size_t>(); ++i) {
      const int resource = funcs.at("resource").at(frames.at("func").at(i).get<size_t>());
      if (resource < 0) continue;
      const std::string dso = t.at("stringArray").at(resources.at("name").at(resource).get<size_t>());
      const bool kernel = dso == "[kernel.kallsyms]";
      kernel_frames += kernel;
      EXPECT_EQ(frames.at("category").at(i), kernel ? 1 : 0) << dso;
    }
  }
  if (GetParam() == "threads") {
    EXPECT_GT(kernel_frames, 0);  // its exit path is sampled in the kernel
  }
  ASSERT_FALSE(expected.empty()) << r.out;
  EXPECT_EQ(actual, expected) << r.out;
  const auto& meta = doc.at("meta");
  EXPECT_EQ(meta.at("preprocessedProfileVersion"), 49);
  EXPECT_EQ(meta.at("product"), "perflens");
  EXPECT_EQ(meta.at("interval"), 1);  // the fixtures record at -F 1000
}

// Each edit breaks one rule the validator checks; each must make it fail.
TEST_P(ExportFirefox, ValidatorRejectsBrokenProfiles) {
  REQUIRE_VALIDATOR();
  const std::string path = dir_ + "/profile.json";
  CommandResult e = Perflens("export --format firefox" + InlineArgs() + " -o " + ShellQuote(path));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const nlohmann::json good = nlohmann::json::parse(ReadFileOrEmpty(path));
  ASSERT_EQ(Validate(path).exit_code, 0);
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> breaks = {
      {"string index out of range",
       [](nlohmann::json& t) { t["funcTable"]["name"][0] = t["stringArray"].size(); }},
      {"prefix not below its stack",
       [](nlohmann::json& t) {
         const size_t last = t["stackTable"]["length"].get<size_t>() - 1;
         t["stackTable"]["prefix"][last] = last;
       }},
      {"frame index out of range", [](nlohmann::json& t) { t["stackTable"]["frame"][0] = t["frameTable"]["length"]; }},
      {"func index out of range", [](nlohmann::json& t) { t["frameTable"]["func"][0] = -1; }},
      {"sample stack out of range", [](nlohmann::json& t) { t["samples"]["stack"][0] = t["stackTable"]["length"]; }},
      {"time going back",
       [](nlohmann::json& t) {
         auto& time = t["samples"]["time"];
         time[time.size() - 1] = time[0].get<double>() - 1;
       }},
      {"column too short", [](nlohmann::json& t) { t["frameTable"]["line"].erase(0); }},
      {"pid not a string", [](nlohmann::json& t) { t["pid"] = 1; }},
  };
  for (const auto& [what, edit] : breaks) {
    SCOPED_TRACE(what);
    nlohmann::json bad = good;
    // The busiest thread: one with several samples and stacks.
    nlohmann::json* busiest = nullptr;
    for (auto& t : bad["threads"])
      if (!busiest || t["samples"]["length"] > (*busiest)["samples"]["length"]) busiest = &t;
    ASSERT_NE(busiest, nullptr);
    ASSERT_GE((*busiest)["samples"]["length"].get<size_t>(), 2u);
    edit(*busiest);
    WriteFile(dir_ + "/bad.json", bad.dump());
    CommandResult v = Validate(dir_ + "/bad.json");
    EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
  }
}

// The Firefox Profiler itself loads the export and counts what the file holds; for one
// fixture, exports broken in ways the profiler's loader refuses or (a string index out
// of range) silently absorbs must fail the check.
TEST_P(ExportFirefox, LoadsInTheFirefoxProfiler) {
  const std::string why = NoNode();
  if (!why.empty()) {
    const char* skip = std::getenv("PERFLENS_SKIP_SCHEMA");
    if (skip && std::string(skip) == "1") GTEST_SKIP() << why << " (PERFLENS_SKIP_SCHEMA=1)";
    FAIL() << why << ": install nodejs (scripts/install-deps.sh), or set PERFLENS_SKIP_SCHEMA=1";
  }
  const std::string path = dir_ + "/profile.json";
  CommandResult e = Perflens("export --format firefox" + InlineArgs() + " -o " + ShellQuote(path));
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const nlohmann::json good = nlohmann::json::parse(ReadFileOrEmpty(path));
  CommandResult v = LoadInProfiler(path);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  const std::vector<std::string> lines = SplitLines(v.out);
  ASSERT_FALSE(lines.empty()) << v.err;
  EXPECT_TRUE(std::regex_match(lines.back(), std::regex(R"([1-9]\d* passed, 0 failed)"))) << v.out;
  // One line per thread the profiler loaded, with the file's sample count.
  const size_t threads = good.at("threads").size();
  ASSERT_EQ(lines.size(), threads + 1) << v.out;
  for (size_t i = 0; i < threads; ++i) {
    const std::string samples = std::to_string(good["threads"][i]["samples"]["length"].get<size_t>()) + " samples";
    EXPECT_NE(lines[i].find(": " + samples + ","), std::string::npos) << lines[i];
  }
  if (GetParam() != "threads") return;
  const std::vector<std::pair<std::string, std::function<void(nlohmann::json&)>>> breaks = {
      {"format version from the future", [](nlohmann::json& doc) { doc["meta"]["preprocessedProfileVersion"] = 999; }},
      {"no frame table", [](nlohmann::json& doc) { doc["threads"][1].erase("frameTable"); }},
      {"string index out of range",
       [](nlohmann::json& doc) {
         auto& t = doc["threads"][1];
         for (auto& name : t["funcTable"]["name"]) name = t["stringArray"].size();
       }},
  };
  for (const auto& [what, edit] : breaks) {
    SCOPED_TRACE(what);
    nlohmann::json bad = good;
    ASSERT_GE(bad["threads"].size(), 2u);
    edit(bad);
    WriteFile(dir_ + "/bad.json", bad.dump());
    CommandResult b = LoadInProfiler(dir_ + "/bad.json");
    EXPECT_EQ(b.exit_code, 1) << b.out << b.err;
    EXPECT_NE(b.out.find("FAIL: "), std::string::npos) << b.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportFirefox, ::testing::Values("threads", "cxx", "two_events", "dwarf_c"));

}  // namespace
}  // namespace perflens::scenario
