// The session seam: what consumers receive does not depend on how the session runs
// (threads or not, callchains eager or on demand), filters drop or flag, and coalesced
// delivery adds up to the samples. Synthetic recording: a JIT map with three
// functions, a thread that changes its comm, and chains through all three.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "base/mapped_file.h"
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

}  // namespace
}  // namespace perflens
