// Return addresses in callchains: perf 6.1 looks them up as they are, so a call that is
// the last instruction of a function is charged to the next function, which never ran;
// perflens looks callers up at ip - 1 (the default; --no-return-address-adjust: perf's way).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "report/report.h"
#include "report/stdio_printer.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kBase = 0x7f0000001000ULL;

class ReturnAddressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The JIT map is /tmp/perf-<pid>.map: a pid of our own so that tests running in
    // parallel (ctest -j) never share or delete each other's map.
    kPid = 4000000 + static_cast<uint32_t>(getpid());
    map_path_ = "/tmp/perf-" + std::to_string(kPid) + ".map";
    std::ofstream(map_path_) << std::hex << kBase << " 100 ends_with_call\n"
                             << kBase + 0x100 << " 100 next_function\n"
                             << kBase + 0x200 << " 100 leaf\n";
  }
  void TearDown() override { std::remove(map_path_.c_str()); }

  // One sample in `leaf` whose caller's return address is exactly next_function's start
  // (the call was the last instruction of ends_with_call).
  std::string Run(bool adjust, std::vector<uint64_t> chain = {}) {
    PerfDataWriter w;
    EventAttr a;
    a.type = 1;
    a.size = 128;
    a.sample_type = kSampleIp | kSampleTid | kSamplePeriod | kSampleCallchain;
    a.sample_period = 1000;
    w.AddAttr(a);
    w.Comm(kPid, kPid, "jit");
    w.Mmap(kPid, kPid, kBase, 0x1000, 0, "//anon");
    SampleFields s;
    s.pid = s.tid = kPid;
    s.period = 1000;
    s.ip = kBase + 0x210;
    s.callchain = chain.empty() ? std::vector<uint64_t>{kContextUser, kBase + 0x210, kBase + 0x100} : chain;
    w.Sample(0, s);
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
    EXPECT_TRUE(file.ok());
    ReportOptions o;
    o.sort = "sym";
    o.children = true;
    o.call_graph = "none";
    o.field_separator = "|";
    o.adjust_return_addresses = adjust;
    auto r = Report::Create(file->get(), o);
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE((*r)->Process().ok());
    std::string out;
    EXPECT_TRUE(PrintReportStdio(**r, &out).ok());
    return out;
  }
  std::string map_path_;
  uint32_t kPid = 0;
};

TEST_F(ReturnAddressTest, Perf61ChargesTheNextFunction) {
  std::string out = Run(false);
  EXPECT_NE(out.find(" 100.00%| 0.00%  |[.] next_function\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("ends_with_call"), std::string::npos) << out;
}

TEST_F(ReturnAddressTest, AdjustedChargesTheCaller) {
  std::string out = Run(true);
  EXPECT_NE(out.find(" 100.00%| 0.00%  |[.] ends_with_call\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("next_function"), std::string::npos) << out;
}

// A kernel sample (a page fault on next_function's first instruction): the first user
// entry after the kernel part is the interrupted pc, not a return address, so it is
// looked up as it is even with the adjustment; the entries after it are callers.
TEST_F(ReturnAddressTest, InterruptedUserPcIsNotAReturnAddress) {
  const std::vector<uint64_t> chain = {kContextKernel, 0xffffffff81000100ULL, kContextUser, kBase + 0x100,
                                       kBase + 0x210};
  std::string out = Run(true, chain);
  EXPECT_NE(out.find(" 100.00%| 0.00%  |[.] next_function\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[.] 0xffffffff81000100\n"), std::string::npos) << out;  // the kernel part
  EXPECT_EQ(out.find("ends_with_call"), std::string::npos) << out;
}

// An interrupted kernel function's first instruction (the entry after an interrupt's
// entry stub) follows its padding symbol (__pfx_f): ip - 1 is the padding's last byte,
// which no call ends in, so the entry is f's, as perf prints it.
TEST_F(ReturnAddressTest, EntryAfterPaddingSymbolIsTheFunctionItself) {
  std::ofstream(map_path_) << std::hex << kBase << " f0 ends_with_call\n"
                           << kBase + 0xf0 << " 10 __pfx_next_function\n"
                           << kBase + 0x100 << " 100 next_function\n"
                           << kBase + 0x200 << " 100 leaf\n";
  std::string out = Run(true);
  EXPECT_NE(out.find(" 100.00%| 0.00%  |[.] next_function\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("__pfx_"), std::string::npos) << out;
  // A return address inside the padding's symbol but not at its end is adjusted as any.
  out = Run(true, {kContextUser, kBase + 0x210, kBase + 0xf8});
  EXPECT_NE(out.find("[.] __pfx_next_function\n"), std::string::npos) << out;
}

}  // namespace
}  // namespace perflens
