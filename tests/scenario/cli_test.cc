// The perflens command line as a perf user meets it: perf's other commands and typos
// get perf's wording and exit status 1, not CLI11's "A subcommand is required".
#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

TEST(CliTest, PerfCommandsPerflensLacksAreNamed) {
  CommandResult r = RunShell(ShellQuote(PerflensBinary()) + " timechart", "/tmp");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf's 'timechart' is not supported by perflens"), std::string::npos) << r.err;
  r = RunShell(ShellQuote(PerflensBinary()) + " reprot", "/tmp");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'reprot' is not a perflens command"), std::string::npos) << r.err;
  r = RunShell(ShellQuote(PerflensBinary()) + " --version", "/tmp");
  EXPECT_EQ(r.exit_code, 0) << "options before a command still go to CLI11";
}

}  // namespace
}  // namespace perflens::scenario
