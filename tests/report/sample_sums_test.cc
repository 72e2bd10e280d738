// SampleSums and ChainSums, and the reports built on them: Report sums samples per
// (evsel, pid, tid, cpu, cpumode, ip) — with Children or a call graph, and the recorded
// callchain — between model changes and resolves once per key. The report must be the
// one built sample by sample (ReportOptions::sum_samples = false), whatever happens
// between the samples: a COMM renaming a thread, an MMAP over a mapped range, a tid
// exiting and coming back, kernel samples, corrupt chains, a malformed sample, filters,
// every sort key and call-graph mode, with and without threads.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/mapped_file.h"
#include "report/report.h"
#include "session/sample_sums.h"
#include "report/stdio_printer.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::MakeAttr;
using testutil::PerfDataWriter;
using testutil::SampleFields;
using testutil::SidAt;

SampleSumKey Key(uint64_t ip, uint32_t tid, uint32_t cpu = 0, uint16_t cpumode = kMiscUser) {
  SampleSumKey k;
  k.ip = ip;
  k.pid = 100;
  k.tid = tid;
  k.cpu = cpu;
  k.cpumode = cpumode;
  return k;
}

TEST(SampleSumsTest, SumsPerKeyInFirstAddOrder) {
  SampleSums sums;
  EXPECT_TRUE(sums.Add(Key(0x400, 1), 10));
  EXPECT_TRUE(sums.Add(Key(0x300, 1), 5));
  EXPECT_FALSE(sums.Add(Key(0x400, 1), 7));
  EXPECT_TRUE(sums.Add(Key(0x400, 2), 1));                 // another tid
  EXPECT_TRUE(sums.Add(Key(0x400, 1, 3), 2));              // another cpu
  EXPECT_TRUE(sums.Add(Key(0x400, 1, 0, kMiscKernel), 4));  // another cpumode
  SampleSumKey other_evsel = Key(0x400, 1);
  other_evsel.evsel = 1;
  EXPECT_TRUE(sums.Add(other_evsel, 8));
  ASSERT_EQ(sums.entries().size(), 6u);
  EXPECT_EQ(sums.entries()[0].key, Key(0x400, 1));
  EXPECT_EQ(sums.entries()[0].period, 17u);
  EXPECT_EQ(sums.entries()[0].nr_samples, 2u);
  EXPECT_EQ(sums.entries()[1].key, Key(0x300, 1));
  EXPECT_EQ(sums.entries()[1].period, 5u);
  EXPECT_EQ(sums.entries()[5].key, other_evsel);
  EXPECT_EQ(sums.entries()[5].nr_samples, 1u);
  sums.Clear();
  EXPECT_TRUE(sums.empty());
  EXPECT_TRUE(sums.Add(Key(0x400, 1), 3));  // forgotten: new again
  EXPECT_EQ(sums.entries()[0].period, 3u);
}

TEST(SampleSumsTest, ManyKeysGrowAndClearKeepsNothing) {
  SampleSums sums;
  for (int round = 0; round < 3; ++round) {
    // 20000 keys (the table grows several times), every one added three times.
    for (int rep = 0; rep < 3; ++rep)
      for (uint64_t i = 0; i < 20000; ++i) {
        // Adds ahead of time exercise the prefetch helpers on a table being filled.
        sums.PrefetchSlot(Key(0x1000 + 16 * (i + 1), static_cast<uint32_t>(i % 5)));
        sums.PrefetchEntry(Key(0x1000 + 16 * (i + 1), static_cast<uint32_t>(i % 5)));
        EXPECT_EQ(sums.Add(Key(0x1000 + 16 * i, static_cast<uint32_t>(i % 5)), i + 1), rep == 0);
      }
    ASSERT_EQ(sums.entries().size(), 20000u);
    for (uint64_t i = 0; i < 20000; ++i) {
      ASSERT_EQ(sums.entries()[i].key.ip, 0x1000 + 16 * i);
      ASSERT_EQ(sums.entries()[i].period, 3 * (i + 1));
      ASSERT_EQ(sums.entries()[i].nr_samples, 3u);
    }
    // A few keys after a Clear of many (the cheap per-entry clear path next round).
    sums.Clear();
    EXPECT_TRUE(sums.Add(Key(0x1000, 0), 1));
    EXPECT_TRUE(sums.Add(Key(0x1010, 1), 1));
    EXPECT_FALSE(sums.Add(Key(0x1000, 0), 1));
    EXPECT_EQ(sums.entries().size(), 2u);
    sums.Clear();
  }
}

TEST(ChainSumsTest, SumsPerKeyAndChainInFirstAddOrder) {
  auto words = [](std::vector<uint64_t> v) { return v; };
  const std::vector<uint64_t> ab = words({kContextUser, 0x400, 0x510}), ac = words({kContextUser, 0x400, 0x610});
  const std::vector<uint64_t> abc = words({kContextUser, 0x400, 0x510, 0x700});
  auto bytes = [](const std::vector<uint64_t>& v) { return reinterpret_cast<const uint8_t*>(v.data()); };
  ChainSums sums;
  EXPECT_TRUE(sums.Add(Key(0x400, 1), bytes(ab), 3, 10));
  EXPECT_TRUE(sums.Add(Key(0x400, 1), bytes(ac), 3, 5));   // another chain
  EXPECT_TRUE(sums.Add(Key(0x400, 1), bytes(abc), 4, 1));  // a longer one with the same start
  EXPECT_TRUE(sums.Add(Key(0x400, 1), bytes(ab), 2, 1));   // a shorter one
  EXPECT_FALSE(sums.Add(Key(0x400, 1), bytes(ab), 3, 7));
  EXPECT_TRUE(sums.Add(Key(0x400, 2), bytes(ab), 3, 1));  // another tid
  EXPECT_TRUE(sums.Add(Key(0x400, 1), nullptr, 0, 2));    // no chain
  EXPECT_FALSE(sums.Add(Key(0x400, 1), nullptr, 0, 2));
  ASSERT_EQ(sums.entries().size(), 6u);
  const ChainSums::Entry& first = sums.entries()[0];
  EXPECT_EQ(first.period, 17u);
  EXPECT_EQ(first.nr_samples, 2u);
  ASSERT_EQ(first.chain_words, 3u);
  EXPECT_EQ(std::memcmp(sums.chain(first), ab.data(), 24), 0);
  EXPECT_EQ(sums.entries()[2].chain_words, 4u);
  EXPECT_EQ(sums.entries()[3].chain_words, 2u);
  EXPECT_EQ(sums.entries()[5].period, 4u);
  EXPECT_GE(sums.held_bytes(), (3 + 3 + 4 + 2 + 3) * 8u);
  sums.Clear();
  EXPECT_TRUE(sums.empty());
  EXPECT_EQ(sums.held_bytes(), 0u);
  EXPECT_TRUE(sums.Add(Key(0x400, 1), bytes(ab), 3, 3));  // forgotten: new again
  // Many distinct chains: the table grows and every entry keeps its own chain.
  for (int rep = 0; rep < 2; ++rep)
    for (uint64_t i = 0; i < 10000; ++i) {
      const std::vector<uint64_t> c = words({kContextUser, 0x400, 0x1000 + i, 0x2000 + i % 7});
      EXPECT_EQ(sums.Add(Key(0x400, 1), bytes(c), 4, 1), rep == 0);
    }
  ASSERT_EQ(sums.entries().size(), 10001u);
  for (uint64_t i = 0; i < 10000; ++i) {
    const ChainSums::Entry& e = sums.entries()[i + 1];
    uint64_t w2;
    std::memcpy(&w2, sums.chain(e) + 16, 8);
    ASSERT_EQ(w2, 0x1000 + i);
    ASSERT_EQ(e.nr_samples, 2u);
  }
}

constexpr uint64_t kBase = 0x7f0000000000;
constexpr uint64_t kKernelIp = 0xffffffff81001234;

// pid P "app" with a JIT map (symbols f1..f7 from /tmp/perf-P.map) and a second thread
// P+1; samples on both threads, two cpus, user and kernel, with model changes between
// them (see the comments below) and one malformed sample. With `chains`, callchains
// through callers that repeat (a kernel part for kernel samples, and corrupt ones).
std::vector<uint8_t> Recording(uint32_t pid, bool chains = false) {
  PerfDataWriter w;
  int ev = w.AddAttr(MakeAttr(kSampleIp | kSampleTid | kSampleTime | kSampleCpu | kSamplePeriod | kSampleCallchain));
  const uint32_t worker = pid + 1;
  uint64_t t = 1000;
  w.Comm(pid, pid, "app", false, SidAt(pid, t++));
  PerfDataWriter::Mmap2Fields jit;
  jit.pid = jit.tid = pid;
  jit.start = kBase;
  jit.len = 0x10000;
  jit.flags = 0x22;  // MAP_PRIVATE | MAP_ANONYMOUS
  jit.filename = "//anon";
  w.Mmap2(jit, SidAt(pid, t++));
  w.Fork(pid, pid, worker, pid, t, SidAt(pid, t));
  ++t;
  for (int i = 0; i < 900; ++i) {
    if (i == 200) w.Comm(pid, worker, "worker2", false, SidAt(worker, t++));  // rename mid-stream
    if (i == 400) {
      // A library mapped over f5's page: its samples go to another dso from here on.
      PerfDataWriter::Mmap2Fields lib;
      lib.pid = lib.tid = pid;
      lib.start = kBase + 0x5000;
      lib.len = 0x1000;
      lib.filename = "/nonexistent-perflens/libover.so";
      w.Mmap2(lib, SidAt(pid, t++));
    }
    if (i == 600) {
      // The worker exits and its tid comes back as a new thread with its own comm.
      w.Exit(pid, pid, worker, pid, t, SidAt(worker, t));
      ++t;
      w.Fork(pid, pid, worker, pid, t, SidAt(pid, t));
      ++t;
      w.Comm(pid, worker, "worker3", false, SidAt(worker, t++));
    }
    SampleFields s;
    s.pid = pid;
    s.tid = (i % 3 == 0) ? worker : pid;
    s.time = t++;
    s.cpu = static_cast<uint32_t>(i % 2);
    s.period = 1000 + (i % 4 == 0 ? 0 : 1);  // equal totals for some rows: tie order counts
    s.ip = kBase + 0x1000 * (1 + i % 7) + 0x10 * (i % 3);
    s.misc = kMiscUser;
    if (i % 10 == 9) {
      s.ip = kKernelIp + (i % 20);
      s.misc = kMiscKernel;
    }
    if (i % 50 == 49) s.ip = 0x1234;  // in no map
    s.callchain = {kContextUser, s.ip};
    if (chains) {
      const uint64_t caller = kBase + 0x1000 * (1 + (i / 7) % 7) + 0x20 + 4 * (i % 2);
      const uint64_t root = kBase + 0x7040;
      if (s.misc == kMiscKernel) s.callchain = {kContextKernel, s.ip, kKernelIp + 0x100, kContextUser, caller, root};
      else if (i % 5 == 0) s.callchain = {kContextUser, s.ip, root};
      else s.callchain = {kContextUser, s.ip, caller, root};
      if (i % 97 == 13) s.callchain = {kContextUser, s.ip, 0xfffffffffffff100ULL};  // an unknown marker: corrupt
    }
    if (i == 333) {
      // A callchain count past the record's end: malformed, counted and skipped.
      testutil::ByteWriter body;
      body.U64(s.ip);
      body.U32(s.pid);
      body.U32(s.tid);
      body.U64(s.time);
      body.U32(s.cpu);
      body.U32(0);
      body.U64(s.period);
      body.U64(0x2000000000000000ULL);
      w.Raw(kRecordSample, kMiscUser, body.bytes());
      continue;
    }
    w.Sample(ev, s);
  }
  return w.Finish();
}

class FlatReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pid_ = 60000 + static_cast<uint32_t>(getpid() % 5000);
    map_path_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    std::ofstream m(map_path_);
    for (int i = 1; i <= 7; ++i) m << std::hex << kBase + 0x1000 * i << " 100 f" << std::dec << i << "\n";
  }
  void TearDown() override { std::remove(map_path_.c_str()); }

  std::string Run(ReportOptions o, bool sum, bool threads, ReportCounters* counters = nullptr) {
    o.children = false;
    o.call_graph = "none";
    return RunAsGiven(std::move(o), sum, threads, counters, false);
  }
  std::string RunAsGiven(ReportOptions o, bool sum, bool threads, ReportCounters* counters, bool chains) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(Recording(pid_, chains)));
    EXPECT_TRUE(file.ok());
    if (!file.ok()) return "";
    o.sum_samples = sum;
    o.use_threads = threads;
    o.symbolize.kallsyms = "/nonexistent-perflens/kallsyms";
    o.symbolize.buildid_dir = "/nonexistent-perflens/buildid";
    auto r = Report::Create(file->get(), o);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return "";
    EXPECT_TRUE((*r)->Process().ok());
    std::string out;
    EXPECT_TRUE(PrintReportStdio(**r, &out).ok());
    for (const std::string& line : (*r)->SummaryLines()) out += line + "\n";
    if (counters) *counters = (*r)->counters();
    return out;
  }

  uint32_t pid_ = 0;
  std::string map_path_;
};

TEST_F(FlatReportTest, SummedReportEqualsSampleBySample) {
  struct Case {
    const char* sort;
    std::vector<std::string> comms, dsos;
    std::vector<uint32_t> tids;
  };
  const std::vector<Case> cases = {
      {"comm,dso,sym", {}, {}, {}},       {"pid,sym", {}, {}, {}}, {"cpu,comm", {}, {}, {}},
      {"sym", {}, {}, {}},                {"dso", {}, {}, {}},     {"comm,sym", {"worker2"}, {}, {}},
      {"comm,sym", {}, {"[unknown]", "libover.so"}, {}}, {"pid,dso", {}, {}, {pid_ + 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sort);
    ReportOptions o;
    o.sort = c.sort;
    o.comms = c.comms;
    o.dsos = c.dsos;
    o.tids = c.tids;
    o.show_nr_samples = true;
    ReportCounters by_sample_counters, summed_counters;
    const std::string by_sample = Run(o, false, false, &by_sample_counters);
    EXPECT_EQ(Run(o, true, true, &summed_counters), by_sample);
    EXPECT_EQ(Run(o, true, false), by_sample);
    EXPECT_EQ(Run(o, false, true), by_sample);
    EXPECT_EQ(summed_counters.nr_samples, by_sample_counters.nr_samples);
    EXPECT_EQ(summed_counters.nr_no_map, by_sample_counters.nr_no_map);
    EXPECT_EQ(summed_counters.nr_no_symbol, by_sample_counters.nr_no_symbol);
    EXPECT_EQ(summed_counters.nr_bad_samples, 1u);
  }
  // What the recording is about shows in the report.
  ReportOptions o;
  o.sort = "comm,dso,sym";
  const std::string out = Run(o, true, true);
  for (const char* want : {"worker2", "worker3", "libover.so", "[.] f5", "[k] 0xffffffff81001", "[unknown]",
                           "malformed samples skipped"})
    EXPECT_NE(out.find(want), std::string::npos) << want << " in\n" << out;
}

// With Children and call graphs the samples are summed per key and recorded chain: the
// report (rows, Samples column, every graph) is the one built sample by sample.
TEST_F(FlatReportTest, SummedChainsReportEqualsSampleBySample) {
  struct Case {
    bool children;
    const char* call_graph;
    const char* sort;
    std::vector<std::string> comms, dsos;
    std::optional<std::string> parent;
  };
  const std::vector<Case> cases = {
      {true, "graph,0.5,caller", "comm,dso,sym", {}, {}, {}},
      {true, "graph,0,callee", "pid,sym", {}, {}, {}},
      {false, "fractal,0,callee", "cpu,comm,sym", {}, {}, {}},
      {false, "folded,0,caller", "sym", {}, {}, {}},
      {true, "flat,0", "dso,sym", {}, {}, {}},
      {true, "none", "comm,sym", {"worker2"}, {}, {}},
      {true, "graph,0,caller", "comm,sym", {}, {"[unknown]", "libover.so"}, {}},
      {false, "none", "parent,sym", {}, {}, "f3"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.call_graph) + " " + c.sort + (c.children ? " children" : ""));
    ReportOptions o;
    o.children = c.children;
    o.call_graph = c.call_graph;
    o.sort = c.sort;
    o.comms = c.comms;
    o.dsos = c.dsos;
    o.parent = c.parent;
    o.show_nr_samples = true;
    ReportCounters by_sample_counters, summed_counters;
    const std::string by_sample = RunAsGiven(o, false, false, &by_sample_counters, true);
    EXPECT_EQ(RunAsGiven(o, true, true, &summed_counters, true), by_sample);
    EXPECT_EQ(RunAsGiven(o, true, false, nullptr, true), by_sample);
    EXPECT_EQ(summed_counters.nr_samples, by_sample_counters.nr_samples);
    EXPECT_EQ(summed_counters.nr_no_map, by_sample_counters.nr_no_map);
    EXPECT_EQ(summed_counters.nr_bad_callchains, by_sample_counters.nr_bad_callchains);
    EXPECT_GT(summed_counters.nr_bad_callchains, 0u);
  }
  // The chains show: callers in the graph, kernel frames above user ones.
  ReportOptions o;
  o.children = true;
  o.call_graph = "graph,0,caller";
  const std::string out = RunAsGiven(o, true, true, nullptr, true);
  for (const char* want : {"worker3", "libover.so", "--f7", "f2", "[k] 0xffffffff81001"})
    EXPECT_NE(out.find(want), std::string::npos) << want << " in\n" << out;
}

}  // namespace
}  // namespace perflens
