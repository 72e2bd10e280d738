// ParseTracingData (perfdata/tracing_data.h) on containers built here in perf's layout
// (trace-event-info.c), both byte orders; and the names it gives tracepoint evsels in
// file mode (TRACING_DATA feature) and pipe mode (bytes after HEADER_TRACING_DATA).
#include "perfdata/tracing_data.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "perfdata/perf_file.h"
#include "testutil/perf_data_writer.h"

namespace perflens {
namespace {

using testutil::ByteWriter;
using testutil::Endian;
using testutil::PerfDataWriter;

constexpr const char* kSwitchFormat =
    "name: sched_switch\nID: 316\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\nprint fmt: \"x\"\n";
constexpr const char* kWakeupFormat = "name: sched_wakeup\nID: 318\nformat:\n\nprint fmt: \"y\"\n";
constexpr const char* kFtraceFormat = "name: function\nID: 1\nformat:\n\nprint fmt: \"f\"\n";

struct Container {
  std::string version = "0.6";
  std::string kallsyms, printk = "0xffffffff81000000 : \"hello\"\n", cmdlines = "1 init\n42 sleep\n";
};

std::vector<uint8_t> MakeTracingData(Endian endian, const Container& c = {}) {
  ByteWriter w(endian);
  const std::string magic = "\x17\x08\x44tracing";
  auto str = [&](const std::string& s) { w.Bytes({reinterpret_cast<const uint8_t*>(s.data()), s.size()}); };
  str(magic);
  str(c.version);
  w.U8(0);
  w.U8(endian == Endian::kBig ? 1 : 0);
  w.U8(8);
  w.U32(4096);
  str(std::string("header_page", 12));
  w.U64(5);
  str("page!");
  str(std::string("header_event", 13));
  w.U64(3);
  str("evt");
  w.U32(1);  // ftrace formats
  w.U64(std::string(kFtraceFormat).size());
  str(kFtraceFormat);
  w.U32(1);  // systems
  str(std::string("sched", 6));
  w.U32(2);
  for (const char* f : {kSwitchFormat, kWakeupFormat}) {
    w.U64(std::string(f).size());
    str(f);
  }
  w.U32(static_cast<uint32_t>(c.kallsyms.size()));
  str(c.kallsyms);
  w.U32(static_cast<uint32_t>(c.printk.size()));
  str(c.printk);
  if (c.version != "0.5") {
    w.U64(c.cmdlines.size());
    str(c.cmdlines);
  }
  return w.bytes();
}

TEST(TracingDataTest, ParsesEveryPart) {
  for (Endian e : {Endian::kLittle, Endian::kBig}) {
    const std::vector<uint8_t> bytes = MakeTracingData(e);
    auto td = ParseTracingData(bytes, 0x100);
    ASSERT_TRUE(td.ok()) << td.error().message;
    EXPECT_EQ(td->version, "0.6");
    EXPECT_EQ(td->big_endian, e == Endian::kBig);
    EXPECT_EQ(td->long_size, 8);
    EXPECT_EQ(td->page_size, 4096u);
    EXPECT_EQ(td->header_page, "page!");
    EXPECT_EQ(td->header_event, "evt");
    ASSERT_EQ(td->ftrace_formats.size(), 1u);
    EXPECT_EQ(td->ftrace_formats[0].system, "ftrace");
    ASSERT_EQ(td->event_formats.size(), 2u);
    EXPECT_EQ(td->event_formats[1].system, "sched");
    EXPECT_EQ(td->event_formats[1].name, "sched_wakeup");
    EXPECT_EQ(td->event_formats[1].id, 318u);
    EXPECT_EQ(td->printk_formats, "0xffffffff81000000 : \"hello\"\n");
    EXPECT_EQ(td->saved_cmdlines, "1 init\n42 sleep\n");
    EXPECT_EQ(td->size, bytes.size());
    EXPECT_EQ(td->EventName(316), "sched:sched_switch");
    EXPECT_EQ(td->EventName(1), "ftrace:function");
    EXPECT_EQ(td->EventName(999), "");
    EXPECT_EQ(td->FindEvent(999), nullptr);
  }
}

TEST(TracingDataTest, Version05HasNoSavedCmdlines) {
  Container c;
  c.version = "0.5";
  std::vector<uint8_t> bytes = MakeTracingData(Endian::kLittle, c);
  bytes.insert(bytes.end(), 8, 0);  // pipe-mode padding: ignored
  auto td = ParseTracingData(bytes, 0);
  ASSERT_TRUE(td.ok()) << td.error().message;
  EXPECT_EQ(td->saved_cmdlines, "");
  EXPECT_EQ(td->size, bytes.size() - 8);
}

// Every prefix of a valid container is refused with a message naming a perf.data
// offset inside it; none reads past the bytes (ASan builds check that).
TEST(TracingDataTest, EveryTruncationIsAnErrorNamingTheOffset) {
  const std::vector<uint8_t> bytes = MakeTracingData(Endian::kLittle);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto td = ParseTracingData({bytes.data(), n}, 0x1000);
    ASSERT_FALSE(td.ok()) << n;
    const std::string& m = td.error().message;
    EXPECT_EQ(m.rfind("tracing data at 0x", 0), 0u) << m;
    const uint64_t at = std::stoull(m.substr(16, m.find(':') - 16), nullptr, 16);
    EXPECT_GE(at, 0x1000u) << m;
    EXPECT_LE(at, 0x1000u + n) << m;
  }
}

TEST(TracingDataTest, ClaimedSizesAreCheckedBeforeCopying) {
  std::vector<uint8_t> bytes = MakeTracingData(Endian::kLittle);
  // header_page's u64 size (after magic 10, "0.6\0" 4, 1 + 1 + 4, "header_page\0" 12).
  const size_t at = 10 + 4 + 6 + 12;
  for (int i = 0; i < 8; ++i) bytes[at + i] = 0xff;
  auto td = ParseTracingData(bytes, 0);
  ASSERT_FALSE(td.ok());
  EXPECT_NE(td.error().message.find("header_page claims 18446744073709551615 bytes"), std::string::npos)
      << td.error().message;
  bytes[0] = 'x';
  td = ParseTracingData(bytes, 0);
  ASSERT_FALSE(td.ok());
  EXPECT_NE(td.error().message.find("tracing data at 0x0: expected the magic"), std::string::npos)
      << td.error().message;
}

EventAttr TracepointAttr(uint64_t config) {
  EventAttr a;
  a.type = kPerfTypeTracepoint;
  a.config = config;
  a.sample_period = 1;
  a.sample_type = kSampleIp | kSampleTid | kSampleTime | kSampleRaw | kSampleIdentifier;
  return a;
}

// Without EVENT_DESC or EVENT_UPDATE names (old recordings), a tracepoint is named
// "system:name" from its format, as perf's evsel__prepare_tracepoint_event does.
TEST(TracingDataTest, NamesTracepointEvselsInFileAndPipeMode) {
  for (auto mode : {PerfDataWriter::kFile, PerfDataWriter::kPipe}) {
    PerfDataWriter w(mode, Endian::kLittle);
    w.AddAttr(TracepointAttr(318), {1});
    w.AddAttr(TracepointAttr(77), {2});  // no format with that ID
    const std::vector<uint8_t> td = MakeTracingData(Endian::kLittle);
    if (mode == PerfDataWriter::kFile) {
      w.AddFeature(kFeatTracingData, td);
    } else {
      // struct perf_record_header_tracing_data: header, u32 size (8-aligned), padding.
      ByteWriter body;
      body.U32(static_cast<uint32_t>(testutil::Align8(td.size())));
      body.U32(0);
      w.Raw(kRecordHeaderTracingData, 0, body.bytes());
      std::vector<uint8_t> padded = td;
      padded.resize(testutil::Align8(td.size()));
      w.RawBytes(padded);
    }
    auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_NE((*file)->env().tracing_data, nullptr);
    ASSERT_EQ((*file)->evsels().size(), 2u);
    EXPECT_EQ((*file)->evsels()[0].name, "sched:sched_wakeup");
    EXPECT_EQ((*file)->evsels()[1].name, "unknown tracepoint");
  }
}

TEST(TracingDataTest, BadTracingDataIsAWarning) {
  PerfDataWriter w(PerfDataWriter::kFile, Endian::kLittle);
  w.AddAttr(TracepointAttr(318), {1});
  std::vector<uint8_t> td = MakeTracingData(Endian::kLittle);
  td.resize(td.size() - 3);
  w.AddFeature(kFeatTracingData, td);
  auto file = PerfFile::FromBytes(MappedFile::FromBuffer(w.Finish()));
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ((*file)->env().tracing_data, nullptr);
  EXPECT_EQ((*file)->evsels()[0].name, "unknown tracepoint");
  ASSERT_FALSE((*file)->env().warnings.empty());
  EXPECT_NE((*file)->env().warnings[0].find("tracing data at 0x"), std::string::npos) << (*file)->env().warnings[0];
}

}  // namespace
}  // namespace perflens
