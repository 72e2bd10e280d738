// PerfFile::ReadRecordsParallel against ReadRecords: the same records (type, position,
// bytes) in the same order, the same ReadStats (counts, unordered, warnings, the stop),
// and each usable sample's decoding delivered with it — for every window and range size
// from 64 bytes (a range per few records, many wrong guesses) to one window, on 1, 2
// and 4 workers, in both byte orders; with late records, records without time, user
// records, unknown types, FINISHED_ROUND headers inside sample bytes and AUX payloads,
// COMPRESSED data, and a malformed record at every position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/worker_pool.h"
#include "perfdata/perf_file.h"
#include "testutil/perf_data_writer.h"
#include "testutil/read_records.h"
#include "testutil/read_stats_text.h"

namespace perflens {
namespace {

using testutil::Endian;
using testutil::MakeAttr;
using testutil::PerfDataWriter;
using testutil::SampleFields;
using testutil::SidAt;

// A FINISHED_ROUND header (type 68, misc 0, size 8) read as one u64 in the file's byte
// order: a sample ip or period of this value puts those 8 bytes into the data section.
uint64_t RoundHeaderValue(Endian e) {
  return e == Endian::kLittle ? 68 | (uint64_t{8} << 48) : (uint64_t{68} << 32) | 8;
}

struct Delivered {
  uint32_t type = 0;
  uint64_t offset = 0;
  bool compressed = false;
  std::vector<uint8_t> bytes;
  bool decoded = false;
  uint64_t decoded_offset = 0, decoded_ip = 0;
  bool operator==(const Delivered&) const = default;
};

struct ReadOut {
  std::vector<Delivered> records;
  std::string stats;
};

ReadOut ReadSequential(PerfFile& f) {
  ReadOut out;
  ReadStats st;
  Status s = f.ReadRecords(
      [&](const RecordView& r) {
        out.records.push_back({r.type, r.perf_data_offset, r.compressed, {r.data, r.data + r.size}});
      },
      &st);
  EXPECT_TRUE(s.ok());
  out.stats = testutil::ReadStatsText(st);
  return out;
}

// The decoding the test asks for: the record's position and ip, for the samples whose
// ip is not odd (odd ones are left undecoded, as a caller leaves malformed ones).
bool Decode(const PerfFile& f, const RecordView& r, PerfFile::DecodedSample* out) {
  if (r.size < 16) return false;
  const uint64_t ip = f.loader().U64(r.data + 8);
  if (ip & 1) return false;
  std::memcpy(out->bytes, &r.perf_data_offset, 8);
  std::memcpy(out->bytes + 8, &ip, 8);
  return true;
}

ReadOut ReadParallel(PerfFile& f, size_t workers, uint64_t window, uint64_t range, uint64_t window_records) {
  ReadOut out;
  ReadStats st;
  WorkerPool pool(workers - 1);
  PerfFile::ParallelRead pr;
  pr.pool = &pool;
  pr.window_bytes = window;
  pr.range_bytes = range;
  pr.window_records = window_records;
  pr.decode = [&f](size_t worker, const RecordView& r, PerfFile::DecodedSample* d) {
    EXPECT_LT(worker, 4u);
    return Decode(f, r, d);
  };
  Status s = f.ReadRecordsParallel(
      [&](const RecordView& r, const PerfFile::DecodedSample* d) {
        Delivered& v = out.records.emplace_back();
        v.type = r.type;
        v.offset = r.perf_data_offset;
        v.compressed = r.compressed;
        v.bytes.assign(r.data, r.data + r.size);
        if (d) {
          v.decoded = true;
          std::memcpy(&v.decoded_offset, d->bytes, 8);
          std::memcpy(&v.decoded_ip, d->bytes + 8, 8);
        }
      },
      pr, &st);
  EXPECT_TRUE(s.ok());
  out.stats = testutil::ReadStatsText(st);
  return out;
}

// Reads `bytes` both ways in every configuration and compares; "window 0" is windows
// of 4000 bytes capped at 5 records: after a window of more (the first is 1000 bytes,
// some 20 records), the next is what 5 records took, and the one after that 4000 again.
void ExpectSameRead(const std::vector<uint8_t>& bytes) {
  auto f = testutil::OpenBytes(bytes);
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_TRUE((*f)->CanReadInParallel());
  const ReadOut want = ReadSequential(**f);
  for (size_t workers : {1, 2, 4}) {
    for (uint64_t window : {64, 200, 1000, 16 << 20, 0}) {
      for (uint64_t range : {64, 136, 1 << 20}) {
        const uint64_t window_records = window == 0 ? 5 : PerfFile::ParallelRead{}.window_records;
        const uint64_t window_bytes = window == 0 ? 4000 : window;
        SCOPED_TRACE(fmt::format("workers {} window {} range {} window_records {}", workers, window_bytes, range,
                                 window_records));
        auto g = testutil::OpenBytes(bytes);
        ASSERT_TRUE(g.ok());
        ReadOut got = ReadParallel(**g, workers, window_bytes, range, window_records);
        EXPECT_EQ(got.stats, want.stats);
        ASSERT_EQ(got.records.size(), want.records.size());
        for (size_t i = 0; i < want.records.size(); ++i) {
          Delivered w = want.records[i];
          const Delivered& g2 = got.records[i];
          ASSERT_EQ(g2.type, w.type) << "record " << i;
          ASSERT_EQ(g2.offset, w.offset) << "record " << i;
          ASSERT_EQ(g2.bytes, w.bytes) << "record " << i;
          ASSERT_EQ(g2.compressed, w.compressed) << "record " << i;
          // Decoded: exactly the file's own samples the decoder accepts, with their values.
          RecordView v;
          v.type = w.type;
          v.size = static_cast<uint16_t>(w.bytes.size());
          v.data = w.bytes.data();
          v.perf_data_offset = w.offset;
          PerfFile::DecodedSample d;
          const bool decodable = w.type == kRecordSample && !w.compressed && Decode(**f, v, &d);
          ASSERT_EQ(g2.decoded, decodable) << "record " << i;
          if (decodable) {
            EXPECT_EQ(g2.decoded_offset, w.offset);
            EXPECT_EQ(g2.decoded_ip, (*f)->loader().U64(w.bytes.data() + 8));
          }
        }
      }
    }
  }
}

class ParallelReadTest : public testing::TestWithParam<Endian> {
 protected:
  PerfDataWriter Writer() {
    PerfDataWriter w(PerfDataWriter::kFile, GetParam());
    w.AddAttr(MakeAttr(kSampleIp | kSampleTid | kSampleTime | kSamplePeriod, 136, 0, true));
    return w;
  }
  void Sample(PerfDataWriter& w, uint64_t ip, uint64_t time, uint64_t period = 1) {
    SampleFields s;
    s.ip = ip;
    s.pid = s.tid = 7;
    s.time = time;
    s.period = period;
    w.Sample(0, s);
  }
  // Rounds of three interleaved "CPU buffers", late records (older than what was
  // flushed), samples without time, side-band records and user records between them.
  void Rounds(PerfDataWriter& w, int rounds) {
    uint64_t t = 1000;
    for (int round = 0; round < rounds; ++round) {
      for (int cpu = 0; cpu < 3; ++cpu)
        for (int i = 0; i < 4 + (round + cpu) % 3; ++i) Sample(w, 0x1000 + 16 * (round * 20 + cpu * 5 + i), t + i * 7 + cpu);
      if (round % 4 == 1) w.Comm(7, 7, "round" + std::to_string(round), false, SidAt(7, t + 3));
      if (round % 5 == 2) Sample(w, 0x2001 + round * 2, t - 900);  // late, odd ip: undecoded
      if (round % 6 == 3) Sample(w, 0x3000, 0);                    // no time: delivered at once
      if (round % 7 == 4) w.FinishedInit();
      t += 40;
      w.FinishedRound();
    }
  }
};

TEST_P(ParallelReadTest, RoundsInterleavedLateAndUntimedRecords) {
  PerfDataWriter w = Writer();
  w.Comm(7, 7, "work", false, SidAt(7, 10));
  Rounds(w, 30);
  ExpectSameRead(w.Finish());
}

TEST_P(ParallelReadTest, RoundHeadersInsideSampleBytesAreOnlyGuesses) {
  PerfDataWriter w = Writer();
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 6; ++i) {
      // The FINISHED_ROUND bytes as the ip and as the period, 8-byte aligned in the data.
      Sample(w, RoundHeaderValue(GetParam()), 100 + round * 50 + i, RoundHeaderValue(GetParam()));
      Sample(w, 0x4000 + 16 * i, 100 + round * 50 + i);
    }
    if (round % 3 == 0) w.FinishedRound();
  }
  ExpectSameRead(w.Finish());
}

TEST_P(ParallelReadTest, AuxPayloadsAndUnknownTypes) {
  PerfDataWriter w = Writer();
  std::vector<uint8_t> aux(200, 0);
  for (size_t i = 0; i + 8 <= aux.size(); i += 8) {  // FINISHED_ROUND headers in the payload
    testutil::ByteWriter b(GetParam());
    b.U64(RoundHeaderValue(GetParam()));
    std::memcpy(aux.data() + i, b.bytes().data(), 8);
  }
  for (int round = 0; round < 12; ++round) {
    for (int i = 0; i < 5; ++i) Sample(w, 0x5000 + 16 * i, 100 + round * 30 + (5 - i));
    if (round % 2 == 0) w.Auxtrace(0, 0, 0, 7, 0, aux);
    if (round % 5 == 1) w.Raw(99, 0, std::vector<uint8_t>(8, 0));   // unknown user type
    if (round % 5 == 3) w.Raw(50, 0, std::vector<uint8_t>(16, 0));  // unknown kernel type
    w.FinishedRound();
  }
  ExpectSameRead(w.Finish());
}

TEST_P(ParallelReadTest, CompressedDataAmongPlainRecords) {
  PerfDataWriter w = Writer();
  Rounds(w, 5);
  w.BeginCompressed();
  Rounds(w, 6);
  const size_t mid = w.captured_size() / 2;
  w.EndCompressed({mid});
  Rounds(w, 5);
  ExpectSameRead(w.Finish());
}

// A record with header.size 0 (framing lost), 4 (below a header) or past the end, at
// each position in turn: the same records before the stop, the same stop message.
TEST_P(ParallelReadTest, MalformedRecordAtEveryPosition) {
  PerfDataWriter base = Writer();
  Rounds(base, 6);
  const std::vector<uint8_t> good = base.Finish();
  auto f = testutil::OpenBytes(good);
  ASSERT_TRUE(f.ok());
  std::vector<uint64_t> offsets;
  ReadStats st;
  ASSERT_TRUE((*f)->ReadRecords([&](const RecordView& r) { offsets.push_back(r.perf_data_offset); }, &st).ok());
  std::sort(offsets.begin(), offsets.end());
  for (size_t k = 0; k < offsets.size(); k += 3) {
    for (uint16_t size : {uint16_t{0}, uint16_t{4}, uint16_t{0xfff8}}) {
      SCOPED_TRACE(fmt::format("record at {:#x} given size {}", offsets[k], size));
      std::vector<uint8_t> bad = good;
      testutil::ByteWriter b(GetParam());
      b.U16(size);
      std::memcpy(bad.data() + offsets[k] + 6, b.bytes().data(), 2);
      ExpectSameRead(bad);
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ByteOrders, ParallelReadTest, testing::Values(Endian::kLittle, Endian::kBig),
                         [](const testing::TestParamInfo<Endian>& i) {
                           return std::string(i.param == Endian::kLittle ? "Little" : "Big");
                         });

TEST(ParallelReadRefusal, NotForStreamsPipesOrUnordered) {
  PerfDataWriter w(PerfDataWriter::kPipe, Endian::kLittle);
  w.AddAttr(MakeAttr(kSampleIp | kSampleTime));
  auto pipe = testutil::OpenBytes(w.Finish());
  ASSERT_TRUE(pipe.ok());
  EXPECT_FALSE((*pipe)->CanReadInParallel());
  ReadStats st;
  EXPECT_FALSE((*pipe)->ReadRecordsParallel([](const RecordView&, const PerfFile::DecodedSample*) {}, {}, &st).ok());

  PerfDataWriter fw(PerfDataWriter::kFile, Endian::kLittle);
  fw.AddAttr(MakeAttr(kSampleIp | kSampleTime));
  ReaderOptions unordered;
  unordered.ordered = false;
  auto file = testutil::OpenBytes(fw.Finish(), unordered);
  ASSERT_TRUE(file.ok());
  EXPECT_FALSE((*file)->CanReadInParallel());
}

TEST(MeanSampleBytes, TheFirstSamplesOfTheData) {
  PerfDataWriter w(PerfDataWriter::kFile, Endian::kLittle);
  w.AddAttr(MakeAttr(kSampleIp | kSampleTime | kSampleCallchain));
  w.Comm(7, 7, "side-band, not counted", false, SidAt(7, 1));
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 20; ++i) {
      SampleFields s;
      s.ip = 0x1000;
      s.time = 100 + round * 100 + i;
      // 8 (header) + 8 (ip) + 8 (time) + 8 (nr) + 8 * entries: 272 bytes for the
      // first 64, 304 for the 136 after them.
      s.callchain.assign(round * 20 + i < 64 ? 30 : 34, 0x2000);
      w.Sample(0, s);
    }
    w.FinishedRound();
  }
  auto f = testutil::OpenBytes(w.Finish());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->MeanSampleBytes(), (64u * 272 + 136u * 304) / 200);

  PerfDataWriter empty(PerfDataWriter::kFile, Endian::kLittle);
  empty.AddAttr(MakeAttr(kSampleIp | kSampleTime));
  empty.Comm(7, 7, "no samples", false, SidAt(7, 1));
  auto e = testutil::OpenBytes(empty.Finish());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->MeanSampleBytes(), 0u);
}

}  // namespace
}  // namespace perflens
