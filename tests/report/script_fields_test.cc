// perf script's -F rules (perf 6.1 builtin-script.c parse_output_fields and
// evsel__check_attr): per-type lists, repeated -F, +f/-f, and perf's error texts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfdata/perf_event.h"
#include "report/script_printer.h"

namespace perflens {
namespace {

constexpr uint32_t kSoftware = 1;
constexpr uint64_t kBasic = kSampleIp | kSampleTid | kSampleTime;  // cpu-clock without -a

Evsel EvselOf(uint32_t type, uint64_t sample_type, const char* name) {
  Evsel ev;
  ev.name = name;
  ev.attr.type = type;
  ev.attr.sample_type = sample_type;
  return ev;
}

Result<ScriptFieldSpec> Parse(std::vector<std::string> args) { return ParseScriptFields(args); }

std::string ErrorOf(std::vector<std::string> args) {
  auto spec = Parse(std::move(args));
  return spec ? std::string("(ok)") : spec.error().message;
}

// The fields `args` give an evsel of `type` with `sample_type`, or the error text.
std::string Resolve(std::vector<std::string> args, uint32_t type, uint64_t sample_type, uint32_t* fields,
                    bool use_callchain = true) {
  auto spec = Parse(std::move(args));
  if (!spec) return spec.error().message;
  const std::vector<Evsel> evsels = {EvselOf(type, sample_type, type == kPerfTypeTracepoint ? "sched:x" : "cpu-clock")};
  auto f = ResolveEvselFields(*spec, evsels, use_callchain);
  if (!f) return f.error().message;
  *fields = (*f)[0];
  return "";
}

TEST(ScriptFieldListsTest, TypePrefixSetsThatTypeOnly) {
  auto spec = Parse({"sw:comm,tid,ip,sym", "trace:comm,trace"});
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->types[kOutputSoftware].fields, kFieldComm | kFieldTid | kFieldIp | kFieldSym);
  EXPECT_EQ(spec->types[kOutputTracepoint].fields, kFieldComm | kFieldTrace);
  // The others keep perf's defaults.
  EXPECT_EQ(spec->types[kOutputHardware].fields, ScriptFieldSpec().types[kOutputHardware].fields);
  EXPECT_FALSE(spec->types[kOutputHardware].user_set);
  EXPECT_TRUE(spec->warnings.empty());
}

TEST(ScriptFieldListsTest, LaterListsOverrideEarlierOnesWithPerfsWarning) {
  auto spec = Parse({"sw:ip", "comm"});  // a list without type: replaces every type's
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->types[kOutputSoftware].fields, kFieldComm);
  EXPECT_EQ(spec->warnings, std::vector<std::string>{"Overriding previous field request for all events."});
  spec = Parse({"comm", "sw:ip"});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->types[kOutputSoftware].fields, kFieldIp);
  EXPECT_EQ(spec->types[kOutputHardware].fields, kFieldComm);
  EXPECT_EQ(spec->warnings, std::vector<std::string>{"Overriding previous field request for software events."});
  spec = Parse({"ip", "+comm"});  // +f changes the current fields, silently
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->types[kOutputSoftware].fields, kFieldIp | kFieldComm);
  EXPECT_TRUE(spec->warnings.empty());
}

TEST(ScriptFieldListsTest, PlusMinusChangeOneType) {
  auto spec = Parse({"sw:-period,+addr"});
  ASSERT_TRUE(spec.ok());
  const ScriptFieldSpec defaults;
  EXPECT_EQ(spec->types[kOutputSoftware].fields, (defaults.types[kOutputSoftware].fields & ~kFieldPeriod) | kFieldAddr);
  EXPECT_EQ(spec->types[kOutputHardware].fields, defaults.types[kOutputHardware].fields);
  EXPECT_EQ(spec->types[kOutputSoftware].user_set_fields, 0u);  // a type: list requires nothing
}

TEST(ScriptFieldListsTest, PerfsParseErrors) {
  EXPECT_EQ(ErrorOf({"foo:ip"}), "Invalid event type in field string.");
  EXPECT_EQ(ErrorOf({"ip,+sym"}), "Cannot mix +-field with overridden fields");
  EXPECT_EQ(ErrorOf({"sw:ip,-sym"}), "Cannot mix +-field with overridden fields");
  EXPECT_EQ(ErrorOf({"-ip,sym"}), "Cannot mix +-field with overridden fields");
  EXPECT_EQ(ErrorOf({""}), "Cannot set fields to 'none' for all event types.");
  EXPECT_EQ(ErrorOf({"sw:trace"}), "'trace' not valid for software events.");
  EXPECT_EQ(ErrorOf({"raw:trace"}), "'trace' not valid for unknown events.");
  EXPECT_EQ(ErrorOf({"ip,nosuch"}).rfind("Invalid field requested.", 0), 0u);
  // Without a type: `trace` is left out where invalid, with perf's three warnings.
  auto spec = Parse({"ip,trace"});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->types[kOutputSoftware].fields, kFieldIp);
  EXPECT_EQ(spec->types[kOutputTracepoint].fields, kFieldIp | kFieldTrace);
  EXPECT_EQ(spec->warnings, (std::vector<std::string>{"'trace' not valid for hardware events. Ignoring.",
                                                      "'trace' not valid for software events. Ignoring.",
                                                      "'trace' not valid for hardware-cache events. Ignoring."}));
}

TEST(ScriptFieldListsTest, FieldsTheRecordingLacks) {
  uint32_t f = 0;
  // Asked for by a list without type: perf's error (it exits 255).
  EXPECT_EQ(Resolve({"ip,addr"}, kSoftware, kBasic, &f),
            "Samples for 'cpu-clock' event do not have ADDR attribute set. Cannot print 'addr' field.");
  EXPECT_EQ(Resolve({"+weight"}, kSoftware, kBasic, &f),
            "Samples for 'cpu-clock' event do not have WEIGHT attribute set. Cannot print 'weight' field.");
  // A type: list's fields, and defaults, are dropped instead.
  EXPECT_EQ(Resolve({"sw:ip,addr"}, kSoftware, kBasic, &f), "");
  EXPECT_EQ(f, kFieldIp);
  EXPECT_EQ(Resolve({}, kSoftware, kBasic, &f), "");
  EXPECT_EQ(f & kFieldCpu, 0u);
  // With the bits there they print; WEIGHT_STRUCT counts as weight.
  EXPECT_EQ(Resolve({"ip,addr,weight"}, kSoftware, kBasic | kSampleAddr | kSampleWeightStruct, &f), "");
  EXPECT_EQ(f, kFieldIp | kFieldAddr | kFieldWeight);
  // symoff without sym is an error even when the user removed sym (perf's typo kept).
  EXPECT_EQ(Resolve({"sw:-ip,-sym"}, kSoftware, kBasic, &f), "Display of offsets requested but symbol is notselected.");
  // A type: with no field names a type that must exist.
  EXPECT_EQ(Resolve({"trace:"}, kSoftware, kBasic, &f),
            "tracepoint events do not exist. Remove corresponding -F option to proceed.");
  EXPECT_EQ(Resolve({"sw:"}, kSoftware, kBasic, &f), "");
  EXPECT_EQ(f, 0u);  // no fields: the type's samples print nothing
}

TEST(ScriptFieldListsTest, FlagsIsNotPerType) {
  auto spec = Parse({"flags"});
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(spec->print_flags);
  EXPECT_EQ(spec->types[kOutputSoftware].fields, 0u);  // perf prints nothing then
  spec = Parse({"+flags", "sw:-flags"});
  ASSERT_TRUE(spec.ok());
  EXPECT_FALSE(spec->print_flags);
  EXPECT_EQ(spec->types[kOutputSoftware].fields, ScriptFieldSpec().types[kOutputSoftware].fields);
}

TEST(ScriptFieldListsTest, TracepointCallchainDefaults) {
  const uint64_t st = kBasic | kSampleCpu | kSampleRaw | kSampleCallchain;
  uint32_t f = 0;
  EXPECT_EQ(Resolve({}, kPerfTypeTracepoint, st, &f), "");
  EXPECT_NE(f & kFieldIp, 0u);
  EXPECT_NE(f & kFieldSymOff, 0u);
  // -G: perf's use_callchain is off, and the tracepoint line stands alone.
  EXPECT_EQ(Resolve({}, kPerfTypeTracepoint, st, &f, false), "");
  EXPECT_EQ(f & (kFieldIp | kFieldSym | kFieldDso), 0u);
  // Any -F that touched tracepoints (even +f without type:) drops the defaults.
  EXPECT_EQ(Resolve({"+comm"}, kPerfTypeTracepoint, st, &f), "");
  EXPECT_EQ(f & kFieldIp, 0u);
  EXPECT_EQ(Resolve({"sw:+addr"}, kPerfTypeTracepoint, st, &f), "");
  EXPECT_NE(f & kFieldIp, 0u);
}

}  // namespace
}  // namespace perflens
