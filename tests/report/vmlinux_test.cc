// --vmlinux: kernel symbols from an ELF image, relocated by the recorded KASLR anchor
// ([kernel.kallsyms]_text MMAP pgoff) and refused when its build-id differs.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "base/mapped_file.h"
#include "testutil/perf_data_writer.h"
#include "report/report.h"
#include "report/stdio_printer.h"

namespace perflens {
namespace {

using testutil::ByteWriter;
using testutil::PerfDataWriter;
using testutil::SampleFields;

constexpr uint64_t kLinkText = 0xffffffff81000000ULL;     // where the image is linked
constexpr uint64_t kRuntimeText = 0xffffffff91200000ULL;  // where "KASLR" put it

// Builds a tiny kernel-like ET_EXEC linked at kLinkText with _text, kfunc_alpha and
// kfunc_beta; empty string when the toolchain cannot.
std::string BuildFakeVmlinux(const std::string& dir) {
  std::string src = dir + "/vml.c", out = dir + "/vmlinux";
  std::ofstream(src) << "void _text(void) {}\n"
                        "void kfunc_alpha(void) { for (volatile int i = 0; i < 10; i++); }\n"
                        "void kfunc_beta(void) { for (volatile int i = 0; i < 20; i++); }\n"
                        "void _start(void) { kfunc_alpha(); kfunc_beta(); }\n";
  std::string cmd = "cc -O0 -mcmodel=kernel -fno-pie -no-pie -static -nostdlib -Wl,-Ttext=0xffffffff81000000 "
                    "-Wl,--build-id -o " + out + " " + src + " 2>/dev/null";
  return std::system(cmd.c_str()) == 0 ? out : "";
}

uint64_t SymbolAddr(const std::string& elf, const std::string& name) {
  std::string cmd = "nm " + elf + " | awk '$3 == \"" + name + "\" {print $1}'";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[64] = {0};
  if (!p || !fgets(buf, sizeof buf, p)) return 0;
  pclose(p);
  return std::strtoull(buf, nullptr, 16);
}

// Kernel samples at alpha+2 (×3) and beta+3; with `kernel_build_id_byte` set, the
// BUILD_ID feature records that (20-byte repeated) build-id for [kernel.kallsyms].
// One evsel (ip, tid, period), the kernel map of `map_len` bytes at kRuntimeText
// (start = runtime _text, pgoff = runtime address of the anchor) and pid 7 "kworker".
void StartKernelRecording(PerfDataWriter* w, uint64_t map_len) {
  EventAttr a;
  a.type = 1;
  a.size = 128;
  a.sample_type = kSampleIp | kSampleTid | kSamplePeriod;
  a.sample_period = 1000;
  w->AddAttr(a);
  w->Mmap(UINT32_MAX, 0, kRuntimeText, map_len, kRuntimeText, "[kernel.kallsyms]_text", {}, kMiscKernel);
  w->Comm(7, 7, "kworker");
}

void KernelSample(PerfDataWriter* w, uint64_t ip, uint64_t period) {
  SampleFields s;
  s.misc = kMiscKernel;
  s.pid = s.tid = 7;
  s.period = period;
  s.ip = ip;
  w->Sample(0, s);
}

std::vector<uint8_t> KernelRecording(uint64_t alpha_off, uint64_t beta_off, int kernel_build_id_byte = -1) {
  PerfDataWriter w;
  StartKernelRecording(&w, 0x1000000);
  for (int i = 0; i < 3; ++i) KernelSample(&w, kRuntimeText + alpha_off + 2, 1000);
  KernelSample(&w, kRuntimeText + beta_off + 3, 1000);
  if (kernel_build_id_byte >= 0) {
    ByteWriter bid;
    bid.U32(0);
    bid.U16(kMiscKernel);
    bid.U16(36 + 24);
    bid.U32(static_cast<uint32_t>(-1));
    for (int i = 0; i < 20; ++i) bid.U8(static_cast<uint8_t>(kernel_build_id_byte));
    bid.Zeros(4);
    bid.PaddedString("[kernel.kallsyms]", 24);  // 36 + 24 = the header.size written above
    w.AddFeature(kFeatBuildId, bid.bytes());
  }
  return w.Finish();
}

// The stdio report of `bytes` under `o` (no build-id cache), its summary lines in
// *problems and its counters in *counters.
std::string RunReport(const std::vector<uint8_t>& bytes, ReportOptions o, std::vector<std::string>* problems,
                      ReportCounters* counters = nullptr) {
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(bytes));
  EXPECT_TRUE(file.ok());
  o.symbolize.buildid_dir = "/nonexistent";
  auto r = Report::Create(file->get(), o);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE((*r)->Process().ok());
  std::string out;
  EXPECT_TRUE(PrintReportStdio(**r, &out).ok());
  *problems = (*r)->SummaryLines();
  if (counters) *counters = (*r)->counters();
  return out;
}

// The report's "samples|symbol" rows with kernel symbols from `so`.
std::string Report(std::vector<uint8_t> bytes, SymbolizeOptions so, std::vector<std::string>* problems) {
  ReportOptions o;
  o.sort = "sym";
  o.fields = "sample,sym";
  o.field_separator = "|";
  o.symbolize = std::move(so);
  return RunReport(bytes, o, problems);
}

class VmlinuxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-vmlinux-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    vmlinux_ = BuildFakeVmlinux(dir_);
    if (vmlinux_.empty()) GTEST_SKIP() << "cannot link a -mcmodel=kernel test image here";
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_, vmlinux_;
};

TEST_F(VmlinuxTest, SymbolsRelocatedByTheRecordedTextAnchor) {
  uint64_t text = SymbolAddr(vmlinux_, "_text");
  ASSERT_EQ(text, kLinkText);
  uint64_t alpha = SymbolAddr(vmlinux_, "kfunc_alpha") - text;
  uint64_t beta = SymbolAddr(vmlinux_, "kfunc_beta") - text;
  std::vector<std::string> problems;
  std::string out = Report(KernelRecording(alpha, beta), {.vmlinux = vmlinux_}, &problems);
  EXPECT_NE(out.find(" 3          |[k] kfunc_alpha\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" 1          |[k] kfunc_beta\n"), std::string::npos) << out;
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST_F(VmlinuxTest, MismatchingBuildIdIsRefused) {
  uint64_t text = SymbolAddr(vmlinux_, "_text");
  uint64_t alpha = SymbolAddr(vmlinux_, "kfunc_alpha") - text;
  uint64_t beta = SymbolAddr(vmlinux_, "kfunc_beta") - text;
  std::vector<std::string> problems;
  std::string out = Report(KernelRecording(alpha, beta, 0xab), {.vmlinux = vmlinux_}, &problems);
  EXPECT_EQ(out.find("kfunc_alpha"), std::string::npos) << out;
  bool named = false;
  for (const auto& p : problems) named |= p.find("abababab") != std::string::npos;
  EXPECT_TRUE(named) << "summary should name the needed build-id";
}

// The same KASLR shift with a kallsyms file instead of an image: the file's _text is
// where the kernel was linked, the recording's anchor where it ran; symbols move by
// the difference (the prefetched parse is redone with the shift, from the mapped text).
TEST(KallsymsKaslrTest, SymbolsShiftedByTheRecordedAnchor) {
  char tmpl[] = "/tmp/perflens-kallsyms-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, path = dir + "/kallsyms";
  std::ofstream(path) << "ffffffff81000000 T _text\n"
                         "ffffffff81000100 T kfunc_alpha\n"
                         "ffffffff81000200 t kfunc_beta\n"
                         "ffffffff81000300 T kfunc_gamma\n";
  std::vector<std::string> problems;
  const std::string out = Report(KernelRecording(0x100, 0x200), {.kallsyms = path}, &problems);
  auto samples_of = [&](const std::string& row) {  // " 3          |[k] kfunc_alpha"
    size_t at = out.find("|[k] " + row + "\n");
    if (at == std::string::npos) return -1L;
    return std::atol(out.c_str() + out.rfind('\n', at) + 1);
  };
  EXPECT_EQ(samples_of("kfunc_alpha"), 3) << out;
  EXPECT_EQ(samples_of("kfunc_beta"), 1) << out;
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

// Kernel samples read while kallsyms is still being parsed on its helper thread are
// keyed by placeholders and get their symbols after the read: the report is the same as
// when the reader waits. (A large kallsyms makes the first case near certain; the
// comparison holds either way.)
TEST(KallsymsDeferredTest, SameReportWhetherKernelSymbolsWaitOrNot) {
  char tmpl[] = "/tmp/perflens-kallsyms-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, path = dir + "/kallsyms";
  {
    std::ofstream f(path);
    f << fmt::format("{:016x} T _text\n", kRuntimeText);
    for (uint64_t i = 1; i < 300000; ++i) f << fmt::format("{:016x} t kfunc_{}\n", kRuntimeText + 0x40 * i, i);
  }
  PerfDataWriter w;
  StartKernelRecording(&w, 0x2000000);
  for (uint64_t i = 0; i < 3000; ++i) {
    uint64_t ip = kRuntimeText + 0x40 * ((i * 7919) % 500) + 3;  // 500 symbols, repeated
    if (i % 11 == 0) ip = kRuntimeText + 0x1ffff00;               // past the last symbol's page
    KernelSample(&w, ip, 1000 + i % 7);
  }
  const std::vector<uint8_t> bytes = w.Finish();
  auto run = [&](bool defer, uint64_t* deferred) {
    ReportOptions o;
    o.children = false;
    o.call_graph = "none";
    o.sort = "comm,dso,sym";
    o.defer_kernel_symbols = defer;
    o.symbolize.kallsyms = path;
    std::vector<std::string> problems;
    ReportCounters counters;
    std::string out = RunReport(bytes, o, &problems, &counters);
    for (const std::string& line : problems) out += line + "\n";
    *deferred = counters.nr_deferred_kernel_symbols;
    return out;
  };
  uint64_t deferred_on = 0, deferred_off = 0;
  const std::string waited = run(false, &deferred_off);
  const std::string deferred = run(true, &deferred_on);
  EXPECT_EQ(deferred_off, 0u);
  EXPECT_EQ(deferred, waited);
  EXPECT_NE(waited.find("[k] kfunc_7"), std::string::npos) << waited;
  EXPECT_NE(waited.find("samples in a DSO without a symbol there"), std::string::npos) << waited;
  RecordProperty("deferred_kernel_symbols", static_cast<int>(deferred_on));
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace perflens
