// Issue #4: `perflens script` (default fields) prints the same text as `perf script`,
// line for line, on the call-graph recordings (ScriptRows / CompareRows). The one
// documented difference is PLT naming (scenario_util.h): a callchain line at the same
// address and DSO
// where perf 6.1 prints "[unknown]" (the .plt header) or a slot name taken in
// .rela.plt order, and perflens ".plt+0x.." or the slot name in GOT order. Every other
// line must be byte-identical.
#include <cstdio>
#include <set>
#include <string>

#include "callchain_fixture.h"

namespace perflens::scenario {
namespace {

class CallchainScript : public CallchainTest {};

TEST_P(CallchainScript, IdenticalToPerfScript) {
  CommandResult perf = Perf("script -i x.data");
  CommandResult lens = Perflens("script -i x.data");
  RowsAgreement rows = CompareRows(ScriptRows(perf.out), ScriptRows(lens.out), kScriptKinds);
  live_.GateRowAgreement(Name() + " script lines", rows, rows.Report(20));
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  std::vector<std::string> ref = SplitLines(perf.out), ours = SplitLines(lens.out);
  size_t samples = 0;
  for (const std::string& l : ref)
    if (!l.empty() && l[0] != '\t') samples++;
  std::printf("[ script ] %s: %zu samples, lines: %s\n", Name().c_str(), samples, rows.Summary().c_str());
  RecordProperty("lines", static_cast<int>(ref.size()));
  RecordProperty("differing_lines", static_cast<int>(rows.allowed.size() + rows.failures.size()));
  ASSERT_GT(samples, 50u) << "too few samples recorded";
  std::string diff = rows.failures.empty() ? "" : KeepOutputs("script", perf.out, lens.out);
  EXPECT_EQ(ref.size(), ours.size()) << diff;
  EXPECT_TRUE(rows.failures.empty()) << rows.Report(20) << diff;
  EXPECT_LE(rows.AllowedWith(Difference::kPltNaming), 8) << "PLT naming differences should be rare";

  // The recordings hold what each scenario is about: kernel frames under user frames
  // (syscalls), [vdso] frames (vdso), several threads (threads), several comms (forkexec).
  const std::string& out = lens.out;
  auto count = [&](const std::string& s) {
    size_t n = 0;
    for (size_t p = out.find(s); p != std::string::npos; p = out.find(s, p + 1)) n++;
    return n;
  };
  std::string name = Name();
  if (name == "syscalls") {
    EXPECT_GT(count("entry_SYSCALL_64_after_hwframe+"), 50u);
    EXPECT_GT(count(" do_syscall_64+"), 50u);
    EXPECT_GT(count(" main+0x"), 50u) << "kernel chains continue into the user stack";
  } else if (name == "vdso") {
    EXPECT_GT(count(" __vdso_gettimeofday+"), 20u);
    EXPECT_GT(count(" __vdso_clock_gettime+"), 5u);
    EXPECT_GT(count(" TimeOfDay+"), 10u);
  } else if (name == "threads") {
    std::set<std::string> tids;
    for (const std::string& l : SplitLines(out))
      if (l.rfind("callchain_threa", 0) == 0) tids.insert(l.substr(0, 22));
    EXPECT_GE(tids.size(), 4u) << "samples from the worker threads";
    EXPECT_GT(count(" (anonymous namespace)::Recurse+"), 100u);
  } else if (name == "forkexec") {
    std::set<std::string> comms;  // the first word of each sample line
    for (const std::string& l : SplitLines(out)) {
      size_t b = l.find_first_not_of(' ');
      if (!l.empty() && l[0] != '\t' && b != std::string::npos) comms.insert(l.substr(b, l.find(' ', b) - b));
    }
    for (const char* comm : {"expr", "sed", "sort", "seq"}) EXPECT_EQ(comms.count(comm), 1u) << comm;
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, CallchainScript, ::testing::ValuesIn(CallchainPrograms()),
                         CallchainProgramName);

}  // namespace
}  // namespace perflens::scenario
