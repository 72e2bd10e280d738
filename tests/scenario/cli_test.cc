// The perflens command line as a perf user meets it: perf's other commands and options
// are named as not supported by perflens, what perf does not know either gets perf's
// error and exit status (129 for a command line, 1 for a command, 255 for an input it
// cannot open), and output goes through perf's pager when stdout is a terminal.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

CommandResult Perflens(const std::string& args) { return RunShell(ShellQuote(PerflensBinary()) + " " + args, "/tmp"); }

TEST(CliTest, PerfCommandsPerflensLacksAreNamed) {
  CommandResult r = Perflens("timechart");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf's 'timechart' is not supported by perflens"), std::string::npos) << r.err;
  r = Perflens("--no-pager stat");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("perf's 'stat' is not supported by perflens"), std::string::npos) << r.err;
  r = Perflens("reprot");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'reprot' is not a perflens command"), std::string::npos) << r.err;
  r = Perflens("--version");
  EXPECT_EQ(r.exit_code, 0) << "options before a command still go to CLI11";
}

TEST(CliTest, PerfOptionsPerflensLacksAreNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"report --tui", "perflens: perf report's --tui is not supported by perflens\n"},
      {"report --tui=1", "perflens: perf report's --tui is not supported by perflens\n"},
      {"report -M intel", "perflens: perf report's -M (--disassembler-style) is not supported by perflens\n"},
      {"report --ignore-vm", "perflens: perf report's --ignore-vm (--ignore-vmlinux) is not supported by perflens\n"},
      {"report --no-source", "perflens: perf report's --no-source is not supported by perflens\n"},
      {"report --percent-type local-period", "perflens: perf report's --percent-type is not supported by perflens\n"},
      {"header --tui", "perflens: perf report's --tui is not supported by perflens\n"},
      {"script --insn-trace", "perflens: perf script's --insn-trace is not supported by perflens\n"},
      {"annotate --stdio2", "perflens: perf annotate's --stdio2 is not supported by perflens\n"},
      {"report --show-nr", "perflens: --show-nr: perflens takes whole option names: --show-nr-samples\n"},
      {"report --hier", "perflens: --hier: perflens takes whole option names: --hierarchy\n"},
  };
  for (const auto& [args, message] : cases) {
    CommandResult r = Perflens(args);
    EXPECT_EQ(r.exit_code, 129) << args;
    EXPECT_EQ(r.err, message) << args;
  }
}

// perf 6.1: `perf report --bogus` prints "  Error: unknown option `bogus'", its usage and
// exits 129; `perf --bogus report`: "Unknown option: --bogus", 129.
TEST(CliTest, OptionsPerfDoesNotKnowGetPerfsError) {
  CommandResult r = Perflens("report --bogus");
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err.rfind("  Error: unknown option `bogus'\n\n Usage: perflens report [<options>]\n", 0), 0u) << r.err;
  r = Perflens("script -Q");
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err.rfind("  Error: unknown switch `Q'\n\n Usage: perflens script [<options>]\n", 0), 0u) << r.err;
  r = Perflens("report --std");  // perf: " Error: Ambiguous option: std (could be --stdio or --stdio-color)"
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err.rfind("  Error: Ambiguous option: std (could be --stdio or --stdio-color)\n", 0), 0u) << r.err;
  r = Perflens("--bogus report");
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err.rfind("Unknown option: --bogus\n", 0), 0u) << r.err;
  r = Perflens("report -i");  // a missing value: perf's "Error: switch `i' requires a value", 129
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err.rfind("  Error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" Usage: perflens report [<options>]"), std::string::npos) << r.err;
}

// perf 6.1 exits 255 ("failed to open …") for an input it cannot open or read.
TEST(CliTest, AnUnopenableInputExits255AsPerf) {
  for (const char* cmd : {"report", "script", "annotate", "header", "dump", "stats", "buildid-list"}) {
    CommandResult r = Perflens(std::string(cmd) + " -i /nonexistent/perflens-cli-test.data");
    EXPECT_EQ(r.exit_code, 255) << cmd;
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << cmd << ": " << r.err;
  }
}

// A directory is read only as a `perf record --threads` recording: its `data` file must
// have HEADER_DIR_FORMAT (fixtures/rust/threads.data is one; rust_fixture_test reads it).
TEST(CliTest, ADirectoryThatIsNotAThreadsRecordingIsRefused) {
  char tmpl[] = "/tmp/perflens-cli-dir-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  CommandResult r = Perflens("report -i " + ShellQuote(dir));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_NE(r.err.find("a directory, but not a perf record --threads one"), std::string::npos) << r.err;
  RunShell("cp " + ShellQuote(ScenarioSourceDir() + "/fixtures/rust/legacy.data") + " " + ShellQuote(dir + "/data"),
           "/tmp");
  r = Perflens("report -i " + ShellQuote(dir));
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_NE(r.err.find("no HEADER_DIR_FORMAT feature"), std::string::npos) << r.err;
  RunShell("rm -rf " + ShellQuote(dir), "/tmp");
}

// The pager, run under a pseudo-terminal (util-linux `script`). The pager is a shell
// script that logs that it ran, with $LESS, and keeps what it was given.
class PagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (RunShell("command -v script", "/tmp").exit_code != 0) GTEST_SKIP() << "no util-linux script(1)";
    char tmpl[] = "/tmp/perflens-pager-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(mkdir((dir_ + "/home").c_str(), 0700), 0);
    WriteFile(dir_ + "/pager.sh", "#!/bin/sh\necho \"ran LESS=$LESS\" >> " + dir_ + "/pager.log\ncat > " + dir_ +
                                      "/paged.txt\n");
    ASSERT_EQ(chmod((dir_ + "/pager.sh").c_str(), 0755), 0);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    if (HasFailure())
      std::printf("[ pager ] kept %s for inspection\n", dir_.c_str());
    else
      RunShell("rm -rf " + ShellQuote(dir_), "/tmp");
  }

  std::string Data() const { return ShellQuote(ScenarioSourceDir() + "/fixtures/rust/legacy.data"); }
  std::string Cache() const { return ShellQuote(ScenarioSourceDir() + "/fixtures/rust/cache"); }

  // `env ENV perflens ARGS` with stdout (and stderr) on a terminal; returns what the
  // pager logged ("" when it did not run).
  std::string RunOnTerminal(const std::string& env, const std::string& args) {
    std::remove((dir_ + "/pager.log").c_str());
    const std::string inner = "env -u PERF_PAGER -u LESS -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") +
                              " PAGER=" + ShellQuote(dir_ + "/pager.sh") + " " + env + " " +
                              ShellQuote(PerflensBinary()) + " " + args;
    CommandResult r = RunShell("script -qec " + ShellQuote(inner) + " /dev/null < /dev/null", dir_);
    EXPECT_NE(r.exit_code, -1) << args;
    return ReadFileOrEmpty(dir_ + "/pager.log");
  }

  std::string dir_;
};

TEST_F(PagerTest, TerminalOutputGoesThroughThePagerWithLessFRSX) {
  const std::string args = "script -i " + Data() + " --buildid-dir " + Cache();
  EXPECT_EQ(RunOnTerminal("", args), "ran LESS=FRSX\n");
  // The pager got the whole output: the same as with stdout a file.
  CommandResult plain = RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " PAGER=" +
                                     ShellQuote(dir_ + "/pager.sh") + " " + ShellQuote(PerflensBinary()) + " " + args,
                                 dir_);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(plain.out.empty());
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/paged.txt"), plain.out);
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/pager.log"), "ran LESS=FRSX\n") << "stdout a file: no pager";
  // As perf: report --stdio, its header/dump/stats forms, annotate and buildid-list page.
  for (const char* cmd : {"report --stdio", "annotate --stdio"})
    EXPECT_EQ(RunOnTerminal("", std::string(cmd) + " -i " + Data() + " --buildid-dir " + Cache()), "ran LESS=FRSX\n")
        << cmd;
  for (const char* cmd : {"header", "dump", "stats", "buildid-list"})
    EXPECT_EQ(RunOnTerminal("", std::string(cmd) + " -i " + Data()), "ran LESS=FRSX\n") << cmd;
  EXPECT_EQ(RunOnTerminal("LESS=abc", "report --stdio -i " + Data()), "ran LESS=abc\n") << "a set LESS is kept";
  EXPECT_EQ(RunOnTerminal("PERF_PAGER=" + ShellQuote(dir_ + "/pager.sh") + " PAGER=cat", "script -i " + Data()),
            "ran LESS=FRSX\n")
      << "PERF_PAGER before PAGER";
}

TEST_F(PagerTest, NoPagerWhenPerfWouldNotPage) {
  const std::string script = "script -i " + Data();
  EXPECT_EQ(RunOnTerminal("", "--no-pager " + script), "");
  EXPECT_EQ(RunOnTerminal("", "-P " + script), "");
  EXPECT_EQ(RunOnTerminal("", script + " --no-pager"), "");
  EXPECT_EQ(RunOnTerminal("PERF_PAGER=cat", script), "");
  EXPECT_EQ(RunOnTerminal("PERF_PAGER=", script), "") << "an empty PERF_PAGER wins over PAGER";
  EXPECT_EQ(RunOnTerminal("", "report --stdio -i - < " + Data()), "") << "perf report does not page a pipe";
  EXPECT_EQ(RunOnTerminal("", "report --stdio -i /nonexistent/x.data"), "") << "no pager before the input opened";
  EXPECT_EQ(RunOnTerminal("", "archive -o " + ShellQuote(dir_ + "/archive") + " -i " + Data()), "");
  EXPECT_EQ(RunOnTerminal("", "-p archive -o " + ShellQuote(dir_ + "/archive2") + " -i " + Data()), "ran LESS=FRSX\n")
      << "--paginate pages any command";
  // stdout not a terminal: never a pager, whatever the environment.
  std::remove((dir_ + "/pager.log").c_str());
  CommandResult r = RunShell("HOME=" + ShellQuote(dir_ + "/home") + " PERF_PAGER=" + ShellQuote(dir_ + "/pager.sh") +
                                 " " + ShellQuote(PerflensBinary()) + " --paginate " + script,
                             dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(r.out.empty());
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/pager.log"), "");
}

}  // namespace
}  // namespace perflens::scenario

namespace perflens::scenario {
namespace {

// perf 6.1 script -F: a field string it cannot parse is a usage error (129); a field a
// list without `type:` asks for and the recording lacks, 255; both with perf's text.
TEST(CliTest, ScriptFieldErrorsExitAsPerfDoes) {
  const std::string data = ShellQuote(ScenarioSourceDir() + "/fixtures/threads/perf.data");
  CommandResult r = Perflens("script -F ip,addr -i " + data);
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "Samples for 'cpu-clock:pppH' event do not have ADDR attribute set. Cannot print 'addr' field.\n");
  EXPECT_EQ(r.out, "");
  r = Perflens("script -F foo:ip -i " + data);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err, "Invalid event type in field string.\n");
  r = Perflens("script -F sw:ip,-sym -i " + data);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.err, "Cannot mix +-field with overridden fields\n");
  r = Perflens("script -F trace: -i " + data);
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "tracepoint events do not exist. Remove corresponding -F option to proceed.\n");
  // perf looks past dummy events for a type's first evsel: a tracepoint recording whose
  // only software event is the side-band dummy has no software events (perf 6.1: 255).
  const std::string tracepoints = ShellQuote(ScenarioSourceDir() + "/fixtures/tracepoints/perf.data");
  r = Perflens("script -F sw: -i " + tracepoints);
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err, "software events do not exist. Remove corresponding -F option to proceed.\n");
  r = Perflens("script -F sw:ip -i " + tracepoints);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // --json is an output format of its own: with -F folded it is refused, not ignored.
  r = Perflens("script --json -F folded -i " + data);
  EXPECT_EQ(r.exit_code, 129);
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace perflens::scenario

namespace perflens::scenario {
namespace {

// report -v's stderr: one line per DSO looked up, with perf's origin letter and the file
// read (README "differs on purpose": perf prints its own lookups instead); -q silences
// it, and -q turns -v off altogether, as perf's perf_quiet_option does.
TEST(CliTest, VerboseNamesWhereSymbolsCameFrom) {
  const std::string fixtures = ScenarioSourceDir() + "/fixtures";
  char tmpl[] = "/tmp/perflens-verbose-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string args = " --stdio --no-children -g none -i " + ShellQuote(fixtures + "/syscalls/perf.data") +
                           " --buildid-dir " + ShellQuote(fixtures + "/cache") + " --symfs " + ShellQuote(dir);
  const std::string run = "env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir) + " " + ShellQuote(PerflensBinary()) + " report";
  CommandResult r = RunShell(run + " -v" + args, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("perflens: symbols: /tmp/perflens-fixture/bin/callchain_syscalls: B " + fixtures +
                       "/cache/.build-id/b4/54ccd8ee17d2af3c06c98b1abb16c67731ed92/elf\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("perflens: symbols: [kernel.kallsyms]: k " + fixtures +
                       "/cache/[kernel.kallsyms]/c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00/kallsyms\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("/tmp/perflens-fixture/bin/callchain_syscalls  0x1270             B [.] StatPaths\n"),
            std::string::npos)
      << r.out;
  r = RunShell(run + " -v -q" + args, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.find("0x1270"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("callchain_syscalls  [.] StatPaths\n"), std::string::npos) << r.out;
  // Without -v: no such lines.
  r = RunShell(run + args, dir);
  EXPECT_EQ(r.err.find("perflens: symbols:"), std::string::npos) << r.err;
  RunShell("rm -rf " + ShellQuote(dir), "/tmp");
}

}  // namespace
}  // namespace perflens::scenario
