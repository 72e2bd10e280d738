// perf report's options that select another output (--header-only, -I, --stats, -D)
// give the same text as perflens's own subcommands for it, and the filters that need
// something the file lacks say so as perf does. (The options that change the report
// itself are compared with perf 6.1's text on the replay fixtures: the opt-* modes of
// fixtures/modes.txt.)
#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

std::string Fixture(const std::string& name) { return ScenarioSourceDir() + "/fixtures/" + name + "/perf.data"; }

CommandResult Perflens(const std::string& args) {
  return RunShell("env -u PERF_BUILDID_DIR HOME=/nonexistent " + ShellQuote(PerflensBinary()) + " " + args, "/tmp");
}

TEST(ReportOptionsTest, OtherOutputsAreTheSubcommands) {
  const std::string in = " -i " + ShellQuote(Fixture("threads"));
  const struct {
    const char* report_args;
    const char* command;
  } cases[] = {{"--header-only", "header"}, {"--header-only -I", "header -I"}, {"--stats", "stats"}, {"-D", "dump"}};
  for (const auto& c : cases) {
    CommandResult report = Perflens(std::string("report ") + c.report_args + in);
    CommandResult command = Perflens(std::string(c.command) + in);
    ASSERT_EQ(report.exit_code, 0) << c.report_args << ": " << report.err;
    ASSERT_EQ(command.exit_code, 0) << c.command << ": " << command.err;
    EXPECT_GT(report.out.size(), 100u) << c.report_args;
    EXPECT_EQ(report.out, command.out) << c.report_args;
  }
  // -I with --header: the full header, then the report (-I alone prints none, as perf:
  // the opt-show-info replay mode).
  CommandResult info = Perflens("report --stdio --header -I -g none" + in);
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_EQ(info.out.rfind(Perflens("header -I" + in).out, 0), 0u) << info.out.substr(0, 400);
  EXPECT_NE(info.out.find("# Samples: 153  of event"), std::string::npos);
  // -q wins over --header and --header-only (perf: (header || header_only) && !quiet):
  // the quiet report, no header.
  const CommandResult quiet = Perflens("report --stdio -q -g none" + in);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_NE(quiet.out.find("%  callchain_threa"), std::string::npos) << quiet.out;
  for (const char* header : {" --header", " --header-only"}) {
    const CommandResult r = Perflens(std::string("report --stdio -q -g none") + header + in);
    ASSERT_EQ(r.exit_code, 0) << header << ": " << r.err;
    EXPECT_EQ(r.out, quiet.out) << header;
  }
}

TEST(ReportOptionsTest, CpuFilterNeedsSampleCpu) {
  // The per-task fixtures record no PERF_SAMPLE_CPU: perf's message and a failure.
  for (const char* cmd : {"report --stdio", "script"}) {
    CommandResult r = Perflens(std::string(cmd) + " -C 0 -i " + ShellQuote(Fixture("threads")));
    EXPECT_EQ(r.exit_code, 1) << cmd;
    EXPECT_NE(r.err.find("File does not contain CPU events. Remove -C option to proceed."), std::string::npos)
        << cmd << ": " << r.err;
  }
}

TEST(ReportOptionsTest, BadArgumentsAreNamed) {
  const std::string in = " -i " + ShellQuote(Fixture("threads"));
  // A --time perf cannot use exits with its -EINVAL, 234 (report and script alike).
  CommandResult r = Perflens("report --stdio --time 2,1" + in);
  EXPECT_EQ(r.exit_code, 234);
  EXPECT_NE(r.err.find("invalid time string '2,1'"), std::string::npos) << r.err;
  r = Perflens("script --time abc" + in);
  EXPECT_EQ(r.exit_code, 234);
  EXPECT_NE(r.err.find("invalid time string 'abc'"), std::string::npos) << r.err;
  // Values perf's option parser refuses exit with its usage status, 129.
  r = Perflens("report --stdio -C 0 --percentage maybe" + in);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("--percentage is relative or absolute"), std::string::npos) << r.err;
  r = Perflens("report --stdio -g graph,0.5,sideways" + in);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("unknown -g/--call-graph word 'sideways'"), std::string::npos) << r.err;
  r = Perflens("report --stdio --sort time,sym --time-quantum 0" + in);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("time quantum cannot be 0"), std::string::npos) << r.err;
  r = Perflens("report --stdio --sort time,sym --time-quantum 5MS" + in);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_NE(r.err.find("Cannot parse time quantum `5MS'"), std::string::npos) << r.err;
  r = Perflens("script --reltime --deltatime" + in);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--reltime or --deltatime"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perflens::scenario
