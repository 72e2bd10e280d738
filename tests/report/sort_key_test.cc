// Sort keys: parsing (errors name the key), aliases, and the exact column text perf
// prints for comm, pid, dso, sym and cpu (sort.c's se_snprintf functions).
#include "report/sort_key.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace perflens {
namespace {

// The id words `key` gives `e` (a fresh comm numbering unless one is passed).
std::vector<uint64_t> Id(const SortKey* key, const HistEntry& e, CommIds* comms = nullptr) {
  CommIds fresh;
  std::vector<uint64_t> w(key->id_words);
  key->id(e, comms ? comms : &fresh, w.data());
  return w;
}

std::string Cell(const char* key, const HistEntry& e) {
  std::string out;
  FindSortKey(key)->print(e, &out);
  return out;
}

TEST(SortKeyTest, ParseListTrimsAndDeduplicates) {
  auto keys = ParseSortKeys(" comm , dso,sym,comm,,symbol");
  ASSERT_TRUE(keys.ok()) << keys.error().message;
  ASSERT_EQ(keys->size(), 3u);
  EXPECT_EQ((*keys)[0]->name, "comm");
  EXPECT_EQ((*keys)[1]->name, "dso");
  EXPECT_EQ((*keys)[2]->name, "sym");
  EXPECT_EQ(FindSortKey("symbol"), FindSortKey("sym"));
  EXPECT_EQ(FindSortKey("tid"), FindSortKey("pid"));
  EXPECT_EQ(FindSortKey("cpu")->header, "CPU");
  EXPECT_EQ(FindSortKey("dso")->header, "Shared Object");
  EXPECT_EQ(FindSortKey("comm")->header, "Command");
  EXPECT_EQ(FindSortKey("sym")->header, "Symbol");
  EXPECT_EQ(FindSortKey("pid")->header, "    Pid:Command");  // perf's sort_thread header
  EXPECT_EQ(FindSortKey("nope"), nullptr);
}

TEST(SortKeyTest, ParseErrorsNameTheKey) {
  auto bad = ParseSortKeys("comm,bogus,dso");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "unknown sort key 'bogus' (known: comm, pid, tid, dso, sym, symbol, cpu, srcline, srcfile, trace, parent, time; "
            "branch mode: dso_from, dso_to, symbol_from, symbol_to, mispredict, cycles, srcline_from, srcline_to, "
            "in_tx, abort)");
  auto empty = ParseSortKeys(" , ");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "no sort keys given");
}

// srcline (report/srcline.h): a line's text; without one, perf's fallbacks.
TEST(SortKeyTest, SrclineTextAndFallbacks) {
  const SortKey* k = FindSortKey("srcline");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->header, "Source:Line");
  auto text = [&](const HistEntry& e) {
    std::string out;
    k->print(e, &out);
    return out;
  };
  const std::string line = "prog.c:27";
  Dso dso(3, "/usr/lib/libx.so", DsoKind::kUser);
  Symbol sym;
  sym.start = 0x1200;
  sym.end = 0x1300;
  sym.name = "work";
  HistEntry e;
  e.dso = &dso;
  e.sym = &sym;
  e.key_addr = 0x1243;
  e.srcline_vaddr = 0x2243;
  e.srcline = &line;
  EXPECT_EQ(text(e), "prog.c:27");
  e.srcline = nullptr;
  EXPECT_EQ(text(e), "work+67") << "decimal offset";
  e.sym = nullptr;
  EXPECT_EQ(text(e), "libx.so[2243]") << "the dso_vaddr, hex";
  e.dso = nullptr;
  EXPECT_EQ(text(e), "??:0");
  // Rows with a line are one row per text; rows without one stay apart by address.
  HistEntry a, b;
  a.srcline = b.srcline = &line;
  a.srcline_id = b.srcline_id = 5;
  a.key_addr = 0x10, b.key_addr = 0x20;
  uint64_t wa[2], wb[2];
  k->id(a, nullptr, wa), k->id(b, nullptr, wb);
  EXPECT_TRUE(wa[0] == wb[0] && wa[1] == wb[1]);
  a.srcline = b.srcline = nullptr;
  k->id(a, nullptr, wa), k->id(b, nullptr, wb);
  EXPECT_FALSE(wa[0] == wb[0] && wa[1] == wb[1]);

  // srcfile: the file part, "" without a line (perf's no_srcfile).
  const SortKey* f = FindSortKey("srcfile");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->header, "Source File");
  const std::string file = "prog.c";
  HistEntry g;
  std::string out;
  f->print(g, &out);
  EXPECT_EQ(out, "");
  g.srcfile = &file;
  f->print(g, &out);
  EXPECT_EQ(out, "prog.c");
}

TEST(SortKeyTest, CommAndPidText) {
  std::string comm = "worker", later = "renamed";
  HistEntry e;
  e.comm = &comm;
  e.tid = 123;
  EXPECT_EQ(Cell("comm", e), "worker");
  EXPECT_EQ(Cell("pid", e), "    123:worker");  // "%7d:%s"
  // With a thread the pid key prints the thread's comm at output time, as perf.
  Thread t(123, 123, std::make_shared<Maps>());
  t.SetComm(&later, 5, false);
  e.thread = &t;
  EXPECT_EQ(Cell("pid", e), "    123:renamed");
  EXPECT_EQ(Cell("comm", e), "worker");
  e.tid = 12345678;
  EXPECT_EQ(Cell("pid", e), "12345678:renamed");
  e.tid = UINT32_MAX;  // pid -1
  EXPECT_EQ(Cell("pid", e), "     -1:renamed");
}

TEST(SortKeyTest, DsoText) {
  HistEntry e;
  EXPECT_EQ(Cell("dso", e), "[unknown]");
  EXPECT_EQ(DsoColumnName(nullptr), "[unknown]");
  Dso libc(0, "/usr/lib/x86_64-linux-gnu/libc.so.6", DsoKind::kUser);
  e.dso = &libc;
  EXPECT_EQ(Cell("dso", e), "libc.so.6");
  Dso jit(1, "/tmp/perf-99.map", DsoKind::kJitMap);
  e.dso = &jit;
  EXPECT_EQ(Cell("dso", e), "[JIT] tid 99");
}

TEST(SortKeyTest, SymbolText) {
  HistEntry e;
  e.level = 'k';
  e.key_addr = 0;
  EXPECT_EQ(Cell("sym", e), "[k] 0000000000000000");  // C's '#' adds no 0x to zero
  e.key_addr = 0x1234;
  EXPECT_EQ(Cell("sym", e), "[k] 0x0000000000001234");
  e.level = '.';
  e.key_addr = 0x7f0000009abc;
  EXPECT_EQ(Cell("sym", e), "[.] 0x00007f0000009abc");
  e.key_addr = 0xffffffff81234567;
  EXPECT_EQ(Cell("sym", e), "[.] 0xffffffff81234567");
  Symbol s{0x1000, 0x1100, "compute"};
  e.sym = &s;
  EXPECT_EQ(Cell("sym", e), "[.] compute");
  std::string out;
  PrintSymbolColumn(e, &out);
  EXPECT_EQ(out, "[.] compute");
}

TEST(SortKeyTest, CpuText) {
  HistEntry e;
  e.cpu = 0;
  EXPECT_EQ(Cell("cpu", e), "000");
  e.cpu = 7;
  EXPECT_EQ(Cell("cpu", e), "007");
  e.cpu = 1234;
  EXPECT_EQ(Cell("cpu", e), "1234");
  e.cpu = UINT32_MAX;  // no CPU recorded
  EXPECT_EQ(Cell("cpu", e), "-001");
}

TEST(SortKeyTest, IdAndOrder) {
  std::string a = "alpha", b = "beta";
  HistEntry x, y;
  x.comm = &a;
  y.comm = &b;
  const SortKey* comm = FindSortKey("comm");
  EXPECT_LT(comm->order(x, y), 0);
  EXPECT_GT(comm->order(y, x), 0);
  CommIds comms;
  EXPECT_NE(Id(comm, x, &comms), Id(comm, y, &comms));
  std::string a2 = "alpha";  // another string, same text: same id
  HistEntry x2;
  x2.comm = &a2;
  EXPECT_EQ(Id(comm, x2, &comms), Id(comm, x, &comms));
  // sym: resolved rows print before unresolved ones; unresolved group by address.
  Symbol s{0x10, 0x20, "f"};
  const SortKey* sym = FindSortKey("sym");
  x.sym = &s;
  y.sym = nullptr;
  EXPECT_LT(sym->order(x, y), 0);
  EXPECT_GT(sym->order(y, x), 0);
  HistEntry u1, u2;
  u1.key_addr = 0x100;
  u2.key_addr = 0x100;
  EXPECT_EQ(Id(sym, u1), Id(sym, u2));
  u2.key_addr = 0x101;
  EXPECT_NE(Id(sym, u1), Id(sym, u2));
  const SortKey* cpu = FindSortKey("cpu");
  u1.cpu = 1;
  u2.cpu = 2;
  EXPECT_LT(cpu->order(u1, u2), 0);
  const SortKey* pid = FindSortKey("pid");
  u1.tid = 20;
  u2.tid = 10;
  EXPECT_GT(pid->order(u1, u2), 0);
  EXPECT_EQ(Id(pid, u1), std::vector<uint64_t>{20});
}

// The time key (perf's hist_entry__time_snprintf): seconds with microseconds, or with
// --ns nanoseconds, of the bucket; earlier buckets first among equal overheads.
TEST(SortKeyTest, TimePrintsMicrosecondsOrNanoseconds) {
  HistEntry e;
  e.time = 898650123456;  // 898.650123456 s
  std::string us, ns;
  TimeSortKey(false)->print(e, &us);
  TimeSortKey(true)->print(e, &ns);
  EXPECT_EQ(us, "898.650123");
  EXPECT_EQ(ns, "898.650123456");
  EXPECT_EQ(TimeSortKey(false), FindSortKey("time"));
  EXPECT_EQ(TimeSortKey(false)->min_width, 12u);
  EXPECT_EQ(TimeSortKey(true)->min_width, 16u);
  e.time = 5000;  // leading zeros of the fraction
  us.clear();
  TimeSortKey(false)->print(e, &us);
  EXPECT_EQ(us, "0.000005");
  HistEntry later;
  later.time = 6000;
  EXPECT_LT(TimeSortKey(true)->order(e, later), 0);
  EXPECT_NE(Id(TimeSortKey(true), e), Id(TimeSortKey(true), later));
}

}  // namespace
}  // namespace perflens
