// LbrChain: perf's resolve_lbr_callchain_sample (LBR call-stack mode) on hand-made
// samples — the kernel part kept, the recorded user part replaced by entries[0].to and
// every entries[i].from, each behind a PERF_CONTEXT_USER so WalkCallchain takes it as an
// exact user entry.
#include <gtest/gtest.h>

#include <vector>

#include "perfdata/perf_event.h"
#include "session/callchain.h"

namespace perflens {
namespace {

U64Array View(const std::vector<uint64_t>& v) { return {reinterpret_cast<const uint8_t*>(v.data()), v.size(), false}; }

struct Walked {
  uint64_t ip;
  uint16_t cpumode;
  bool exact;
};

std::vector<Walked> Walk(const std::vector<uint64_t>& chain, int max_stack = 127) {
  std::vector<Walked> out;
  EXPECT_TRUE(WalkCallchain(View(chain), max_stack, false,
                            [&](uint64_t ip, uint16_t mode, bool exact) { out.push_back({ip, mode, exact}); }));
  return out;
}

TEST(LbrChain, UserPartComesFromTheCallStack) {
  const std::vector<uint64_t> chain = {kContextKernel, 0xffffffff81000010, 0xffffffff81000020,
                                       kContextUser,   0x401155,           0xdeadbeef};
  const std::vector<uint64_t> entries = {0x401191, 0x401149, 0, 0x4011be, 0x40117b, 0, 0x40107b, 0x7f0000001000, 0};
  Sample s;
  s.callchain = View(chain);
  s.branch_entries = View(entries);
  s.branch_nr = 3;
  std::vector<uint64_t> out;
  ASSERT_TRUE(LbrChain(s, &out, 127));
  EXPECT_EQ(out, (std::vector<uint64_t>{kContextKernel, 0xffffffff81000010, 0xffffffff81000020, kContextUser,
                                        kContextUser, 0x401149, kContextUser, 0x401191, kContextUser, 0x4011be,
                                        kContextUser, 0x40107b}));
  const std::vector<Walked> w = Walk(out);
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0].cpumode, kMiscKernel);
  EXPECT_TRUE(w[0].exact);
  EXPECT_FALSE(w[1].exact);  // a kernel return address
  for (size_t i = 2; i < w.size(); ++i) {
    EXPECT_EQ(w[i].cpumode, kMiscUser);
    EXPECT_TRUE(w[i].exact) << i;  // call sites and the function entry: no ip - 1
  }
  EXPECT_EQ(w[2].ip, 0x401149u);
  EXPECT_EQ(w[5].ip, 0x40107bu);
}

TEST(LbrChain, FallsBackToTheRecordedChain) {
  const std::vector<uint64_t> entries = {0x401191, 0x401149, 0};
  const std::vector<uint64_t> kernel_only = {kContextKernel, 0xffffffff81000010};
  const std::vector<uint64_t> user = {kContextUser, 0x401155};
  std::vector<uint64_t> out = {1, 2, 3};
  Sample s;
  s.branch_entries = View(entries);
  s.branch_nr = 1;
  s.callchain = View(kernel_only);
  EXPECT_FALSE(LbrChain(s, &out, 127)) << "no user part: perf falls back";
  s.callchain = View(user);
  EXPECT_FALSE(LbrChain(s, &out, 0)) << "the USER marker past --max-stack";
  s.branch_nr = 0;
  EXPECT_FALSE(LbrChain(s, &out, 127)) << "no entries: perf would read past the record";
  s.branch_nr = 1;
  ASSERT_TRUE(LbrChain(s, &out, 127));
  EXPECT_EQ(out, (std::vector<uint64_t>{kContextUser, kContextUser, 0x401149, kContextUser, 0x401191}));
}

}  // namespace
}  // namespace perflens
