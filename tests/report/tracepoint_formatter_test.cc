// TracepointFormatter: payload text through libtraceevent, and the size checks made
// before libtraceevent reads a payload (fixed fields, __data_loc offset and length).
#include "report/tracepoint_formatter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "report/script_printer.h"

namespace perflens {
namespace {

constexpr const char* kFormat =
    "name: demo\n"
    "ID: 7\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] label;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"value=%d label=%s\", REC->value, __get_str(label)\n";

TracingData DemoTracingData() {
  TracingData td;
  td.version = "0.6";
  td.long_size = 8;
  td.page_size = 4096;
  TracingEventFormat f;
  f.system = "demo";
  f.text = kFormat;
  f.name = "demo";
  f.id = 7;
  td.event_formats.push_back(f);
  return td;
}

// common fields, value, data_loc(len << 16 | offset), then the string.
std::vector<uint8_t> Payload(int32_t value, uint32_t loc_offset, uint32_t loc_len, const std::string& label) {
  std::vector<uint8_t> p;
  p.reserve(16 + label.size() + 1);
  p.resize(16);
  p[0] = 7;
  std::memcpy(&p[8], &value, 4);
  const uint32_t loc = (loc_len << 16) | loc_offset;
  std::memcpy(&p[12], &loc, 4);
  for (char c : label) p.push_back(static_cast<uint8_t>(c));
  p.push_back(0);
  return p;
}

TEST(TracepointFormatterTest, FormatsThePrintFmt) {
  TracepointFormatter f(DemoTracingData());
  EXPECT_EQ(f.nr_bad_formats(), 0u);
  std::string out;
  ASSERT_TRUE(f.Format(7, 0, Payload(42, 16, 4, "abc"), &out));
  EXPECT_EQ(out, "value=42 label=abc");
  out.clear();
  EXPECT_FALSE(f.Format(8, 0, Payload(42, 16, 4, "abc"), &out));  // no such ID
  EXPECT_EQ(out, "");
}

TEST(TracepointFormatterTest, RefusesPayloadsThatDoNotHoldTheirFields) {
  TracepointFormatter f(DemoTracingData());
  std::string out;
  std::vector<uint8_t> p = Payload(1, 16, 4, "abc");
  EXPECT_FALSE(f.Format(7, 0, std::span(p).first(15), &out));  // the data_loc word is cut
  EXPECT_FALSE(f.Format(7, 0, Payload(1, 0xfff0, 4, "abc"), &out));  // string past the end
  EXPECT_FALSE(f.Format(7, 0, Payload(1, 16, 0xff, "abc"), &out));   // length past the end
  EXPECT_EQ(out, "");
  EXPECT_EQ(f.nr_bad_payloads(), 3u);
}

TEST(TracepointFormatterTest, BadFormatsAreCounted) {
  TracingData td = DemoTracingData();
  TracingEventFormat bad;
  bad.system = "demo";
  bad.text = "this is not a format";
  td.event_formats.push_back(bad);
  TracepointFormatter f(td);
  EXPECT_EQ(f.nr_bad_formats(), 1u);
  std::string out;
  EXPECT_TRUE(f.Format(7, 0, Payload(5, 16, 2, "x"), &out));
  EXPECT_EQ(out, "value=5 label=x");
}

// %pS / %ps arguments name kernel symbols through set_kernel_symbols, as perf's
// machine__resolve_kernel_addr does; without a symbol they stay addresses.
TEST(TracepointFormatterTest, KernelSymbolsInPrintFmt) {
  TracingData td;
  td.version = "0.6";
  td.long_size = 8;
  TracingEventFormat f;
  f.system = "demo";
  f.text =
      "name: calls\nID: 9\nformat:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
      "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n\n"
      "print fmt: \"call_site=%pS fn=%ps\", (void *)REC->call_site, (void *)REC->call_site\n";
  td.event_formats.push_back(f);
  TracepointFormatter formatter(td);
  std::vector<uint8_t> p(16, 0);
  p[0] = 9;
  const uint64_t addr = 0xffffffff81000010;
  std::memcpy(&p[8], &addr, 8);
  std::string out;
  ASSERT_TRUE(formatter.Format(9, 0, p, &out));
  EXPECT_EQ(out, "call_site=0xffffffff81000010 fn=0xffffffff81000010");
  formatter.set_kernel_symbols([](uint64_t a) {
    return a >= 0xffffffff81000000 && a < 0xffffffff81000100
               ? TracepointFormatter::KernelSymbol{"do_work", 0xffffffff81000000}
               : TracepointFormatter::KernelSymbol{};
  });
  out.clear();
  ASSERT_TRUE(formatter.Format(9, 0, p, &out));
  EXPECT_EQ(out, "call_site=do_work+0x10 fn=do_work");
}

Evsel EvselOf(uint32_t type, uint64_t sample_type) {
  Evsel ev;
  ev.name = "e";
  ev.attr.type = type;
  ev.attr.sample_type = sample_type;
  return ev;
}

// perf 6.1's tracepoint defaults: comm, tid, cpu, time, event, trace; with callchains
// the ip, sym, symoff and dso too. `trace` only ever applies to tracepoints.
TEST(TracepointFormatterTest, ScriptDefaultFieldsForTracepoints) {
  const uint64_t st = kSampleIp | kSampleTid | kSampleTime | kSampleCpu | kSampleRaw;
  auto spec = ParseScriptFields("");
  ASSERT_TRUE(spec.ok());
  auto f = ResolveScriptFields(*spec, EvselOf(kPerfTypeTracepoint, st));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, kFieldComm | kFieldTid | kFieldCpu | kFieldTime | kFieldEvent | kFieldTrace);
  f = ResolveScriptFields(*spec, EvselOf(kPerfTypeTracepoint, st | kSampleCallchain));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, kFieldComm | kFieldTid | kFieldCpu | kFieldTime | kFieldEvent | kFieldTrace | kFieldIp | kFieldSym |
                    kFieldSymOff | kFieldDso);
  auto trace = ParseScriptFields("comm,trace");
  ASSERT_TRUE(trace.ok());
  f = ResolveScriptFields(*trace, EvselOf(1, st));  // a software event: trace dropped
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f, kFieldComm);
  f = ResolveScriptFields(*spec, EvselOf(1, st));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f & kFieldTrace, 0u);
  EXPECT_NE(*f & kFieldIp, 0u);
}

}  // namespace
}  // namespace perflens
