// Record ordering (spec A13): FINISHED_ROUND flushes with a one-round lag, ties keep
// file order, records without a timestamp and user records are delivered at once, and
// ordered=false keeps file order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "perfdata/ordered_queue.h"
#include "perfdata/perf_file.h"
#include "testutil/perf_data_writer.h"
#include "testutil/read_records.h"

namespace perflens {
namespace {

using testutil::Endian;
using testutil::MakeAttr;
using testutil::PerfDataWriter;
using testutil::ReadAll;
using testutil::SampleFields;
using testutil::SidAt;

// Delivered records as labels: "s<ip>" for samples, "c<pid>" for COMM, "R" for
// FINISHED_ROUND, "m" for MMAP.
std::vector<std::string> Labels(const testutil::ReadResult& rr) {
  std::vector<std::string> out;
  const Loader& ld = rr.file->loader();
  for (const auto& r : rr.records) {
    switch (r.type) {
      case kRecordSample: out.push_back("s" + std::to_string(ld.U64(r.bytes.data() + 8))); break;
      case kRecordComm: out.push_back("c" + std::to_string(ld.U32(r.bytes.data() + 8))); break;
      case kRecordFinishedRound: out.push_back("R"); break;
      case kRecordMmap: out.push_back("m"); break;
      default: out.push_back("?" + std::to_string(r.type)); break;
    }
  }
  return out;
}

class OrderingTest : public testing::TestWithParam<Endian> {
 protected:
  // ip then time: the ip doubles as the label.
  void Sample(PerfDataWriter& w, uint64_t ip, uint64_t time) {
    SampleFields s;
    s.ip = ip;
    s.time = time;
    w.Sample(0, s);
  }
  PerfDataWriter Writer(bool sample_id_all = true) {
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    w.AddAttr(MakeAttr(kSampleIp | kSampleTime, 136, 0, sample_id_all));
    return w;
  }
};

TEST_P(OrderingTest, FinishedRoundFlushesWithOneRoundLag) {
  PerfDataWriter w = Writer();
  // Round 1: two CPUs drained in turn, out of time order.
  Sample(w, 30, 30);
  Sample(w, 10, 10);
  Sample(w, 40, 40);
  Sample(w, 20, 20);
  w.FinishedRound();  // flush bound 0 → nothing; next bound 40
  Sample(w, 35, 35);  // older than round 1's max but not yet flushed: stays in order
  Sample(w, 50, 50);
  w.FinishedRound();  // flush ≤ 40; next bound 50
  Sample(w, 45, 45);
  Sample(w, 60, 60);
  w.FinishedRound();  // flush ≤ 50
  Sample(w, 55, 55);
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(Labels(rr), (std::vector<std::string>{"R", "R", "s10", "s20", "s30", "s35", "s40", "R", "s45",
                                                  "s50", "s55", "s60"}));
  EXPECT_EQ(rr.stats.nr_unordered, 0u);
  EXPECT_EQ(rr.stats.nr_records[kRecordSample], 9u);
}

TEST_P(OrderingTest, LateRecordIsCountedUnorderedAndStillDelivered) {
  PerfDataWriter w = Writer();
  Sample(w, 10, 10);
  w.FinishedRound();
  Sample(w, 20, 20);
  w.FinishedRound();  // delivers 10; bound 20
  Sample(w, 5, 5);    // older than what was delivered
  w.FinishedRound();  // delivers 5 and 20
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(Labels(rr), (std::vector<std::string>{"R", "R", "s10", "R", "s5", "s20"}));
  EXPECT_EQ(rr.stats.nr_unordered, 1u);
}

TEST_P(OrderingTest, EqualTimestampsKeepFileOrder) {
  PerfDataWriter w = Writer();
  Sample(w, 3, 100);
  w.Comm(7, 7, "x", false, SidAt(7, 100));
  Sample(w, 1, 100);
  Sample(w, 9, 50);
  w.FinishedRound();
  Sample(w, 2, 100);  // same time, later round: after the earlier ones
  w.Comm(8, 8, "y", false, SidAt(8, 100));
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(Labels(rr), (std::vector<std::string>{"R", "s9", "s3", "c7", "s1", "s2", "c8"}));
}

TEST_P(OrderingTest, RecordsWithoutTimeBypassTheQueue) {
  PerfDataWriter w = Writer();
  Sample(w, 30, 30);
  w.Comm(1, 1, "notime", false, SidAt(1, UINT64_MAX));  // trailer time all ones
  w.Comm(2, 2, "zero", false, SidAt(2, 0));            // trailer time 0
  Sample(w, 20, 20);
  w.FinishedRound();
  auto rr = ReadAll(w.Finish());
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(Labels(rr), (std::vector<std::string>{"c1", "c2", "R", "s20", "s30"}));

  // Without sample_id_all, non-sample records carry no time: all bypass the queue.
  PerfDataWriter w2 = Writer(/*sample_id_all=*/false);
  Sample(w2, 30, 30);
  w2.Mmap(1, 1, 0x1000, 0x1000, 0, "/x", SidAt(1, 5));  // no trailer is written
  Sample(w2, 20, 20);
  auto rr2 = ReadAll(w2.Finish());
  ASSERT_TRUE(rr2.file);
  EXPECT_EQ(Labels(rr2), (std::vector<std::string>{"m", "s20", "s30"}));
}

TEST_P(OrderingTest, UnorderedOptionKeepsFileOrder) {
  PerfDataWriter w = Writer();
  Sample(w, 30, 30);
  Sample(w, 10, 10);
  w.FinishedRound();
  Sample(w, 20, 20);
  ReaderOptions opts;
  opts.ordered = false;
  auto rr = ReadAll(w.Finish(), opts);
  ASSERT_TRUE(rr.file);
  EXPECT_EQ(Labels(rr), (std::vector<std::string>{"s30", "s10", "R", "s20"}));
}

INSTANTIATE_TEST_SUITE_P(BothEndians, OrderingTest, testing::Values(Endian::kLittle, Endian::kBig),
                         [](const testing::TestParamInfo<Endian>& i) {
                           return i.param == Endian::kLittle ? "Little" : "Big";
                         });

// The queue on its own: many rounds with random-ish times deliver a sorted, complete
// stream when no record is older than the previous round's maximum.
TEST(OrderedQueueTest, DeliversEverythingSortedAcrossRounds) {
  OrderedQueue q;
  std::vector<uint64_t> delivered;
  std::vector<uint8_t> dummy(8);
  auto deliver = [&](const RecordView& r) { delivered.push_back(r.perf_data_offset); };
  uint64_t pushed = 0;
  uint64_t base = 1000;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 50; ++i) {
      uint64_t t = base + static_cast<uint64_t>((i * 37) % 50);
      RecordView r;
      r.data = dummy.data();
      r.perf_data_offset = t;  // the time doubles as the payload
      EXPECT_FALSE(q.Push(t, r));
      ++pushed;
    }
    q.FlushRound(deliver);
    base += 40;  // overlaps the previous round, never older than its predecessor's max
  }
  q.FlushAll(deliver);
  ASSERT_EQ(delivered.size(), pushed);
  EXPECT_TRUE(std::is_sorted(delivered.begin(), delivered.end()));
  EXPECT_EQ(q.size(), 0u);
}

// The queue's merge of sorted runs must equal a stable sort: rounds made of several
// per-CPU runs, many equal times (file order kept among them), and a fully reversed
// round (one run per record), against std::stable_sort of the same stream.
TEST(OrderedQueueTest, MergingRunsEqualsStableSort) {
  OrderedQueue q;
  std::vector<std::pair<uint64_t, uint64_t>> pushed, delivered;  // (time, sequence)
  std::vector<uint8_t> dummy(8);
  std::vector<uint64_t> time_of;
  auto deliver = [&](const RecordView& r) { delivered.push_back({time_of[r.perf_data_offset], r.perf_data_offset}); };
  uint64_t seq = 0;
  auto push = [&](uint64_t t) {
    RecordView r;
    r.data = dummy.data();
    r.perf_data_offset = seq;
    time_of.push_back(t);
    pushed.push_back({t, seq++});
    q.Push(t, r);
  };
  for (int round = 0; round < 12; ++round) {
    const uint64_t base = 1000 * static_cast<uint64_t>(round);
    if (round == 5) {
      for (int i = 300; i > 0; --i) push(base + static_cast<uint64_t>(i));  // 300 runs of one
    } else {
      for (int cpu = 0; cpu < 1 + round % 4; ++cpu)  // one sorted run per CPU, with ties
        for (int i = 0; i < 40; ++i) push(base + static_cast<uint64_t>(i / 3 * 7 + cpu));
    }
    q.FlushRound(deliver);
  }
  q.FlushAll(deliver);
  std::vector<std::pair<uint64_t, uint64_t>> want = pushed;
  std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  EXPECT_EQ(delivered, want);
}

// With the mapped file given, a record of the file is queued as its position only and
// framed again on delivery (either byte order); others (decompressed, piped: chunk or
// compressed set, or bytes elsewhere) are queued whole. Both must come out as pushed,
// in time order, and an aside slot must be reused only once delivered.
TEST(OrderedQueueTest, FileRecordsQueuedByPositionComeBackWhole) {
  for (bool swap : {false, true}) {
    std::vector<uint8_t> file(64 * 16);
    std::vector<uint8_t> elsewhere(16);
    auto put = [&](uint8_t* p, uint32_t type, uint16_t misc, uint16_t size) {
      if (swap) {
        type = __builtin_bswap32(type);
        misc = __builtin_bswap16(misc);
        size = __builtin_bswap16(size);
      }
      std::memcpy(p, &type, 4);
      std::memcpy(p + 4, &misc, 2);
      std::memcpy(p + 6, &size, 2);
    };
    Loader ld;
    ld.swap = swap;
    OrderedQueue q(file.data(), ld);
    std::vector<std::pair<uint64_t, RecordView>> pushed;
    std::vector<RecordView> delivered;
    auto deliver = [&](const RecordView& r) { delivered.push_back(r); };
    auto push = [&](uint64_t t, const RecordView& r) {
      pushed.push_back({t, r});
      q.Push(t, r);
    };
    put(elsewhere.data(), 9, 2, 16);
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 16; ++i) {
        const uint64_t off = static_cast<uint64_t>(round * 16 + i) * 16;
        put(file.data() + off, static_cast<uint32_t>(1 + i % 10), static_cast<uint16_t>(i), 16);
        RecordView r = ViewAt(ld, file.data() + off, off);
        if (i % 4 == 1) r.chunk = 7;          // owned bytes: aside
        if (i % 4 == 2) r.compressed = true;  // out of a COMPRESSED record: aside
        if (i % 4 == 3) r = ViewAt(ld, elsewhere.data(), off);  // a directory part: aside
        push(static_cast<uint64_t>(1000 * round + (i * 7) % 16), r);
      }
      q.FlushRound(deliver);
    }
    q.FlushAll(deliver);
    std::stable_sort(pushed.begin(), pushed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    ASSERT_EQ(delivered.size(), pushed.size());
    for (size_t i = 0; i < delivered.size(); ++i) {
      const RecordView& want = pushed[i].second;
      const RecordView& got = delivered[i];
      EXPECT_EQ(got.type, want.type) << i;
      EXPECT_EQ(got.misc, want.misc) << i;
      EXPECT_EQ(got.size, want.size) << i;
      EXPECT_EQ(got.data, want.data) << i;
      EXPECT_EQ(got.perf_data_offset, want.perf_data_offset) << i;
      EXPECT_EQ(got.chunk, want.chunk) << i;
      EXPECT_EQ(got.compressed, want.compressed) << i;
    }
  }
}

}  // namespace
}  // namespace perflens
