// The synthetic branch-stack recordings of fixtures/branch_synthetic (see its README.md),
// written with tests/testutil's PerfDataWriter over the committed noreturn_call program
// (fixtures/noreturn_call/cache, build-id d04bdcab…): no LBR hardware is needed to test
// LBR call stacks (--call-graph lbr) and `perf record -b` branch stacks, and perf 6.1's
// output on the very same bytes is committed beside them.
#pragma once

#include <cstdint>
#include <vector>

#include "perfdata/perf_event.h"
#include "testutil/perf_data_writer.h"

namespace perflens::scenario {

// The program's text: objdump of fixtures/noreturn_call/cache/…/elf. Mapped at kBase
// (file offset 0x1000 at kBase + 0x1000, as ld.so maps a PIE).
inline constexpr uint64_t kBase = 0x555555554000;
inline constexpr uint64_t kStartCall = kBase + 0x107b;      // _start: call *__libc_start_main
inline constexpr uint64_t kSpinAndExit = kBase + 0x1149;    // spin_and_exit
inline constexpr uint64_t kSpinLoop = kBase + 0x115e;       // spin_and_exit+0x15, in the loop
inline constexpr uint64_t kSpinBranch = kBase + 0x116f;     // spin_and_exit+0x26: jne 1157
inline constexpr uint64_t kSpinLoopTop = kBase + 0x1157;    // spin_and_exit+0xe
inline constexpr uint64_t kEndsWithCall = kBase + 0x117b;   // ends_with_call
inline constexpr uint64_t kEndsCallsSpin = kBase + 0x1191;  // ends_with_call+0x16: call spin_and_exit
inline constexpr uint64_t kNextFunction = kBase + 0x1196;   // next_function
inline constexpr uint64_t kMain = kBase + 0x11a9;           // main
inline constexpr uint64_t kMainCallsEnds = kBase + 0x11be;  // main+0x15: call ends_with_call
inline constexpr uint64_t kMainCallsNext = kBase + 0x11e0;  // main+0x37: call next_function
// A library with no file anywhere: its addresses stay [unknown] for perf and perflens.
inline constexpr uint64_t kLibBase = 0x7f0000000000;
inline constexpr uint64_t kLibCallsMain = kLibBase + 0x1234;
inline constexpr uint64_t kLibEntry = kLibBase + 0x1000;
inline constexpr uint32_t kPid = 4242;

inline std::vector<uint8_t> NoreturnBuildId() {
  const char* hex = "d04bdcab13ec54206383190f319fc1538def7cf7";
  std::vector<uint8_t> id;
  for (int i = 0; i < 40; i += 2) {
    auto nib = [](char c) { return static_cast<uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10); };
    id.push_back(static_cast<uint8_t>(nib(hex[i]) << 4 | nib(hex[i + 1])));
  }
  return id;
}

// Flags words as a little-endian perf writes them (sample.h BranchFlags).
inline uint64_t BranchFlagsWord(bool mispred, bool predicted, uint16_t cycles, uint8_t type = 0) {
  return (mispred ? 1u : 0u) | (predicted ? 2u : 0u) | (uint64_t{cycles} << 4) | (uint64_t{type} << 20);
}

// `call_stack`: an LBR call-stack recording (branch_sample_type USER|CALL_STACK|HW_INDEX,
// user callchain of the leaf alone, no BRANCH_STACK feature: perf record --call-graph
// lbr). Otherwise a `perf record -b` recording (branch_sample_type ANY|USER, the
// BRANCH_STACK feature, no callchain).
inline std::vector<uint8_t> BranchSyntheticData(bool call_stack) {
  using testutil::PerfDataWriter;
  using testutil::SampleFields;
  PerfDataWriter w(PerfDataWriter::kFile, testutil::Endian::kLittle);
  EventAttr a;
  a.type = 0;  // PERF_TYPE_HARDWARE
  a.config = 0;  // cycles
  a.size = 120;
  a.sample_period = 100000;
  a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSamplePeriod | kSampleBranchStack |
                  (call_stack ? uint64_t{kSampleCallchain} : uint64_t{0});
  // disabled, inherit, exclude_kernel, exclude_hv, mmap, comm, enable_on_exec, sample_id_all
  a.flags = (1ULL << 0) | (1ULL << 1) | (1ULL << 5) | (1ULL << 6) | (1ULL << 8) | (1ULL << 9) | (1ULL << 12) |
            (1ULL << 18);
  // PERF_SAMPLE_BRANCH_USER (1) | ANY (8) or CALL_STACK (1 << 11) | HW_INDEX (1 << 17)
  a.branch_sample_type = call_stack ? (1ULL << 0) | kBranchSampleCallStack | kBranchSampleHwIndex : (1ULL << 0) | (1ULL << 3);
  const int ev = w.AddAttr(a, {});
  if (!call_stack) w.AddFeature(kFeatBranchStack, {});
  w.Comm(kPid, kPid, "lbr_demo", true, testutil::SidAt(kPid, 1000));
  PerfDataWriter::Mmap2Fields m;
  m.pid = m.tid = kPid;
  m.start = kBase + 0x1000;
  m.len = 0x1000;
  m.pgoff = 0x1000;
  m.build_id = NoreturnBuildId();
  m.filename = "/tmp/perflens-fixture-noreturn/noreturn_call";
  w.Mmap2(m, testutil::SidAt(kPid, 1001));
  PerfDataWriter::Mmap2Fields lib;
  lib.pid = lib.tid = kPid;
  lib.start = kLibBase;
  lib.len = 0x20000;
  lib.maj = 8;
  lib.ino = 12345;
  lib.filename = "/nonexistent/perflens/libdemo.so";
  w.Mmap2(lib, testutil::SidAt(kPid, 1002));

  uint64_t time = 2000;
  auto sample = [&](uint64_t ip, std::vector<uint64_t> chain, std::vector<BranchEntry> branches, uint64_t hw_idx) {
    SampleFields s;
    s.ip = ip;
    s.pid = s.tid = kPid;
    s.time = time += 1000;
    s.period = 100000;
    s.callchain = std::move(chain);
    s.branches = std::move(branches);
    s.branch_hw_idx = hw_idx;
    w.Sample(ev, s);
  };
  if (call_stack) {
    // Full stacks: spin_and_exit ← ends_with_call ← main ← libdemo ← _start (the
    // hardware's call stack holds only call sites; flags are zero in call-stack mode).
    const std::vector<BranchEntry> full = {{kEndsCallsSpin, kSpinAndExit, 0},
                                           {kMainCallsEnds, kEndsWithCall, 0},
                                           {kLibCallsMain, kMain, 0},
                                           {kStartCall, kLibEntry, 0}};
    for (int i = 0; i < 3; ++i) sample(kSpinLoop, {kContextUser, kSpinLoop}, full, 3);
    // A shorter stack: next_function ← main ← libdemo.
    sample(kNextFunction + 4, {kContextUser, kNextFunction + 4},
           {{kMainCallsNext, kNextFunction, 0}, {kLibCallsMain, kMain, 0}}, 5);
    // No branch entries: perf would read past the record; the recorded chain is used.
    sample(kEndsWithCall + 8, {kContextUser, kEndsWithCall + 8}, {}, 0);
  } else {
    // Branch stacks of `perf record -b`, newest first: the loop's back edge, calls.
    const std::vector<BranchEntry> loop = {{kSpinBranch, kSpinLoopTop, BranchFlagsWord(false, true, 3, 1)},
                                           {kSpinBranch, kSpinLoopTop, BranchFlagsWord(true, false, 7, 1)},
                                           {kEndsCallsSpin, kSpinAndExit, BranchFlagsWord(false, true, 12, 4)},
                                           {kMainCallsEnds, kEndsWithCall, BranchFlagsWord(false, false, 0, 4)},
                                           {kLibCallsMain, kMain, BranchFlagsWord(false, true, 1)}};
    for (int i = 0; i < 2; ++i) sample(kSpinLoop, {}, loop, 0);
    sample(kNextFunction + 4, {},
           {{kMainCallsNext, kNextFunction, BranchFlagsWord(false, true, 2)},
            {kStartCall, kLibEntry, BranchFlagsWord(false, true, 0)}},
           0);
    sample(kEndsWithCall + 8, {}, {}, 0);
  }
  return w.Finish();
}

}  // namespace perflens::scenario
