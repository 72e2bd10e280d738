// The committed recordings in fixtures/rust (see its README.md): one Rust program built
// twice, with rustc's legacy symbol mangling and with v0. perf 6.1 (linking libiberty)
// demangles both; perflens's `script` and `report --no-children` equal its stored
// output, and the names are the Rust ones (no hash, no $LT$ escapes, v0's generic
// arguments). HOME is an empty temp dir and --symfs an empty dir: only the fixture's
// cache is read. threads.data is the legacy program recorded with `perf record
// --threads`: a directory (a `data` header file and data.0, data.1), read as one
// recording, equal to perf's output on it.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "scenario_util.h"

namespace perflens::scenario {
namespace {

class RustFixture : public ScratchDirTest<::testing::TestWithParam<const char*>> {
 protected:
  RustFixture() : ScratchDirTest<::testing::TestWithParam<const char*>>("rust") {}

  static std::string Fixture(const std::string& file) { return ScenarioSourceDir() + "/fixtures/rust/" + file; }

  // `perflens <args>` on the fixture's <mangling>.data, confined to its cache.
  std::string Run(const std::string& args) {
    CommandResult r = RunShell("env -u PERF_BUILDID_DIR HOME=" + ShellQuote(dir_ + "/home") + " " +
                                   ShellQuote(PerflensBinary()) + " " + args + " -i " +
                                   ShellQuote(Fixture(std::string(GetParam()) + ".data")) + " --buildid-dir " +
                                   ShellQuote(Fixture("cache")) + " --symfs " + ShellQuote(dir_ + "/symfs"),
                               dir_);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r.out;
  }

  // perf's report ends with a random "(Tip: …)" block between two "#" lines.
  static std::string WithoutTip(std::string text) {
    size_t tip = text.find("#\n# (Tip:");
    if (tip != std::string::npos) {
      size_t end = text.find("\n#\n", tip + 2);
      text.erase(tip, end == std::string::npos ? std::string::npos : end + 3 - tip);
    }
    return text;
  }

  // Leaves the output beside the expected file when they differ.
  void ExpectSameAs(const std::string& expected_file, const std::string& out) {
    const std::string expected = WithoutTip(ReadFileOrEmpty(Fixture(expected_file)));
    ASSERT_FALSE(expected.empty()) << "missing " << Fixture(expected_file);
    if (out != expected) {
      std::string actual = Fixture(expected_file.substr(0, expected_file.size() - 4) + ".actual.txt");
      WriteFile(actual, out);
      std::printf("[ fixture ] diff -u %s %s\n", Fixture(expected_file).c_str(), actual.c_str());
    }
    EXPECT_EQ(out, expected);
  }
};

TEST_P(RustFixture, ScriptEqualsPerf) {
  ExpectSameAs(std::string("expected-perf-script-") + GetParam() + ".txt", Run("script"));
}

TEST_P(RustFixture, ReportEqualsPerf) {
  ExpectSameAs(std::string("expected-perf-report-") + GetParam() + ".txt", Run("report --stdio --no-children"));
}

// The truth, independent of perf: Rust's own names for the program's functions.
TEST_P(RustFixture, NamesAreRusts) {
  const std::string v0 = "v0";
  const bool is_v0 = GetParam() == v0;
  const std::string script = Run("script");
  for (const char* name :
       {" rust_shapes::spin+0x", " <rust_shapes::Square as rust_shapes::Shape>::area+0x",
        " <[u8; 4] as rust_shapes::Shape>::area+0x", " <&str as rust_shapes::Shape>::area+0x", " rust_shapes::main+0x"})
    EXPECT_NE(script.find(name), std::string::npos) << name;
  if (is_v0) {
    // v0 keeps generic arguments and numbers closures.
    EXPECT_NE(script.find(" <rust_shapes::Pair<u32> as rust_shapes::Shape>::area+0x"), std::string::npos);
    EXPECT_NE(script.find(" rust_shapes::inner::deeper::apply::<rust_shapes::main::{closure#1}>+0x"),
              std::string::npos);
    EXPECT_NE(script.find(" std::rt::lang_start::<()>::{closure#0}+0x"), std::string::npos);
  } else {
    EXPECT_NE(script.find(" <rust_shapes::Pair<T> as rust_shapes::Shape>::area+0x"), std::string::npos);
    EXPECT_NE(script.find(" rust_shapes::inner::deeper::apply+0x"), std::string::npos);
    EXPECT_NE(script.find(" std::rt::lang_start::{{closure}}+0x"), std::string::npos);
  }
  for (const char* raw : {"$LT$", "$u20$", "17h", "::h", "_ZN", "_RN", "_RIN"}) EXPECT_EQ(script.find(raw), std::string::npos) << raw;
}

// --no-demangle prints the symbol table's names, as perf's --no-demangle.
TEST_P(RustFixture, NoDemangleKeepsTheMangledNames) {
  const std::string script = Run("script --no-demangle");
  const std::string v0 = "v0";
  EXPECT_NE(script.find(GetParam() == v0 ? " _RNvCshXDOm5BryCA_11rust_shapes4spin+0x"
                                         : " _ZN11rust_shapes4spin17h247009b7f130d5b5E+0x"),
            std::string::npos);
}

// "threads": the legacy program recorded with `perf record --threads`, a directory.
INSTANTIATE_TEST_SUITE_P(Manglings, RustFixture, ::testing::Values("legacy", "v0", "threads"));

}  // namespace
}  // namespace perflens::scenario
