// DWARF unwinding of aarch64 user stacks against the truth: tests/unwind/testdata/arm64
// (make_arm64.sh) holds an aarch64 build of scenario/programs/dwarf_levels.c (-O2, no
// frame pointers, non-PIE) and, for six stops of it under qemu-aarch64, the registers
// in perf's arm64 order, 4 KB of stack from sp, and the chain gdb unwinds there (with
// the program's DWARF; tail-call frames left out). Each stop becomes a one-sample
// `perf record --call-graph dwarf` recording of an aarch64 machine (HEADER_ARCH
// "aarch64", REGS_USER x0..x30/sp/pc, STACK_USER 4096), which the session unwinds with
// the binary's .eh_frame: the chain must be gdb's — the sampled pc, then each return
// address - 1 (perf's caller addresses) — through a leaf whose return address is still
// in x30, a prologue before and after `str x30, [sp, #-16]!`, and a tail call
// (Checksum's `b LeafSum`: LeafSum returns to RunRounds). The libc below main is not in
// the fixture: its return address is the last frame (a pc in no map), as perf prints it.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "testutil/perf_data_writer.h"
#include "session/session.h"

namespace perflens {
namespace {

using testutil::PerfDataWriter;
using testutil::SampleFields;

std::string Arm64Dir() { return std::string(PERFLENS_SOURCE_DIR) + "/tests/unwind/testdata/arm64"; }

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<uint64_t> HexWords(const std::string& text) {
  std::vector<uint64_t> v;
  std::istringstream in(text);
  std::string w;
  while (in >> w) v.push_back(std::stoull(w, nullptr, 16));
  return v;
}

struct Chain : SampleConsumer {
  std::vector<std::string> frames;  // "sym@ip", leaf first; "?" for no symbol
  void OnSample(const ResolvedSample& s) override {
    for (const CallchainFrame& f : s.callchain)
      frames.push_back(fmt::format("{}@{:x}", f.al.sym ? f.al.sym->name : std::string_view("?"), f.ip));
  }
};

// One sample of `stop` as perf record writes it on an aarch64 machine.
std::vector<uint8_t> Recording(const std::string& stop) {
  PerfDataWriter w;
  EventAttr a;
  a.type = 1;  // PERF_TYPE_SOFTWARE cpu-clock
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSamplePeriod | kSampleCallchain | kSampleRegsUser | kSampleStackUser;
  a.sample_period = 1000;
  a.sample_regs_user = (uint64_t{1} << 33) - 1;  // PERF_REG_ARM64_X0 .. _PC
  a.sample_stack_user = 4096;
  w.AddAttr(a);
  w.AddFeature(kFeatArch, w.FeatureString("aarch64"));
  constexpr uint32_t kPid = 4242;
  w.Comm(kPid, kPid, "dwarf_arm64");
  PerfDataWriter::Mmap2Fields m;
  m.pid = m.tid = kPid;
  m.start = 0x400000;  // the text segment of the non-PIE build, offset 0
  m.len = 0x1000;
  m.filename = Arm64Dir() + "/dwarf_arm64";
  w.Mmap2(m);
  SampleFields s;
  s.pid = s.tid = kPid;
  s.period = 1000;
  s.user_regs = HexWords(ReadText(Arm64Dir() + "/" + stop + ".regs"));
  EXPECT_EQ(s.user_regs.size(), 33u) << stop;
  s.ip = s.user_regs.empty() ? 0 : s.user_regs.back();
  s.user_regs_abi = 2;  // PERF_SAMPLE_REGS_ABI_64
  const std::string stack = ReadText(Arm64Dir() + "/" + stop + ".stack");
  EXPECT_EQ(stack.size(), 4096u) << stop;
  s.user_stack.assign(stack.begin(), stack.end());
  s.user_stack_dyn_size = stack.size();
  w.Sample(0, s);
  return w.Finish();
}

// The session's chain of `stop`'s one sample, and its counters.
Chain Unwound(const std::string& stop, SessionCounters* counters) {
  Chain c;
  const std::vector<uint8_t> bytes = Recording(stop);
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
  EXPECT_TRUE(file.ok()) << file.error().message;
  if (!file.ok()) return c;
  SessionOptions o;
  o.symbolize.buildid_dir = "/nonexistent";
  o.needs = {SampleNeeds{true, true, false}};
  auto session = Session::Open(file->get(), o);
  session->AddConsumer(&c);
  EXPECT_TRUE(session->Run().ok());
  *counters = session->counters();
  return c;
}

class Arm64UnwindTest : public ::testing::TestWithParam<const char*> {};

TEST_P(Arm64UnwindTest, ChainIsGdbs) {
  const std::string stop = GetParam();
  SessionCounters k;
  const Chain c = Unwound(stop, &k);
  const std::vector<uint64_t> truth = HexWords(ReadText(Arm64Dir() + "/" + stop + ".chain"));
  ASSERT_GE(truth.size(), 3u);
  ASSERT_EQ(c.frames.size(), truth.size()) << testing::PrintToString(c.frames);
  for (size_t i = 0; i < truth.size(); ++i) {
    const uint64_t ip = i == 0 ? truth[i] : truth[i] - 1;  // callers at return address - 1
    const std::string& frame = c.frames[i];
    EXPECT_EQ(frame.substr(frame.find('@') + 1), fmt::format("{:x}", ip)) << "frame " << i << " of " << stop;
  }
  EXPECT_EQ(c.frames[c.frames.size() - 2].substr(0, 5), "main@") << "gdb's chain ends past main";
  EXPECT_EQ(c.frames.back().substr(0, 2), "?@") << "libc, not in the fixture";
  EXPECT_EQ(k.nr_unwound, 1u);
  EXPECT_EQ(k.unwind_stops[static_cast<size_t>(UnwindStop::kNoMap)], 1u) << "stopped at libc's pc only";
}

INSTANTIATE_TEST_SUITE_P(Stops, Arm64UnwindTest,
                         ::testing::Values("rotl_leaf", "leafmix_prologue", "leafmix_body", "leafsum_from_middle",
                                           "leafsum_tail_call", "now_after_call"));

// The names along the chains, from the ELF symbols of the build (its DWARF is stripped).
TEST(Arm64UnwindNames, TailCallAndLeafChains) {
  auto names = [](const std::string& stop) {
    SessionCounters k;
    const Chain c = Unwound(stop, &k);
    std::string text;
    for (const std::string& f : c.frames) text += (text.empty() ? "" : " < ") + f.substr(0, f.find('@'));
    return text;
  };
  EXPECT_EQ(names("leafsum_tail_call"), "LeafSum < RunRounds < main < ?");
  EXPECT_EQ(names("rotl_leaf"), "Rotl.constprop.0 < LeafMix.constprop.0 < Middle < Outer < RunRounds < main < ?");
}

}  // namespace
}  // namespace perflens
