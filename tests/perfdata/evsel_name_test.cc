// SynthesizeEvselName against names perf 6.1 prints (evsel__name + evsel__add_modifiers).
#include <gtest/gtest.h>

#include "perfdata/perf_file.h"

namespace perflens {
namespace {

EventAttr Attr(uint32_t type, uint64_t config, std::initializer_list<int> flags = {}, int precise = 0) {
  EventAttr a;
  a.type = type;
  a.config = config;
  for (int bit : flags) a.flags |= 1ULL << bit;
  a.flags |= static_cast<uint64_t>(precise) << 15;
  return a;
}

constexpr int kExclUser = 4, kExclKernel = 5, kExclHv = 6, kExclHost = 19, kExclGuest = 20;

TEST(EvselNameTest, HardwareSoftwareAndModifiers) {
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 0, {kExclGuest})), "cycles");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 0)), "cycles:HG");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 1, {kExclUser, kExclHv})), "instructions:k");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 1, {kExclKernel, kExclHv, kExclGuest})), "instructions:uH");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 0, {kExclGuest}, 3)), "cycles:pppH");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 0, {kExclKernel, kExclHv}, 1)), "cycles:up");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 9, {kExclGuest})), "ref-cycles");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 10, {kExclGuest})), "unknown-hardware");
  EXPECT_EQ(SynthesizeEvselName(Attr(0, 0x400000000ULL, {kExclGuest})), "cycles");  // hybrid pmu in high bits
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 0, {kExclGuest})), "cpu-clock");
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 9, {kExclKernel, kExclHv})), "dummy:u");
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 9)), "dummy:HG");
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 6, {kExclGuest})), "major-faults");
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 11, {kExclGuest})), "cgroup-switches");
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 99, {kExclGuest})), "unknown-software");
  EXPECT_EQ(SynthesizeEvselName(Attr(1, 0, {kExclHost})), "cpu-clock:G");
}

TEST(EvselNameTest, CacheRawTracepointBreakpointOther) {
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x10000, {kExclGuest})), "L1-dcache-load-misses");
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x0, {kExclGuest})), "L1-dcache-loads");
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x10102, {kExclGuest})), "LLC-store-misses");
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x101, {kExclGuest})), "invalid-cache");  // L1I has no store
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x5, {kExclGuest})), "branch-loads");
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x7, {kExclGuest})), "unknown-ext-hardware-cache-type");
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x300, {kExclGuest})), "unknown-ext-hardware-cache-op");
  EXPECT_EQ(SynthesizeEvselName(Attr(3, 0x20000, {kExclGuest})), "unknown-ext-hardware-cache-result");
  EXPECT_EQ(SynthesizeEvselName(Attr(4, 0xc4, {kExclGuest})), "raw 0xc4");
  EXPECT_EQ(SynthesizeEvselName(Attr(4, 0x1b, {kExclKernel, kExclHv})), "raw 0x1b:u");
  EXPECT_EQ(SynthesizeEvselName(Attr(2, 312)), "unknown tracepoint");
  EventAttr bp = Attr(5, 0, {kExclGuest});
  bp.config1 = 0x1000;
  bp.bp_type = 3;
  EXPECT_EQ(SynthesizeEvselName(bp), "mem:0x1000:rw");
  EXPECT_EQ(SynthesizeEvselName(Attr(8, 0x10008000)), "unknown attr type: 8");
}

}  // namespace
}  // namespace perflens
