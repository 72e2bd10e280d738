// The session seam: what consumers receive does not depend on how the session runs
// (threads or not, callchains eager or on demand), filters drop or flag, and coalesced
// delivery adds up to the samples. Synthetic recording: a JIT map with three
// functions, a thread that changes its comm, and chains through all three.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/worker_pool.h"
#include "session/session.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kBase = 0x7f0000001000ULL;

// What a consumer saw of one sample, as text: comparable across runs.
struct Recorder : SampleConsumer {
  std::vector<std::string> lines;
  uint64_t period = 0, nr_samples = 0;
  bool finished = false;
  void OnSample(const ResolvedSample& s) override {
    std::string l = *s.comm + " " + std::to_string(s.tid) + " " + std::to_string(s.period) + " x" +
                    std::to_string(s.nr_samples) + (s.filtered ? " filtered" : "") + " |";
    auto name = [](const AddrLocation& al) { return al.sym ? std::string(al.sym->name) : std::string("?"); };
    if (s.location.dso) l += " " + name(s.location);
    if (s.frame_source && s.chain_ok) {  // a corrupt chain has no frames
      WalkCallchain(
          s.raw_callchain, s.frame_source->max_stack(), false,
          [&](uint64_t ip, uint16_t mode, bool) { l += " <" + name(s.frame_source->Resolve(s.thread, mode, ip)); },
          s.raw_unwound_begin);
    }
    for (const CallchainFrame& f : s.callchain) l += " <" + name(f.al);
    lines.push_back(l);
    period += s.period;
    nr_samples += s.nr_samples;
  }
  void Finish() override { finished = true; }
};

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pid_ = 4100000 + static_cast<uint32_t>(getpid());  // own JIT map under ctest -j
    map_path_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    std::ofstream(map_path_) << std::hex << kBase << " 100 main\n"
                             << kBase + 0x100 << " 100 work\n"
                             << kBase + 0x200 << " 100 leaf\n";
    PerfDataWriter w;
    EventAttr a;
    a.type = 1;
    a.size = 128;
    a.sample_type = kSampleIp | kSampleTid | kSamplePeriod | kSampleCallchain;
    a.sample_period = 1000;
    w.AddAttr(a);
    w.Comm(pid_, pid_, "first");
    w.Mmap(pid_, pid_, kBase, 0x1000, 0, "//anon");
    for (int i = 0; i < 40; ++i) {
      if (i == 25) w.Comm(pid_, pid_, "second");
      SampleFields s;
      s.pid = s.tid = pid_;
      s.period = 100 + static_cast<uint64_t>(i % 3);
      s.ip = kBase + 0x200 + static_cast<uint64_t>(i % 2) * 0x10;
      s.callchain = {kContextUser, s.ip, kBase + 0x110, kBase + 0x20};
      if (i == 7) s.callchain = {kContextUser, s.ip, 0xfffffffffffff100ULL};  // corrupt: an unknown context marker
      w.Sample(0, s);
    }
    bytes_ = w.Finish();
  }
  void TearDown() override { std::remove(map_path_.c_str()); }

  Recorder Run(SessionOptions o, SessionCounters* counters = nullptr) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes_));
    EXPECT_TRUE(file.ok());
    auto session = Session::Open(file->get(), std::move(o));
    Recorder r;
    session->AddConsumer(&r);
    EXPECT_TRUE(session->Run().ok());
    if (counters) *counters = session->counters();
    EXPECT_TRUE(r.finished);
    return r;
  }

  uint32_t pid_ = 0;
  std::string map_path_;
  std::vector<uint8_t> bytes_;
};

TEST_F(SessionTest, SameSamplesWhicheverThreadsAndCallchainMode) {
  SessionOptions base;
  base.needs = {SampleNeeds{true, true}};
  base.use_threads = false;
  SessionCounters c;
  Recorder reference = Run(base, &c);
  ASSERT_EQ(reference.lines.size(), 40u);
  EXPECT_EQ(c.nr_bad_callchains, 1u);
  // The comm at sample time, the resolved leaf, then the chain leaf first.
  EXPECT_EQ(reference.lines[0], "first " + std::to_string(pid_) + " 100 x1 | leaf <leaf <work <main");
  EXPECT_EQ(reference.lines[7].substr(reference.lines[7].size() - 6), "| leaf") << "corrupt chain: no frames";
  EXPECT_EQ(reference.lines[39].substr(0, 7), "second ");

  for (bool threads : {false, true})
    for (bool consumer_thread : {false, true})
      for (bool on_demand : {false, true}) {
        SessionOptions o = base;
        o.use_threads = threads;
        o.consumer_thread = consumer_thread;
        o.needs = {SampleNeeds{true, true, on_demand}};
        SessionCounters oc;
        EXPECT_EQ(Run(o, &oc).lines, reference.lines)
            << "threads " << threads << " consumer_thread " << consumer_thread << " on_demand " << on_demand;
        EXPECT_EQ(oc.nr_bad_callchains, 1u);
      }
}

TEST_F(SessionTest, FilterDropsOrFlags) {
  SessionOptions o;
  o.filter.comms = {"second"};
  SessionCounters c;
  Recorder dropped = Run(o, &c);
  EXPECT_EQ(dropped.lines.size(), 15u);
  EXPECT_EQ(c.nr_filtered, 25u);
  o.deliver_filtered = true;
  Recorder flagged = Run(o, &c);
  ASSERT_EQ(flagged.lines.size(), 40u);
  EXPECT_EQ(c.nr_filtered, 0u);
  EXPECT_NE(flagged.lines[0].find(" filtered |"), std::string::npos);
  EXPECT_EQ(flagged.lines[39].find(" filtered |"), std::string::npos);
}

TEST_F(SessionTest, CoalescedSamplesAddUpPerKeyBetweenModelChanges) {
  SessionOptions o;
  Recorder each = Run(o);
  o.coalesce = true;
  Recorder summed = Run(o);
  EXPECT_EQ(summed.period, each.period);
  EXPECT_EQ(summed.nr_samples, 40u);
  // Two ips before the COMM and two after: four keys, in first-seen order.
  ASSERT_EQ(summed.lines.size(), 4u);
  EXPECT_EQ(summed.lines[0].substr(0, 6), "first ");
  EXPECT_NE(summed.lines[0].find(" x13 | leaf"), std::string::npos) << summed.lines[0];
  EXPECT_EQ(summed.lines[3].substr(0, 7), "second ");
  // Coalescing is off when a callchain is needed.
  o.needs = {SampleNeeds{true, true}};
  EXPECT_EQ(Run(o).lines.size(), 40u);
}

TEST_F(SessionTest, CoalescedChainsAddUpPerKeyAndChainBetweenModelChanges) {
  SessionOptions o;
  o.needs = {SampleNeeds{true, true}};
  Recorder each = Run(o);
  o.coalesce_chains = true;
  for (bool threads : {false, true}) {
    o.use_threads = threads;
    o.consumer_thread = threads;
    SessionCounters c;
    Recorder summed = Run(o, &c);
    EXPECT_EQ(summed.period, each.period);
    EXPECT_EQ(summed.nr_samples, 40u);
    EXPECT_EQ(c.nr_bad_callchains, 1u);
    // Before the COMM: each ip with the full chain, then the corrupt chain (sample 7);
    // after it, the two ips again.
    ASSERT_EQ(summed.lines.size(), 5u);
    EXPECT_NE(summed.lines[0].find(" x13 | leaf <leaf <work <main"), std::string::npos) << summed.lines[0];
    EXPECT_NE(summed.lines[1].find(" x11 | leaf <leaf <work <main"), std::string::npos) << summed.lines[1];
    EXPECT_EQ(summed.lines[2].substr(summed.lines[2].size() - 10), " x1 | leaf") << summed.lines[2];
    EXPECT_EQ(summed.lines[4].substr(0, 7), "second ");
  }
  // Where summing does not pay it stops after the trial: two samples, two entries
  // (3 samples must make 2 entries or fewer). What was summed goes out first, then each
  // sample as it comes: the delivery is the sample-by-sample one.
  o.coalesce_chains_trial = 2;
  EXPECT_EQ(Run(o).lines, each.lines);
  // Where it goes on, the trial also picks where entries are delivered: on the consumer
  // thread from then on when samples are fewer than 4 per entry (3 samples, 2 entries),
  // on the resolving thread when more (20 samples, 3 entries). Same delivery either way.
  o.coalesce_chains_trial = 0;  // never stops
  const std::vector<std::string> summed = Run(o).lines;
  ASSERT_EQ(summed.size(), 5u);
  for (uint64_t trial : {3, 20}) {
    o.coalesce_chains_trial = trial;
    EXPECT_EQ(Run(o).lines, summed) << trial;
  }
  // Chains resolved on demand are not summed.
  o.needs = {SampleNeeds{true, true, true}};
  EXPECT_EQ(Run(o).lines.size(), 40u);
}

// Summed samples reach consumers without times; the session keeps their first and last
// (0 skipped) so that a consumer that needs the span (pprof's time and duration) gets
// the one sample-by-sample delivery gives.
TEST(SessionSummedTimesTest, SummedChainTimesSpanTheSummedSamples) {
  PerfDataWriter w;
  EventAttr a;
  a.type = 1;
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSamplePeriod | kSampleCallchain;
  a.sample_period = 1000;
  w.AddAttr(a);
  w.Comm(7, 7, "t");
  for (uint64_t i = 0; i < 12; ++i) {
    SampleFields s;
    s.pid = s.tid = 7;
    s.period = 1;
    s.time = i == 0 ? 0 : 5000 - i * 100;  // out of order, one without a time
    s.ip = kBase + (i % 2) * 0x10;
    s.callchain = {kContextUser, s.ip, kBase + 0x100};
    w.Sample(0, s);
  }
  const std::vector<uint8_t> bytes = w.Finish();
  for (bool sum : {false, true}) {
    SCOPED_TRACE(sum);
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
    ASSERT_TRUE(file.ok());
    SessionOptions o;
    o.needs = {SampleNeeds{true, true}};
    o.coalesce_chains = sum;
    auto session = Session::Open(file->get(), std::move(o));
    struct Times : SampleConsumer {
      uint64_t first = UINT64_MAX, last = 0, nr_samples = 0;
      void OnSample(const ResolvedSample& s) override {
        if (s.time) first = std::min(first, s.time), last = std::max(last, s.time);
        nr_samples += s.nr_samples;
      }
    } times;
    session->AddConsumer(&times);
    ASSERT_TRUE(session->Run().ok());
    EXPECT_EQ(times.nr_samples, 12u);
    const auto [first, last] = session->summed_chain_times();
    if (sum) {
      EXPECT_EQ(times.first, UINT64_MAX);  // none delivered with a time
      EXPECT_EQ(first, 3900u);
      EXPECT_EQ(last, 4900u);
    } else {
      EXPECT_EQ(times.first, 3900u);
      EXPECT_EQ(times.last, 4900u);
      EXPECT_GT(first, last);  // nothing summed
    }
  }
}

// A consumer that sums by itself: it describes each key when first seen and adds the
// sums per slot; the lines must equal what OnSample delivery gives.
struct SlotRecorder : SampleConsumer {
  std::vector<std::string> keys;  // per slot, as Recorder writes a line without the sums
  std::vector<uint64_t> periods, counts;
  std::vector<std::string> lines;
  void OnSample(const ResolvedSample&) override { ADD_FAILURE() << "a slotted key was delivered through OnSample"; }
  uint32_t OnSummedKey(const ResolvedSample& s) override {
    EXPECT_EQ(s.nr_samples, 0u);
    keys.push_back(*s.comm + " " + std::to_string(s.tid));
    keys.back() += std::string(s.filtered ? " filtered" : "") + " | " +
                   (s.location.sym ? std::string(s.location.sym->name) : std::string("?"));
    periods.push_back(0);
    counts.push_back(0);
    return static_cast<uint32_t>(keys.size() - 1);
  }
  void OnSlotSums(std::span<const SlotSum> sums) override {
    for (const SlotSum& sum : sums) {
      periods[sum.slot] += sum.period;
      counts[sum.slot] += sum.nr_samples;
    }
  }
  void Finish() override {
    for (size_t i = 0; i < keys.size(); ++i) {
      const size_t bar = keys[i].find(" |");
      const size_t flag = keys[i].find(" filtered");
      const size_t head = flag == std::string::npos ? bar : flag;
      lines.push_back(keys[i].substr(0, head) + " " + std::to_string(periods[i]) + " x" + std::to_string(counts[i]) +
                      keys[i].substr(head));
    }
  }
};

TEST_F(SessionTest, SlottedConsumersGetTheSameSumsAsDeliveredOnes) {
  for (bool flag_filtered : {false, true}) {
    SessionOptions o;
    o.coalesce = true;
    o.filter.comms = {"first"};
    o.deliver_filtered = flag_filtered;
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes_));
    ASSERT_TRUE(file.ok());
    auto session = Session::Open(file->get(), std::move(o));
    Recorder delivered;
    SlotRecorder slotted;
    session->AddConsumer(&slotted);
    session->AddConsumer(&delivered);
    ASSERT_TRUE(session->Run().ok());
    // Two keys of "first", and with flagging the two of "second" too.
    EXPECT_EQ(delivered.lines.size(), flag_filtered ? 4u : 2u);
    EXPECT_EQ(slotted.lines, delivered.lines);
    EXPECT_EQ(session->counters().nr_filtered, flag_filtered ? 0u : 15u);
  }
}


// The parallel read (SessionOptions::parallel_read) against the one-thread read of a
// coalescing session: the same keys in the same first-seen order, the same sums, the
// same counters (the first malformed sample's offset too) and read stats, for windows
// and ranges from 64 bytes up and 1 to 3 workers. The recording has rounds of
// interleaved times, late samples, samples without time, COMMs and an MMAP between
// them (each ends a run of sums), a malformed sample, and FINISHED_ROUND headers in
// sample bytes.
class ParallelReadSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pid_ = 4200000 + static_cast<uint32_t>(getpid());
    map_path_ = "/tmp/perf-" + std::to_string(pid_) + ".map";
    std::ofstream(map_path_) << std::hex << kBase << " 100 main\n"
                             << kBase + 0x100 << " 100 work\n"
                             << kBase + 0x200 << " 100 leaf\n";
    PerfDataWriter w;
    EventAttr a;
    a.type = 1;
    a.size = 128;
    a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSamplePeriod;
    a.sample_period = 1000;
    a.flags = 1ULL << 18;  // sample_id_all: side-band records are ordered by time too
    w.AddAttr(a);
    SampleId sid;
    sid.pid = sid.tid = pid_;
    sid.time = 5;
    w.Comm(pid_, pid_, "first", false, sid);
    w.Mmap(pid_, pid_, kBase, 0x1000, 0, "//anon", sid);
    uint64_t t = 100;
    for (int round = 0; round < 40; ++round) {
      for (int cpu = 0; cpu < 2; ++cpu) {
        for (int i = 0; i < 6; ++i) {
          SampleFields s;
          s.pid = pid_;
          s.tid = pid_ + static_cast<uint32_t>((i + cpu) % 3);
          s.time = t + static_cast<uint64_t>(i * 5 + cpu);
          s.period = 100 + static_cast<uint64_t>((round + i) % 7);
          s.ip = kBase + 0x10 * static_cast<uint64_t>((round * 3 + i + cpu) % 40);
          if (round % 9 == 4 && i == 2) s.ip = 0x0008000000000044ULL;  // a FINISHED_ROUND header's bytes
          if (round % 11 == 6 && i == 0) s.time = t - 150;            // late
          if (round % 13 == 7 && i == 1) s.time = 0;                  // untimed: delivered at once
          w.Sample(0, s);
          if (round == 17 && cpu == 1 && i == 3) w.Raw(kRecordSample, kMiscUser, std::vector<uint8_t>(8, 0));  // malformed
        }
      }
      sid.time = t + 12;
      if (round % 10 == 5) w.Comm(pid_, pid_ + 1, "second" + std::to_string(round), false, sid);
      if (round == 23) w.Mmap(pid_, pid_, kBase + 0x1000, 0x1000, 0, "//anon", sid);
      t += 40;
      w.FinishedRound();
    }
    bytes_ = w.Finish();
  }
  void TearDown() override { std::remove(map_path_.c_str()); }

  // Everything a coalescing session hands out and counts, as text.
  std::string RunText(SessionOptions o) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes_));
    EXPECT_TRUE(file.ok());
    o.coalesce = true;
    auto session = Session::Open(file->get(), std::move(o));
    Recorder delivered;
    SlotRecorder slotted;
    session->AddConsumer(&slotted);
    session->AddConsumer(&delivered);
    EXPECT_TRUE(session->Run().ok());
    std::string out;
    for (const std::string& l : delivered.lines) out += l + "\n";
    for (const std::string& l : slotted.lines) out += "slot " + l + "\n";
    const SessionCounters& c = session->counters();
    out += fmt::format("samples {} bad {} first_bad {:#x} unknown_id {} no_map {} no_symbol {}\n", c.nr_samples,
                       c.nr_bad_samples, c.first_bad_sample_offset, c.nr_unknown_id, c.nr_no_map, c.nr_no_symbol);
    const ReadStats& rs = session->read_stats();
    out += fmt::format("records {} unordered {} samples {} comm {} rounds {}\n", rs.nr_records_total, rs.nr_unordered,
                       rs.nr_records[kRecordSample], rs.nr_records[kRecordComm], rs.nr_records[kRecordFinishedRound]);
    for (const std::string& l : session->ProblemLines()) out += l + "\n";
    return out;
  }

  uint32_t pid_ = 0;
  std::string map_path_;
  std::vector<uint8_t> bytes_;
};

TEST_F(ParallelReadSessionTest, SameSumsKeysAndCountsAsOneThread) {
  SessionOptions one;
  one.parallel_read = SessionOptions::ParallelRead::kOff;
  const std::string want = RunText(one);
  // The recording is what the comparison needs: late samples, a malformed one, the
  // COMMs and the MMAP each ending a run of sums.
  EXPECT_NE(want.find("bad 1 first_bad 0x"), std::string::npos) << want;
  EXPECT_EQ(want.find("unordered 0 "), std::string::npos) << want;
  EXPECT_NE(want.find("second5"), std::string::npos) << want;
  for (size_t workers : {1, 2, 3})
    for (uint64_t window : {64, 300, 2000, 0})
      for (uint64_t range : {64, 500}) {
        SessionOptions o;
        o.parallel_read = SessionOptions::ParallelRead::kOn;
        o.read_workers = workers;
        o.read_window_bytes = window;
        o.read_range_bytes = range;
        EXPECT_EQ(RunText(o), want) << "workers " << workers << " window " << window << " range " << range;
      }
}

// --parallel-read=auto reads in parallel files whose samples average
// parallel_min_sample_bytes or more (PerfFile::MeanSampleBytes), with or without
// FINISHED_ROUNDs, and no others.
TEST_F(ParallelReadSessionTest, AutoGoesByTheSampleSize) {
  if (UsableCores() < 2) GTEST_SKIP() << "auto reads in parallel only with two usable cores";
  // 100 samples of `callchain` entries, with FINISHED_ROUNDs after every 10 or none.
  auto file_bytes = [this](size_t callchain, bool rounds) {
    PerfDataWriter w;
    w.AddAttr(testutil::MakeAttr(kSampleIp | kSampleTid | kSampleTime | kSamplePeriod | kSampleCallchain));
    for (int i = 0; i < 100; ++i) {
      SampleFields s;
      s.pid = s.tid = pid_;
      s.ip = kBase;
      s.time = 1000 + i;
      s.period = 1;
      s.callchain.assign(callchain, kBase);
      w.Sample(0, s);
      if (rounds && i % 10 == 9) w.FinishedRound();
    }
    return w.Finish();
  };
  auto uses_parallel = [](const std::vector<uint8_t>& bytes) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
    EXPECT_TRUE(file.ok());
    SessionOptions o;
    o.coalesce = true;
    o.parallel_min_bytes = 0;  // the 256-byte mean decides
    return Session::Open(file->get(), std::move(o))->UsesParallelRead();
  };
  // 48 bytes of header, ip, tid, time, period and nr, 8 per callchain entry.
  EXPECT_TRUE(uses_parallel(file_bytes(30, true)));
  EXPECT_TRUE(uses_parallel(file_bytes(30, false)));
  EXPECT_FALSE(uses_parallel(file_bytes(20, true)));
}

// "samples in a DSO without a symbol there" names the DSOs, most such samples first,
// whether the samples are summed or delivered one by one.
TEST_F(SessionTest, NoSymbolLineNamesTheDsos) {
  PerfDataWriter w;
  EventAttr a;
  a.type = 1;
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSamplePeriod;
  a.sample_period = 1000;
  w.AddAttr(a);
  w.Comm(pid_, pid_, "first");
  w.Mmap(pid_, pid_, kBase, 0x1000, 0, "//anon");
  w.Mmap(pid_, pid_, 0x500000, 0x1000, 0, "/nonexistent-perflens/libnothing.so");
  for (uint64_t ip : {kBase + 0x900, kBase + 0x904, kBase + 0x200, uint64_t{0x500010}, kBase + 0x908}) {
    SampleFields s;
    s.pid = s.tid = pid_;
    s.period = 1;
    s.ip = ip;
    w.Sample(0, s);
  }
  bytes_ = w.Finish();
  for (bool coalesce : {false, true}) {
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes_));
    ASSERT_TRUE(file.ok());
    SessionOptions o;
    o.coalesce = coalesce;
    auto session = Session::Open(file->get(), std::move(o));
    Recorder r;
    session->AddConsumer(&r);
    ASSERT_TRUE(session->Run().ok());
    std::string all;
    for (const std::string& l : session->ProblemLines()) all += l + "\n";
    // The JIT map's DSO has perf's name for it, "[JIT] tid PID".
    EXPECT_NE(all.find("80.0% (4/5) samples in a DSO without a symbol there ([JIT] tid " + std::to_string(pid_) +
                       " 3, libnothing.so 1)"),
              std::string::npos)
        << "coalesce " << coalesce << ": " << all;
  }
}

}  // namespace
}  // namespace perflens
