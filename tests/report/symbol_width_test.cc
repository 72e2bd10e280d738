// The Symbol column's width as perf's hists__calc_col_len sets it: namelen + 4 ("[.] "
// and the name) — an inlined symbol's " (inlined)" is printed past it, so the header's
// dots line is as wide as the widest name without that suffix (a new user's report on
// a --call-graph dwarf recording of a libc6-dbg machine: every header line differed).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "perfdata/perf_event.h"
#include "report/hists.h"
#include "report/hists_output.h"
#include "report/sort_key.h"
#include "report/stdio_printer.h"

namespace perflens {
namespace {

std::string DotsOfLastColumn(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (line.rfind("# ..", 0) == 0) return line.substr(line.rfind(' ') + 1);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

TEST(SymbolColumnWidth, InlinedSuffixIsNotPartOfTheWidth) {
  std::string comm = "prog";
  Dso dso{0, "/bin/prog", DsoKind::kUser};
  Symbol plain{0x100, 0x200, "main"};
  Symbol inlined{0x200, 0x300, "__libc_start_main_impl"};  // 22 characters
  inlined.inlined = 1;
  std::vector<Hists> hists;
  hists.emplace_back(*ParseSortKeys("sym"));
  for (const Symbol* s : {&plain, &inlined}) {
    HistEntry p;
    p.comm = &comm;
    p.dso = &dso;
    p.sym = s;
    p.level = '.';
    Hists::AddSelf(&hists[0].at(hists[0].FindOrAdd(p)), 1000, kMiscUser);
    hists[0].total_period += 1000;
    hists[0].nr_samples += 1;
  }
  std::vector<Evsel> evsels(1);
  evsels[0].name = "cpu-clock:u";
  ReportOptions options;
  options.sort = "sym";
  CallGraphParams graph;
  graph.mode = CallGraphMode::kNone;
  HistsOutput out(hists, evsels, options, false, false, graph, 0, "x.data", {});
  std::string text;
  ASSERT_TRUE(PrintReportStdio(out, &text).ok());
  EXPECT_NE(text.find("[.] __libc_start_main_impl (inlined)"), std::string::npos) << text;
  EXPECT_EQ(DotsOfLastColumn(text).size(), 4u + 22u) << text;
}

}  // namespace
}  // namespace perflens
