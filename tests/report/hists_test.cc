// Hists: rows grouped by the sort keys' values, print order (period descending, then the
// keys' order), and perf's comm__override merge of rows recorded under a ":<tid>"
// placeholder comm.
#include "report/hists.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "perfdata/perf_event.h"
#include "report/hists_consumer.h"

namespace perflens {
namespace {

std::vector<const SortKey*> Keys(const char* list) { return *ParseSortKeys(list); }

std::string Row(const Hists& h, const HistEntry* e) {
  std::string out;
  for (const SortKey* k : h.keys()) {
    if (!out.empty()) out += " | ";
    k->print(*e, &out);
  }
  return out + " = " + std::to_string(e->self.period);
}

std::vector<std::string> Rows(const Hists& h, bool children = false) {
  std::vector<std::string> v;
  for (const HistEntry* e : h.Sorted(children)) v.push_back(Row(h, e));
  return v;
}

struct Env {
  std::string a = "alpha", b = "beta";
  Dso libc{0, "/lib/libc.so.6", DsoKind::kUser};
  Dso app{1, "/bin/app", DsoKind::kUser};
  Symbol f{0x100, 0x200, "f"}, g{0x200, 0x300, "g"};
};

TEST(HistsTest, GroupsBySortKeyValues) {
  Env env;
  Hists h(Keys("comm,dso"));
  HistEntry p;
  p.comm = &env.a;
  p.dso = &env.libc;
  p.sym = &env.f;
  size_t r0 = h.FindOrAdd(p);
  p.sym = &env.g;  // sym is not a key: same row
  EXPECT_EQ(h.FindOrAdd(p), r0);
  p.dso = &env.app;
  size_t r1 = h.FindOrAdd(p);
  EXPECT_NE(r1, r0);
  p.comm = &env.b;
  size_t r2 = h.FindOrAdd(p);
  EXPECT_EQ(h.entries().size(), 3u);
  Hists::AddSelf(&h.at(r0), 100, kMiscUser);
  Hists::AddSelf(&h.at(r0), 50, kMiscKernel);
  Hists::AddSelf(&h.at(r1), 300, kMiscUser);
  Hists::AddSelf(&h.at(r2), 100, kMiscGuestKernel);
  const HistEntry& e0 = h.entries()[r0];
  EXPECT_EQ(e0.self.period, 150u);
  EXPECT_EQ(e0.self.nr_samples, 2u);
  EXPECT_EQ(e0.self.period_us, 100u);
  EXPECT_EQ(e0.self.period_sys, 50u);
  EXPECT_EQ(h.entries()[r2].self.period_guest_sys, 100u);
  EXPECT_EQ(h.entries()[r0].sym, &env.f);  // the first sample's values are kept
}

TEST(HistsTest, FindOrAddResetsStatsOfTheProto) {
  Env env;
  Hists h(Keys("comm"));
  HistEntry p;
  p.comm = &env.a;
  p.self.period = 999;
  p.acc.period = 999;
  size_t r = h.FindOrAdd(p);
  EXPECT_EQ(h.entries()[r].self.period, 0u);
  EXPECT_EQ(h.entries()[r].acc.period, 0u);
}

TEST(HistsTest, SortedByPeriodThenKeys) {
  Env env;
  Hists h(Keys("comm,dso,sym"));
  auto add = [&](const std::string* comm, Dso* dso, const Symbol* sym, uint64_t period) {
    HistEntry p;
    p.comm = comm;
    p.dso = dso;
    p.sym = sym;
    p.key_addr = 0x555;
    Hists::AddSelf(&h.at(h.FindOrAdd(p)), period, kMiscUser);
  };
  add(&env.b, &env.libc, &env.f, 100);
  add(&env.a, &env.libc, &env.g, 100);
  add(&env.a, &env.libc, &env.f, 100);
  add(&env.a, &env.app, &env.f, 100);
  add(&env.a, &env.app, nullptr, 100);
  add(&env.b, &env.app, &env.g, 500);
  EXPECT_EQ(Rows(h), (std::vector<std::string>{
                         "beta | app | [.] g = 500",
                         "alpha | app | [.] f = 100",
                         "alpha | app | [.] 0x0000000000000555 = 100",
                         "alpha | libc.so.6 | [.] f = 100",
                         "alpha | libc.so.6 | [.] g = 100",
                         "beta | libc.so.6 | [.] f = 100",
                     }));
}

TEST(HistsTest, SortedChildrenUsesAccumulatedPeriod) {
  Env env;
  Hists h(Keys("sym"));
  HistEntry p;
  p.sym = &env.f;
  size_t rf = h.FindOrAdd(p);
  p.sym = &env.g;
  size_t rg = h.FindOrAdd(p);
  Hists::AddSelf(&h.at(rf), 10, kMiscUser);
  Hists::AddAcc(&h.at(rf), 10);
  Hists::AddSelf(&h.at(rg), 5, kMiscUser);
  Hists::AddAcc(&h.at(rg), 5);
  Hists::AddAcc(&h.at(rg), 10);  // f's sample passes through g
  EXPECT_EQ(Rows(h, false), (std::vector<std::string>{"[.] f = 10", "[.] g = 5"}));
  EXPECT_EQ(Rows(h, true), (std::vector<std::string>{"[.] g = 5", "[.] f = 10"}));
  EXPECT_EQ(h.entries()[rg].acc.nr_samples, 2u);
}

TEST(HistsTest, PlaceholderCommRowsMergeIntoTheRealComm) {
  // A thread sampled before its COMM: rows under ":77" take the first real comm
  // ("worker"), and merge with rows recorded later under that comm.
  Env env;
  std::string placeholder = ":77", worker = "worker", renamed = "renamed";
  Thread t(77, 77, std::make_shared<Maps>());
  t.SetPlaceholderComm(&placeholder);
  Hists h(Keys("comm,sym"));
  HistEntry p;
  p.thread = &t;
  p.comm = t.comm_ptr();
  p.sym = &env.f;
  size_t early = h.FindOrAdd(p);
  Hists::AddSelf(&h.at(early), 10, kMiscUser);
  const uint32_t f = h.chains().InternFrame({&env.app, &env.f, 0x110});
  const uint32_t pos = h.chains().AddChain(std::vector<uint32_t>{f});
  h.chains().AddRef(early, pos, 0, 1, 10);
  t.SetComm(&worker, 100, false);
  p.comm = t.comm_ptr();
  size_t later = h.FindOrAdd(p);
  ASSERT_NE(later, early);
  Hists::AddSelf(&h.at(later), 5, kMiscUser);
  h.chains().AddRef(later, pos, 0, 1, 5);
  t.SetComm(&renamed, 200, true);
  p.comm = t.comm_ptr();
  size_t last = h.FindOrAdd(p);
  Hists::AddSelf(&h.at(last), 1, kMiscUser);

  h.ResolvePlaceholderComms();
  ASSERT_EQ(h.entries().size(), 2u);
  EXPECT_EQ(Rows(h), (std::vector<std::string>{"worker | [.] f = 15", "renamed | [.] f = 1"}));
  const HistEntry* merged = h.Sorted(false)[0];
  EXPECT_EQ(merged->self.nr_samples, 2u);
  CallGraphParams all;
  all.min_percent = 0;
  auto chain = h.BuildChain(merged, all);
  ASSERT_NE(chain, nullptr);
  ASSERT_EQ(chain->children.size(), 1u);
  EXPECT_EQ(chain->children[0]->hit, 15u);
  EXPECT_EQ(chain->children[0]->count, 2u);
}

TEST(HistsTest, PlaceholderStaysWhenNoRealCommCame) {
  std::string placeholder = ":88";
  Thread t(88, 88, std::make_shared<Maps>());
  t.SetPlaceholderComm(&placeholder);
  Hists h(Keys("comm"));
  HistEntry p;
  p.thread = &t;
  p.comm = t.comm_ptr();
  Hists::AddSelf(&h.at(h.FindOrAdd(p)), 3, kMiscUser);
  h.ResolvePlaceholderComms();
  EXPECT_EQ(Rows(h), (std::vector<std::string>{":88 = 3"}));
}

// Report defers kernel symbols while kallsyms loads: rows keyed by placeholders take the
// real symbol afterwards, merging with rows that had it from the start and keeping the
// place of the earliest part; a placeholder without a symbol becomes the address row.
TEST(HistsTest, ReplacedSymbolsMergeInFirstSeenOrder) {
  Env env;
  Dso kernel{2, "[kernel.kallsyms]", DsoKind::kKernel};
  Symbol hold1{0x110, 0x111, ""}, hold2{0x120, 0x121, ""}, hold3{0x999, 0x99a, ""};
  Hists h(Keys("dso,sym"));
  auto add = [&](const Symbol* sym, uint64_t addr, uint64_t period) {
    HistEntry p;
    p.dso = &kernel;
    p.sym = sym;
    p.key_addr = addr;
    p.level = 'k';
    size_t row = h.FindOrAdd(p);
    Hists::AddSelf(&h.at(row), period, kMiscKernel);
    return row;
  };
  EXPECT_EQ(add(&hold1, 0x110, 4), 0u);   // -> f
  EXPECT_EQ(add(&env.g, 0x210, 3), 1u);   // g, resolved at once
  EXPECT_EQ(add(&hold3, 0x999, 2), 2u);   // -> no symbol
  EXPECT_EQ(add(&env.f, 0x130, 1), 3u);   // f, resolved at once, after its placeholder
  EXPECT_EQ(add(&hold2, 0x120, 5), 4u);   // -> f as well
  h.ReplaceSymbols({{&hold1, &env.f}, {&hold2, &env.f}, {&hold3, nullptr}});
  ASSERT_EQ(h.entries().size(), 3u);
  EXPECT_EQ(h.entries()[0].sym, &env.f);  // the first placeholder's place
  EXPECT_EQ(h.entries()[0].self.period, 10u);
  EXPECT_EQ(h.entries()[0].self.nr_samples, 3u);
  EXPECT_EQ(h.entries()[1].sym, &env.g);
  EXPECT_EQ(h.entries()[2].sym, nullptr);
  EXPECT_EQ(h.entries()[2].key_addr, 0x999u);
  // The unresolved row is keyed by its address like any other: a later sample there
  // finds it.
  EXPECT_EQ(add(nullptr, 0x999, 1), 2u);
}

// Two partial histograms of one session merged equal one built from all the samples:
// rows (and their creation order), stats, totals and call graphs.
struct MergeSession {
  Dso libc{0, "/lib/libc.so.6", DsoKind::kUser};
  Dso app{1, "/bin/app", DsoKind::kUser};
  SymbolTable table;  // app's, so that symbols carry their index
  std::deque<std::string> comms{"main", "worker"};  // as if interned
  struct Sample {
    const std::string* comm;
    uint32_t tid;
    std::vector<ChainFrame> chain;  // leaf first
    uint64_t period;
  };
  std::vector<Sample> samples;

  MergeSession() {
    table.Add(0x100, 0x100, "leaf");
    table.Add(0x200, 0x100, "mid");
    table.Add(0x300, 0x100, "main");
    table.Finish();
    const Symbol* leaf = table.Find(0x100);
    const Symbol* mid = table.Find(0x200);
    const Symbol* top = table.Find(0x300);
    ChainFrame L{&app, leaf, 0x110}, M{&app, mid, 0x210}, T{&app, top, 0x310};
    ChainFrame raw{&libc, nullptr, 0x7777};
    samples = {{&comms[0], 1, {L, M, T}, 10}, {&comms[1], 2, {M, T}, 7},    {&comms[0], 1, {raw, M, T}, 3},
               {&comms[1], 2, {L, T}, 5},     {&comms[0], 1, {L, M, T}, 2}, {&comms[1], 3, {raw, L, T}, 4}};
  }

  // Report::AddSample in Children + graph mode, callee order.
  static void Add(Hists* h, const Sample& s) {
    h->total_period += s.period;
    h->nr_samples += 1;
    h->total_period_us += s.period;
    HistEntry proto;
    proto.comm = s.comm;
    proto.tid = proto.pid = s.tid;
    proto.dso = const_cast<Dso*>(s.chain[0].dso);
    proto.sym = s.chain[0].sym;
    proto.key_addr = s.chain[0].ip;
    size_t self = h->FindOrAdd(proto);
    Hists::AddSelf(&h->at(self), s.period, kMiscUser);
    std::vector<uint32_t> ids;
    for (const ChainFrame& f : s.chain) ids.push_back(h->chains().InternFrame(f));
    uint32_t pos = h->chains().AddChain(ids);
    h->chains().AddRef(self, pos, 0, static_cast<uint32_t>(ids.size()), s.period);
    std::vector<size_t> seen{self};
    Hists::AddAcc(&h->at(self), s.period);
    for (size_t k = 0; k < s.chain.size(); ++k) {
      proto.dso = const_cast<Dso*>(s.chain[k].dso);
      proto.sym = s.chain[k].sym;
      proto.key_addr = s.chain[k].ip;
      size_t row = h->FindOrAdd(proto);
      if (std::find(seen.begin(), seen.end(), row) != seen.end()) continue;
      seen.push_back(row);
      Hists::AddAcc(&h->at(row), s.period);
      h->chains().AddRef(row, pos, static_cast<uint32_t>(k), static_cast<uint32_t>(ids.size()), s.period);
    }
  }

  // Everything a printer could see, rows in creation order.
  static std::string Dump(const Hists& h) {
    std::string out = "total " + std::to_string(h.total_period) + " samples " + std::to_string(h.nr_samples) +
                      " us " + std::to_string(h.total_period_us) + "\n";
    CallGraphParams all;
    all.min_percent = 0;
    for (const HistEntry& e : h.entries()) {
      out += Row(h, &e) + " acc " + std::to_string(e.acc.period) + " n " + std::to_string(e.self.nr_samples) + "/" +
             std::to_string(e.acc.nr_samples) + "\n";
      if (auto tree = h.BuildChain(&e, all)) PrintCallchain(*tree, all, h.total_period, e.acc.period, &out);
    }
    return out;
  }
};

TEST(HistsTest, MergedPartsEqualOneHistsOfAllSamples) {
  for (const char* keys : {"comm,dso,sym", "pid,sym", "sym", "dso"}) {
    SCOPED_TRACE(keys);
    MergeSession s;
    Hists all(Keys(keys));
    for (const auto& sample : s.samples) MergeSession::Add(&all, sample);
    for (size_t split = 0; split <= s.samples.size(); ++split) {
      SCOPED_TRACE(split);
      Hists first(Keys(keys)), second(Keys(keys));
      for (size_t i = 0; i < s.samples.size(); ++i) MergeSession::Add(i < split ? &first : &second, s.samples[i]);
      ASSERT_TRUE(first.Merge(second).ok());
      EXPECT_EQ(MergeSession::Dump(first), MergeSession::Dump(all));
      // The merged Hists goes on as usual: a new sample of a known row finds it.
      size_t rows = first.entries().size();
      MergeSession::Add(&first, s.samples[0]);
      EXPECT_EQ(first.entries().size(), rows);
    }
  }
}

TEST(HistsTest, MergeRefusesOtherSortKeys) {
  Hists a(Keys("comm,sym")), b(Keys("sym"));
  Status st = a.Merge(b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "cannot merge histograms with different sort keys");
  EXPECT_FALSE(PairRows(a, b).ok());
}

// Rows of two recordings pair by what they print, although their Dso ids, symbol
// indices and objects differ.
TEST(HistsTest, PairRowsMatchesByValueAcrossSessions) {
  Dso other{0, "/bin/other", DsoKind::kUser};
  Dso libc1{1, "/lib/libc.so.6", DsoKind::kUser}, libc2{7, "/lib/libc.so.6", DsoKind::kUser};
  SymbolTable t1, t2;
  t1.Add(0x100, 0x10, "memcpy");
  t1.Add(0x200, 0x10, "strlen");
  t1.Finish();
  t2.Add(0x50, 0x10, "abort");  // shifts the indices
  t2.Add(0x900, 0x10, "memcpy");
  t2.Add(0xa00, 0x10, "strlen");
  t2.Finish();
  ASSERT_NE(t1.Find(0x100)->index, t2.Find(0x900)->index);
  Hists a(Keys("dso,sym")), b(Keys("dso,sym"));
  auto add = [](Hists* h, Dso* dso, const Symbol* sym, uint64_t addr) {
    HistEntry p;
    p.dso = dso;
    p.sym = sym;
    p.key_addr = addr;
    return h->FindOrAdd(p);
  };
  size_t a_memcpy = add(&a, &libc1, t1.Find(0x100), 0x100);
  size_t a_strlen = add(&a, &libc1, t1.Find(0x200), 0x200);
  size_t a_raw = add(&a, &libc1, nullptr, 0x42);
  size_t a_only = add(&a, &other, nullptr, 0x43);
  size_t b_strlen = add(&b, &libc2, t2.Find(0xa00), 0xa00);
  size_t b_abort = add(&b, &libc2, t2.Find(0x50), 0x50);
  size_t b_memcpy = add(&b, &libc2, t2.Find(0x900), 0x900);
  size_t b_raw = add(&b, &libc2, nullptr, 0x42);
  auto pairs = PairRows(a, b);
  ASSERT_TRUE(pairs.ok());
  ASSERT_EQ(pairs->size(), 5u);
  // Rows by index (entries() may move while rows are added); SIZE_MAX: no row.
  auto expect = [&](size_t i, size_t x, size_t y) {
    EXPECT_EQ((*pairs)[i].a, x == SIZE_MAX ? nullptr : &a.entries()[x]) << i;
    EXPECT_EQ((*pairs)[i].b, y == SIZE_MAX ? nullptr : &b.entries()[y]) << i;
  };
  expect(0, a_memcpy, b_memcpy);
  expect(1, a_strlen, b_strlen);
  expect(2, a_raw, b_raw);
  expect(3, a_only, SIZE_MAX);
  expect(4, SIZE_MAX, b_abort);
}

// Children through HistsConsumer: every distinct row on a sample's chain gets the
// sample's period once. Recursion repeats a symbol at other ips (one row), frames
// without a symbol are rows by address (two addresses, two rows; the same address
// twice, one), and rows are per comm: the second sample's frames, the same as the
// first's, go to the other comm's rows, not to rows remembered from the first sample.
TEST(HistsTest, ChildrenCountEachRowOncePerSampleAcrossRecursionAndUnresolvedFrames) {
  Env env;
  CallGraphParams none;
  none.mode = CallGraphMode::kNone;
  HistsConsumer consumer(1, Keys("comm,dso,sym"), /*children=*/true, none);
  auto frame = [&](const Symbol* sym, uint64_t addr) {
    CallchainFrame f;
    f.ip = 0x400000 + addr;
    f.al.dso = &env.app;
    f.al.sym = sym;
    f.al.dso_addr = addr;
    return f;
  };
  // Callee first: f (the sample's ip), g, f, g (recursion, other ips), two unresolved
  // frames at 0x900 and 0x910, 0x900 again.
  const std::vector<CallchainFrame> chain{frame(&env.f, 0x110), frame(&env.g, 0x220), frame(&env.f, 0x130),
                                          frame(&env.g, 0x240), frame(nullptr, 0x900), frame(nullptr, 0x910),
                                          frame(nullptr, 0x900)};
  auto sample = [&](const std::string* comm, uint64_t period) {
    ResolvedSample s;
    s.comm = comm;
    s.cpumode = kMiscUser;
    s.period = period;
    s.location = chain[0].al;
    s.has_callchain = true;
    s.callchain = chain;
    consumer.OnSample(s);
  };
  sample(&env.a, 10);
  sample(&env.a, 5);
  sample(&env.b, 7);
  const Hists& h = consumer.hists()[0];
  std::vector<std::string> rows;
  for (const HistEntry* e : h.Sorted(true)) {
    std::string row;
    for (const SortKey* k : h.keys()) {
      if (!row.empty()) row += " | ";
      k->print(*e, &row);
    }
    rows.push_back(row + " acc=" + std::to_string(e->acc.period) + " self=" + std::to_string(e->self.period));
  }
  // Each comm: f, g, 0x900, 0x910 — four rows, each with the comm's whole period.
  ASSERT_EQ(rows.size(), 8u) << testing::PrintToString(rows);
  auto count_rows = [&](const std::string& needle) {
    return std::count_if(rows.begin(), rows.end(), [&](const std::string& r) { return r.find(needle) != std::string::npos; });
  };
  EXPECT_EQ(count_rows("acc=15"), 4) << testing::PrintToString(rows);
  EXPECT_EQ(count_rows("acc=7"), 4) << testing::PrintToString(rows);
  EXPECT_EQ(count_rows("self=15"), 1) << testing::PrintToString(rows);  // alpha's f
  EXPECT_EQ(count_rows("self=7"), 1) << testing::PrintToString(rows);   // beta's f
  EXPECT_EQ(count_rows("0x0000000000400900"), 2) << testing::PrintToString(rows);
  EXPECT_EQ(count_rows("0x0000000000400910"), 2) << testing::PrintToString(rows);
}

}  // namespace
}  // namespace perflens
