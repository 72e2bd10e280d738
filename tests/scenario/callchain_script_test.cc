// Issue #4: `perflens script` (default fields) prints the same text as `perf script`,
// line for line, on the call-graph recordings. The one documented difference is PLT
// naming (scenario_util.h IsPltName): a callchain line at the same address and DSO
// where perf 6.1 prints "[unknown]" (the .plt header) or a slot name taken in
// .rela.plt order, and perflens ".plt+0x.." or the slot name in GOT order. Every other
// line must be byte-identical.
#include <cstdio>
#include <set>
#include <string>

#include "callchain_fixture.h"

namespace perflens::scenario {
namespace {

// "\t           26006 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)" →
// {"\t           26006 ", "[unknown]", " (/usr/...)"}: address part, symbol, DSO part.
struct FrameLine {
  std::string head, sym, dso;
};
bool SplitFrameLine(const std::string& line, FrameLine* f) {
  if (line.empty() || line[0] != '\t') return false;
  size_t addr = line.find_first_not_of(" \t");
  size_t space = addr == std::string::npos ? addr : line.find(' ', addr);
  size_t paren = line.rfind(" (");
  if (space == std::string::npos || paren == std::string::npos || paren <= space) return false;
  f->head = line.substr(0, space + 1);
  f->sym = line.substr(space + 1, paren - space - 1);
  f->dso = line.substr(paren);
  return true;
}

// "name+0x1a" → "name"; "[unknown]" stays.
std::string SymbolOf(const std::string& sym_off) {
  size_t plus = sym_off.rfind("+0x");
  return plus == std::string::npos ? sym_off : sym_off.substr(0, plus);
}

// The documented PLT difference between a perf line and a perflens line.
bool IsPltDifference(const std::string& perf_line, const std::string& lens_line) {
  FrameLine p, l;
  if (!SplitFrameLine(perf_line, &p) || !SplitFrameLine(lens_line, &l)) return false;
  if (p.head != l.head || p.dso != l.dso) return false;
  bool perf_plt = p.sym == "[unknown]" || IsPltName(SymbolOf(p.sym));
  return perf_plt && IsPltName(SymbolOf(l.sym));
}

class CallchainScript : public CallchainTest {};

TEST_P(CallchainScript, IdenticalToPerfScript) {
  CommandResult perf = Perf("script -i x.data");
  CommandResult lens = Perflens("script -i x.data");
  {
    RowsAgreement rows = CompareRows(ScriptRows(perf.out), ScriptRows(lens.out), kScriptKinds);
    live_.GateAgreement(Name() + " script lines", rows.RowPercent(), rows.Report(20));
  }
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  ASSERT_EQ(lens.exit_code, 0) << lens.err;
  std::vector<std::string> ref = SplitLines(perf.out), ours = SplitLines(lens.out);
  size_t samples = 0, plt = 0, other = 0;
  std::string first_diffs, plt_diffs;
  for (size_t i = 0; i < std::max(ref.size(), ours.size()); ++i) {
    const std::string& a = i < ref.size() ? ref[i] : "(end of output)";
    const std::string& b = i < ours.size() ? ours[i] : "(end of output)";
    if (i < ref.size() && !a.empty() && a[0] != '\t') samples++;
    if (a == b) continue;
    std::string at = "line " + std::to_string(i + 1) + "\n  perf:     " + a + "\n  perflens: " + b + "\n";
    if (IsPltDifference(a, b)) {
      plt++;
      plt_diffs += at;
    } else if (other++ < 5) {
      first_diffs += at;
    }
  }
  std::printf("[ script ] %s: %zu lines, %zu samples, %zu lines differ (%zu PLT naming)\n%s",
              Name().c_str(), ref.size(), samples, plt + other, plt, plt_diffs.c_str());
  RecordProperty("lines", static_cast<int>(ref.size()));
  RecordProperty("differing_lines", static_cast<int>(plt + other));
  ASSERT_GT(samples, 50u) << "too few samples recorded";
  std::string diff = other ? KeepOutputs("script", perf.out, lens.out) : "";
  EXPECT_EQ(ref.size(), ours.size()) << diff;
  EXPECT_EQ(other, 0u) << first_diffs << diff;
  EXPECT_LE(plt, 8u) << "PLT naming differences should be rare";

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
