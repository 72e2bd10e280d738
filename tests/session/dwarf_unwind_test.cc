// DWARF unwinding in the session on a real recording: tests/unwind/testdata/tiny.data
// (make_tiny.sh: `perf record -e cpu-clock:u --call-graph dwarf,1024` of tiny.c built
// -O2 without frame pointers). The binary comes from the committed build-id cache;
// libc is deliberately absent (an empty --symfs, no cache entry), so every chain ends
// at its first libc frame, which is a "module without an image" stop — as perf 6.1
// shows the same recording with the same cache (its `perf script` printed the frames
// checked below: leaf, mid 0x11f4 (38 times) or 0x1200 (40: its two calls of leaf),
// top 0x1214, main 0x107b, libc 0x27249).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "session/session.h"

namespace perflens {
namespace {

std::string Testdata() { return std::string(PERFLENS_SOURCE_DIR) + "/tests/unwind/testdata"; }

struct Chains : SampleConsumer {
  std::vector<std::string> chains;  // "name@dso_addr < ..." leaf first
  void OnSample(const ResolvedSample& s) override {
    std::string text;
    auto add = [&](uint64_t ip, const AddrLocation& al) {
      if (!text.empty()) text += " < ";
      text += fmt::format("{}@{:x}", al.sym ? al.sym->name : std::string_view("?"), al.dso ? al.dso_addr : ip);
    };
    if (s.frame_source) {
      WalkCallchain(
          s.raw_callchain, s.frame_source->max_stack(), false,
          [&](uint64_t ip, uint16_t mode, bool) { add(ip, s.frame_source->Resolve(s.thread, mode, ip)); },
          s.raw_unwound_begin);
    }
    for (const CallchainFrame& f : s.callchain) add(f.ip, f.al);
    chains.push_back(text);
  }
};

// tiny.data with its data section rebuilt: edit(type, record, &data) sees each record
// in order and appends what it wants in its place; the header's data size and the
// feature table's offsets follow.
std::vector<uint8_t> RebuiltTiny(
    const std::function<void(uint32_t type, std::vector<uint8_t> rec, std::vector<uint8_t>* data)>& edit) {
  std::ifstream in(Testdata() + "/tiny.data", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(bytes.size(), 104u);
  if (bytes.size() <= 104) return bytes;
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
  };
  auto put64 = [&](size_t at, uint64_t v) { std::memcpy(bytes.data() + at, &v, 8); };
  // perf_file_header: data {offset, size} at 40; the feature table follows the data.
  const uint64_t data_offset = u64(40), data_size = u64(48);
  std::vector<uint8_t> data;
  for (size_t at = data_offset; at + 8 <= data_offset + data_size;) {
    uint32_t type;
    uint16_t size;
    std::memcpy(&type, bytes.data() + at, 4);
    std::memcpy(&size, bytes.data() + at + 6, 2);
    EXPECT_GE(size, 8u);
    if (size < 8) break;
    edit(type,
         std::vector<uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                              bytes.begin() + static_cast<std::ptrdiff_t>(at + size)),
         &data);
    at += size;
  }
  const int64_t delta = static_cast<int64_t>(data.size()) - static_cast<int64_t>(data_size);
  std::vector<uint8_t> rest(bytes.begin() + static_cast<std::ptrdiff_t>(data_offset + data_size), bytes.end());
  bytes.resize(data_offset);
  bytes.insert(bytes.end(), data.begin(), data.end());
  bytes.insert(bytes.end(), rest.begin(), rest.end());
  put64(48, data.size());
  int features = 0;
  for (size_t i = 72; i < 104; ++i) features += __builtin_popcount(bytes[i]);
  for (int f = 0; f < features; ++f) {
    const size_t entry = data_offset + data.size() + 16 * static_cast<size_t>(f);
    put64(entry, u64(entry) + static_cast<uint64_t>(delta));
  }
  return bytes;
}

class DwarfUnwindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-unwind-symfs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    symfs_ = tmpl;
  }
  void TearDown() override { rmdir(symfs_.c_str()); }

  Chains Run(SampleNeeds needs, int max_stack, SessionCounters* counters, std::vector<std::string>* problems,
             bool use_threads = true) {
    Chains c;
    auto file = PerfFile::Open(Testdata() + "/tiny.data");
    EXPECT_TRUE(file.ok()) << file.error().message;
    if (!file.ok()) return c;
    SessionOptions o;
    o.symbolize.symfs = symfs_;
    o.symbolize.buildid_dir = Testdata() + "/cache";
    o.needs = {needs};
    o.max_stack = max_stack;
    o.use_threads = use_threads;
    auto session = Session::Open(file->get(), o);
    session->AddConsumer(&c);
    EXPECT_TRUE(session->Run().ok());
    *counters = session->counters();
    *problems = session->ProblemLines();
    return c;
  }
  // A session over a rebuilt recording in memory (RebuiltTiny), as Run.
  Chains RunBytes(const std::vector<uint8_t>& bytes, SampleNeeds needs, bool use_threads, SessionCounters* counters) {
    Chains c;
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
    EXPECT_TRUE(file.ok()) << file.error().message;
    if (!file.ok()) return c;
    SessionOptions o;
    o.symbolize.symfs = symfs_;
    o.symbolize.buildid_dir = Testdata() + "/cache";
    o.needs = {needs};
    o.use_threads = use_threads;
    auto session = Session::Open(file->get(), o);
    session->AddConsumer(&c);
    EXPECT_TRUE(session->Run().ok());
    *counters = session->counters();
    return c;
  }
  std::string symfs_;
};

TEST_F(DwarfUnwindTest, UnwindsThroughTheProgramAsPerf) {
  for (bool on_demand : {false, true}) {
    SessionCounters c;
    std::vector<std::string> problems;
    Chains chains = Run(SampleNeeds{true, true, on_demand}, 127, &c, &problems);
    ASSERT_EQ(chains.chains.size(), 79u);
    size_t first_call = 0, second_call = 0;
    for (const std::string& chain : chains.chains) {
      if (chain.rfind("leaf@", 0) != 0) continue;
      // The sampled pc as is, callers at return address - 1 (perf's addresses).
      const size_t mid = chain.find(" < ");
      ASSERT_NE(mid, std::string::npos) << chain;
      const std::string callers = chain.substr(mid);
      first_call += callers == " < mid@11f4 < top@1214 < main@107b < ?@27249";
      second_call += callers == " < mid@1200 < top@1214 < main@107b < ?@27249";
    }
    EXPECT_EQ(first_call, 38u) << "on_demand " << on_demand;
    EXPECT_EQ(second_call, 40u) << "on_demand " << on_demand;
    EXPECT_EQ(c.nr_unwound, 79u);
    EXPECT_EQ(c.unwind_stops[static_cast<size_t>(UnwindStop::kNoImage)], 79u);
    EXPECT_EQ(c.first_unwind_stop, UnwindStop::kNoImage);
    EXPECT_NE(c.first_unwind_stop_offset, 0u);
    bool said = false;
    for (const std::string& p : problems)
      said |= p.find("(79/79) DWARF-unwound user stacks stopped early: 79 module without an image") != std::string::npos;
    EXPECT_TRUE(said) << testing::PrintToString(problems);
  }
}

// With threads the samples of a run that changes no maps are unwound on all cores
// ahead of their processing (Session::StartUnwindAhead); the chains and the counters are
// those of one thread, in the same order.
TEST_F(DwarfUnwindTest, SameChainsOnOneThreadAndOnAllCores) {
  for (bool on_demand : {false, true}) {
    SessionCounters one, all;
    std::vector<std::string> problems_one, problems_all;
    Chains a = Run(SampleNeeds{true, true, on_demand}, 127, &one, &problems_one, false);
    Chains b = Run(SampleNeeds{true, true, on_demand}, 127, &all, &problems_all, true);
    ASSERT_EQ(a.chains.size(), 79u);
    EXPECT_EQ(a.chains, b.chains);
    EXPECT_EQ(one.nr_unwound, all.nr_unwound);
    for (size_t k = 0; k < static_cast<size_t>(UnwindStop::kCount); ++k)
      EXPECT_EQ(one.unwind_stops[k], all.unwind_stops[k]) << UnwindStopName(static_cast<UnwindStop>(k));
    EXPECT_EQ(one.first_unwind_stop_offset, all.first_unwind_stop_offset);
    EXPECT_EQ(problems_one, problems_all);
  }
}

TEST_F(DwarfUnwindTest, MaxStackLimitsTheUnwoundPart) {
  SessionCounters c;
  std::vector<std::string> problems;
  Chains chains = Run(SampleNeeds{true, true, false}, 2, &c, &problems);
  ASSERT_EQ(chains.chains.size(), 79u);
  for (const std::string& chain : chains.chains) {
    if (chain.rfind("leaf@", 0) == 0) {
      EXPECT_EQ(chain.substr(chain.find(" < "), 8), " < mid@1");
    }
  }
  // The one sample in ld.so stops at its first frame, before the limit.
  EXPECT_EQ(c.unwind_stops[static_cast<size_t>(UnwindStop::kMaxFrames)], 78u);
  EXPECT_EQ(c.unwind_stops[static_cast<size_t>(UnwindStop::kNoImage)], 1u);
}

TEST_F(DwarfUnwindTest, NoCallchainNoUnwinding) {
  SessionCounters c;
  std::vector<std::string> problems;
  Chains chains = Run(SampleNeeds{true, false, false}, 127, &c, &problems);
  EXPECT_EQ(chains.chains.size(), 79u);
  EXPECT_EQ(c.nr_unwound, 0u);
}

// A recording killed before perf wrote its features has no HEADER_ARCH: like perf
// (perf_env__arch), the session takes the running machine's, so the user stacks are
// still unwound (a new user's killed recording was all "unsupported arch" stops).
TEST_F(DwarfUnwindTest, NoArchFeatureMeansThisMachinesArch) {
  struct utsname u;
  ASSERT_EQ(uname(&u), 0);
  if (std::string(u.machine) != "x86_64") GTEST_SKIP() << "tiny.data is an x86_64 recording";
  std::ifstream in(Testdata() + "/tiny.data", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 104u);
  std::fill(bytes.begin() + 72, bytes.begin() + 104, 0);  // perf_file_header.adds_features: none
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
  ASSERT_TRUE(file.ok()) << file.error().message;
  SessionOptions o;
  o.symbolize.symfs = symfs_;
  o.symbolize.buildid_dir = Testdata() + "/cache";
  o.needs = {SampleNeeds{true, true, false}};
  auto session = Session::Open(file->get(), o);
  Chains c;
  session->AddConsumer(&c);
  ASSERT_TRUE(session->Run().ok());
  const SessionCounters& k = session->counters();
  EXPECT_EQ(k.nr_unwound, 79u);
  EXPECT_EQ(k.unwind_stops[static_cast<size_t>(UnwindStop::kUnsupportedArch)], 0u);
  ASSERT_EQ(c.chains.size(), 79u);
  for (const std::string& chain : c.chains) EXPECT_FALSE(chain.empty()) << "the sampled pc is the first frame";
}

// A sample unwound on demand (its thread unknown when the run was unwound ahead) after
// the pool had unwound a run, then another run unwound ahead: the on-demand unwinder
// once replaced the CfiSources the pool's unwinders held (a use-after-free that
// aborted `perflens script` on a `perf record -a --call-graph dwarf` recording; ASan
// reports it here). Built from tiny.data: run 1 is sample 1 sixteen times (so that its
// rows are all the pool's caches hold) and sample 2 moved to an unknown thread, then a
// COMM record, then run 2, samples 3.. (pcs not seen before, so the CfiSources are used).
TEST_F(DwarfUnwindTest, OnDemandUnwindBetweenRunsUnwoundAhead) {
  // Sample 0 (alone among the MMAP2s, it would be unwound on demand before any run)
  // is left out.
  int sample = -1;
  std::vector<uint8_t> bytes = RebuiltTiny([&](uint32_t type, std::vector<uint8_t> rec, std::vector<uint8_t>* data) {
    if (type != 9) {
      data->insert(data->end(), rec.begin(), rec.end());
      return;
    }
    if (++sample == 0) return;
    const int copies = sample == 1 ? 16 : 1;
    // Sample layout (IP|TID|TIME|...): header, ip, pid, tid, time.
    if (sample == 2) {
      const uint32_t unknown[2] = {99, 99};
      std::memcpy(rec.data() + 16, unknown, 8);
    }
    for (int i = 0; i < copies; ++i) data->insert(data->end(), rec.begin(), rec.end());
    if (sample == 2) {
      std::vector<uint8_t> comm(40, 0);  // header, pid, tid, "tiny\0" padded, sample_id (pid, tid, time)
      const uint32_t header[2] = {3, 40u << 16};
      const uint32_t tiny[2] = {532, 532};  // tiny.c's process in make_tiny.sh's recording
      std::memcpy(comm.data(), header, 8);
      std::memcpy(comm.data() + 8, tiny, 8);
      std::memcpy(comm.data() + 16, "tiny", 4);
      std::memcpy(comm.data() + 24, tiny, 8);
      uint64_t time;
      std::memcpy(&time, rec.data() + 24, 8);
      ++time;
      std::memcpy(comm.data() + 32, &time, 8);
      data->insert(data->end(), comm.begin(), comm.end());
    }
  });
  ASSERT_EQ(sample, 78);

  SessionCounters one, all;
  Chains a = RunBytes(bytes, SampleNeeds{true, true, false}, false, &one),
         b = RunBytes(bytes, SampleNeeds{true, true, false}, true, &all);
  ASSERT_EQ(a.chains.size(), 93u);
  EXPECT_EQ(a.chains, b.chains);
  EXPECT_EQ(one.nr_unwound, all.nr_unwound);
  for (size_t k = 0; k < static_cast<size_t>(UnwindStop::kCount); ++k)
    EXPECT_EQ(one.unwind_stops[k], all.unwind_stops[k]) << UnwindStopName(static_cast<UnwindStop>(k));
  // The samples after the COMM were unwound through tiny's own frames.
  size_t through_main = 0;
  for (size_t i = 17; i < b.chains.size(); ++i) through_main += b.chains[i].find("main@") != std::string::npos;
  EXPECT_EQ(through_main, b.chains.size() - 17);
  EXPECT_EQ(b.chains[16].find("main@"), std::string::npos) << "thread 99 has no maps: " << b.chains[16];
}

// Many read batches (tiny.data's samples 100 times over, ~8K records of 1.1 KB: a batch
// ends at 4 MiB of records): the next batch's first run is unwound on the helpers while
// this batch's last run is processed (Session::HandleReadBatch). One sample of an
// unknown thread in the middle creates that thread as it is processed, which the
// helpers must not see happen: the batch after it is not unwound early. Chains and
// counters are those of one thread, in both delivery modes.
TEST_F(DwarfUnwindTest, SameChainsWhenTheNextBatchIsUnwoundDuringThisOne) {
  constexpr int kRepeats = 100;
  std::vector<std::vector<uint8_t>> samples;
  RebuiltTiny([&](uint32_t type, std::vector<uint8_t> rec, std::vector<uint8_t>*) {
    if (type == 9) samples.push_back(std::move(rec));
  });
  ASSERT_EQ(samples.size(), 79u);
  // In place of the first sample, the samples kRepeats times over with rising times.
  std::vector<uint8_t> repeated;
  for (int k = 0; k < kRepeats; ++k) {
    for (size_t i = 0; i < samples.size(); ++i) {
      std::vector<uint8_t> rec = samples[i];  // header, ip, pid, tid, time, ...
      uint64_t time;
      std::memcpy(&time, rec.data() + 24, 8);
      time += static_cast<uint64_t>(k) * 1000000000ULL;
      std::memcpy(rec.data() + 24, &time, 8);
      if (k == kRepeats / 2 && i == 40) {
        const uint32_t unknown[2] = {99, 99};
        std::memcpy(rec.data() + 16, unknown, 8);
      }
      repeated.insert(repeated.end(), rec.begin(), rec.end());
    }
  }
  const std::vector<uint8_t> bytes = RebuiltTiny([&](uint32_t type, std::vector<uint8_t> rec, std::vector<uint8_t>* data) {
    if (type != 9) {
      data->insert(data->end(), rec.begin(), rec.end());
    } else if (!repeated.empty()) {
      data->insert(data->end(), repeated.begin(), repeated.end());
      repeated.clear();
    }
  });
  for (bool on_demand : {false, true}) {
    SCOPED_TRACE(on_demand ? "on demand" : "eager");
    SessionCounters one, all;
    Chains a = RunBytes(bytes, SampleNeeds{true, true, on_demand}, false, &one),
           b = RunBytes(bytes, SampleNeeds{true, true, on_demand}, true, &all);
    ASSERT_EQ(a.chains.size(), samples.size() * kRepeats);
    EXPECT_EQ(a.chains, b.chains);
    EXPECT_EQ(one.nr_unwound, all.nr_unwound);
    for (size_t k = 0; k < static_cast<size_t>(UnwindStop::kCount); ++k)
      EXPECT_EQ(one.unwind_stops[k], all.unwind_stops[k]) << UnwindStopName(static_cast<UnwindStop>(k));
    EXPECT_EQ(one.first_unwind_stop_offset, all.first_unwind_stop_offset);
  }
}

}  // namespace
}  // namespace perflens
