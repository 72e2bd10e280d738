#include "symbolize/symbolizer.h"

#include <gtest/gtest.h>

#include <sys/utsname.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "elf_test_util.h"
#include "symbolize/kallsyms.h"
#include "symbolize/vdso.h"

namespace perflens {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

struct Built {
  std::string bin, stripped, debug;
  BuildId bid;
  uint64_t main_offset, helper_offset;
};

Built BuildProgram(const TempDir& dir) {
  Built b;
  b.bin = dir / "prog";
  b.stripped = dir / "prog.stripped";
  b.debug = dir / "prog.debug";
  EXPECT_TRUE(testing::Compile(dir, testing::kCProgram, "c", "-fPIE -pie", b.bin));
  EXPECT_TRUE(testing::Run("objcopy --only-keep-debug " + b.bin + " " + b.debug));
  EXPECT_TRUE(testing::Run("objcopy --strip-all --add-gnu-debuglink=" + b.debug + " " + b.bin + " " + b.stripped));
  b.bid = *BuildId::FromHex(testing::ReadelfBuildId(b.bin));
  auto nm = testing::NmValues(b.bin);
  auto loads = testing::ReadelfLoads(b.bin);
  b.main_offset = testing::VaddrToOffset(loads, nm["main"]);
  b.helper_offset = testing::VaddrToOffset(loads, nm["local_helper"]);
  return b;
}

// Lays out <cache>/<long_name>/<bid>/<file> plus the relative .build-id link, as perf
// record / perf buildid-cache do.
void AddToCache(const std::string& cache, const std::string& entry_dir, const BuildId& bid, const std::string& src,
                const std::string& file) {
  std::string hex = bid.ToHex();
  fs::path entry = fs::path(cache + entry_dir) / hex;
  fs::create_directories(entry);
  fs::copy_file(src, entry / file);
  fs::path link_dir = fs::path(cache) / ".build-id" / hex.substr(0, 2);
  fs::create_directories(link_dir);
  fs::create_symlink(fs::path("../..") / fs::path(entry_dir).relative_path() / hex, link_dir / hex.substr(2));
}

TEST(SymbolizerTest, FindsBinaryInBuildIdCache) {
  TempDir dir;
  Built b = BuildProgram(dir);
  std::string cache = dir / "cache";
  AddToCache(cache, "/gone/host/prog", b.bid, b.bin, "elf");
  Dso dso(1, "/gone/host/prog", DsoKind::kUser);
  dso.set_build_id(b.bid);
  Symbolizer s({.buildid_dir = cache}, nullptr);
  const Symbol* sym = s.Find(dso, b.main_offset + 2);
  ASSERT_NE(sym, nullptr) << s.Info(dso).message;
  EXPECT_EQ(sym->name, "main");
  EXPECT_EQ(s.Info(dso).status, LoadStatus::kLoaded);
  EXPECT_EQ(s.Info(dso).path, cache + "/.build-id/" + b.bid.ToHex().substr(0, 2) + "/" + b.bid.ToHex().substr(2) + "/elf");
  EXPECT_TRUE(s.Problems().empty());
}

// perf.data build-id entries written without the size byte (perf before 5.x, and
// converters) hold 20 bytes: a 16-byte md5 id (lld's default, ld --build-id=md5) or an
// 8-byte one (lld --build-id=fast) is zero-padded. The file with the real note is the
// DSO's, as perf's dso__build_id_equal decides; its cache entry may be named either way.
TEST(SymbolizerTest, ZeroPaddedShortBuildIdsMatchTheFilesNote) {
  TempDir dir;
  for (const auto& [flag, note_bytes] : {std::pair<std::string, size_t>{"-Wl,--build-id=md5", 16},
                                         std::pair<std::string, size_t>{"-Wl,--build-id=0x0123456789abcdef", 8}}) {
    SCOPED_TRACE(flag);
    const std::string bin = dir / ("prog" + std::to_string(note_bytes));
    ASSERT_TRUE(testing::Compile(dir, testing::kCProgram, "c", "-fPIE -pie " + flag, bin));
    const BuildId note = *BuildId::FromHex(testing::ReadelfBuildId(bin));
    ASSERT_EQ(note.size, note_bytes);
    BuildId padded = note;
    padded.size = BuildId::kMaxSize;  // bytes past the note are zero
    EXPECT_EQ(padded.Unpadded(), note);
    const uint64_t main_offset = testing::VaddrToOffset(testing::ReadelfLoads(bin), testing::NmValues(bin)["main"]);

    // At its recorded path.
    Dso at_path(40 + static_cast<int>(note_bytes), bin, DsoKind::kUser);
    at_path.set_build_id(padded);
    Symbolizer s({.buildid_dir = dir / "empty-cache"}, nullptr);
    const Symbol* sym = s.Find(at_path, main_offset);
    ASSERT_NE(sym, nullptr) << s.Info(at_path).message;
    EXPECT_EQ(sym->name, "main");

    // In a build-id cache under the note's own hex (perf record adds it so), and under
    // the padded hex (perf's name for the recorded id).
    for (const BuildId& entry_id : {note, padded}) {
      const std::string cache = dir / ("cache-" + entry_id.ToHex());
      AddToCache(cache, "/gone/prog", entry_id, bin, "elf");
      Dso gone(60 + static_cast<int>(note_bytes), "/gone/prog", DsoKind::kUser);
      gone.set_build_id(padded);
      Symbolizer c({.buildid_dir = cache}, nullptr);
      sym = c.Find(gone, main_offset);
      ASSERT_NE(sym, nullptr) << c.Info(gone).message;
      EXPECT_EQ(sym->name, "main");
    }

    // Padding that is not zero is another id.
    BuildId other = padded;
    other.bytes[BuildId::kMaxSize - 1] = 1;
    Dso wrong(80 + static_cast<int>(note_bytes), bin, DsoKind::kUser);
    wrong.set_build_id(other);
    Symbolizer w({.buildid_dir = dir / "empty-cache"}, nullptr);
    EXPECT_EQ(w.Find(wrong, main_offset), nullptr);
    EXPECT_EQ(w.Info(wrong).status, LoadStatus::kBuildIdMismatch);
  }
}

TEST(SymbolizerTest, RefusesBuildIdMismatch) {
  TempDir dir;
  Built b = BuildProgram(dir);
  Dso dso(2, b.bin, DsoKind::kUser);
  dso.set_build_id(*BuildId::FromHex("00112233445566778899aabbccddeeff00112233"));
  Symbolizer s({.buildid_dir = dir / "empty-cache"}, nullptr);
  EXPECT_EQ(s.Find(dso, b.main_offset), nullptr);
  EXPECT_EQ(s.Info(dso).status, LoadStatus::kBuildIdMismatch);
  EXPECT_NE(s.Info(dso).message.find(b.bid.ToHex()), std::string::npos) << s.Info(dso).message;
  auto problems = s.Problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("00112233445566778899aabbccddeeff00112233"), std::string::npos) << problems[0];
  // A second mismatching DSO is counted in the same line, not a new one.
  Dso other(3, b.stripped, DsoKind::kUser);
  other.set_build_id(*BuildId::FromHex("ffeeddccbbaa99887766554433221100ffeeddcc"));
  EXPECT_EQ(s.Find(other, 0x1000), nullptr);
  problems = s.Problems();
  ASSERT_EQ(problems.size(), 1u);
  // Listed by DSO under the reason: "build-id mismatch (2 DSOs: prog, prog.stripped), e.g. ...".
  EXPECT_EQ(problems[0].rfind("build-id mismatch (2 DSOs: " + b.bin + ", " + b.stripped + "), e.g. ", 0), 0u)
      << problems[0];
}

// The summary lists DSOs by their ids (the order the model made them), whichever
// thread loaded which first: kallsyms loads beside the read, so load order varies from
// run to run (a corpus file's "foreign kernel" line swapped its two DSOs between runs).
TEST(SymbolizerTest, ProblemSummaryIsInDsoOrderWhateverTheLoadOrder) {
  TempDir dir;
  Built b = BuildProgram(dir);
  std::vector<std::string> lines[2];
  for (int reverse : {0, 1}) {
    Dso first(2, b.bin, DsoKind::kUser), second(3, b.stripped, DsoKind::kUser);
    first.set_build_id(*BuildId::FromHex("00112233445566778899aabbccddeeff00112233"));
    second.set_build_id(*BuildId::FromHex("ffeeddccbbaa99887766554433221100ffeeddcc"));
    Symbolizer s({.buildid_dir = dir / "empty-cache"}, nullptr);
    for (const Dso* d : reverse ? std::vector<const Dso*>{&second, &first} : std::vector<const Dso*>{&first, &second})
      EXPECT_EQ(s.Info(*d).status, LoadStatus::kBuildIdMismatch);
    lines[reverse] = s.Problems();
  }
  ASSERT_EQ(lines[0].size(), 1u);
  EXPECT_EQ(lines[0][0].rfind("build-id mismatch (2 DSOs: " + b.bin + ", " + b.stripped + "), e.g. " + b.bin, 0), 0u)
      << lines[0][0];
  EXPECT_EQ(lines[1], lines[0]);
}

TEST(SymbolizerTest, StrippedBinaryUsesDebuglinkFile) {
  TempDir dir;
  Built b = BuildProgram(dir);
  Dso dso(4, b.stripped, DsoKind::kUser);  // no recorded build-id: read from the file
  Symbolizer s({.buildid_dir = dir / "empty-cache"}, nullptr);
  const Symbol* sym = s.Find(dso, b.helper_offset);
  ASSERT_NE(sym, nullptr) << s.Info(dso).message;
  EXPECT_EQ(sym->name, "local_helper");
  EXPECT_EQ(s.Info(dso).path, b.debug);
}

TEST(SymbolizerTest, NotFoundNamesThePlacesLooked) {
  Dso dso(5, "/no/such/dir/libx.so", DsoKind::kUser);
  Symbolizer s({.buildid_dir = "/no/such/cache"}, nullptr);
  EXPECT_EQ(s.Find(dso, 0x1000), nullptr);
  EXPECT_EQ(s.Info(dso).status, LoadStatus::kNotFound);
  EXPECT_NE(s.Info(dso).message.find("/no/such/dir/libx.so"), std::string::npos);
}

TEST(SymbolizerTest, VdsoFromCacheByBuildIdOnly) {
  TempDir dir;
  std::string so = dir / "fake-vdso.so";
  ASSERT_TRUE(testing::Compile(dir, "int __vdso_time(long* t) { return 7; }\n", "c", "-shared -fPIC", so));
  BuildId bid = *BuildId::FromHex(testing::ReadelfBuildId(so));
  std::string cache = dir / "cache";
  AddToCache(cache, "/[vdso]", bid, so, "vdso");
  uint64_t off = testing::VaddrToOffset(testing::ReadelfLoads(so), testing::NmValues(so)["__vdso_time"]);

  Dso vdso(6, "[vdso]", DsoKind::kVdso);
  vdso.set_build_id(bid);
  Symbolizer s({.buildid_dir = cache}, nullptr);
  const Symbol* sym = s.Find(vdso, off);
  ASSERT_NE(sym, nullptr) << s.Info(vdso).message;
  EXPECT_EQ(sym->name, "__vdso_time");

  Dso wrong(7, "[vdso]", DsoKind::kVdso);
  wrong.set_build_id(*BuildId::FromHex("abababababababababababababababababababab"));
  EXPECT_EQ(s.Find(wrong, off), nullptr);
  EXPECT_EQ(s.Info(wrong).status, LoadStatus::kBuildIdMismatch);
  auto problems = s.Problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rfind(
                "vdso image unavailable: [vdso]: no image with build-id abababababababababababababababababababab "
                "(looked in: ",
                0),
            0u)
      << problems[0];
  // And what would fix it.
  auto hints = s.FixHints();
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_NE(hints[0].find("perflens archive"), std::string::npos) << hints[0];
  EXPECT_NE(hints[0].find("DEBUGINFOD_URLS"), std::string::npos) << hints[0];

  // No recorded build-id and another kernel: the local vdso is not used.
  Dso unknown(8, "[vdso]", DsoKind::kVdso);
  Symbolizer t({.buildid_dir = cache, .recorded_osrelease = "0.0-other", .recorded_arch = "x86_64"}, nullptr);
  EXPECT_EQ(t.Find(unknown, off), nullptr);
  EXPECT_NE(t.Info(unknown).status, LoadStatus::kLoaded);
}

TEST(SymbolizerTest, KsymbolUsesKsymbolSymbols) {
  Dso dso(9, "bpf_prog_1234_foo", DsoKind::kKsymbol);
  dso.ksymbol_symbols.push_back({0xffffffffc0001000, 0xffffffffc0001080, "bpf_prog_1234_foo"});
  Symbolizer s({}, nullptr);
  EXPECT_EQ(s.Find(dso, 0xffffffffc0001010)->name, "bpf_prog_1234_foo");
  EXPECT_EQ(s.Find(dso, 0xffffffffc0001080), nullptr);
}

TEST(SymbolizerTest, KernelAndModuleFromKallsymsFile) {
  // The parser is part of perflens: if it rejects a one-line kallsyms, that is a failure.
  auto parsed = ParseKallsyms("ffffffff81000000 T _text\n", "_text");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  TempDir dir;
  testing::WriteFile(dir / "kallsyms",
                     "ffffffff81000000 T _text\n"
                     "ffffffff81000100 T start_kernel\n"
                     "ffffffff81000200 t do_thing\n"
                     "ffffffffc0001000 t xfs_foo\t[xfs]\n"
                     "ffffffffc0001100 t xfs_bar\t[xfs]\n");
  Dso kernel(10, "[kernel.kallsyms]", DsoKind::kKernel);
  Dso xfs(11, "/lib/modules/6.1.0/kernel/fs/xfs/xfs.ko", DsoKind::kKernelModule);
  Symbolizer s({.kallsyms = dir / "kallsyms"}, nullptr);
  ASSERT_NE(s.Find(kernel, 0xffffffff81000150), nullptr) << s.Info(kernel).message;
  EXPECT_EQ(s.Find(kernel, 0xffffffff81000150)->name, "start_kernel");
  ASSERT_NE(s.Find(xfs, 0xffffffffc0001104), nullptr) << s.Info(xfs).message;
  EXPECT_EQ(s.Find(xfs, 0xffffffffc0001104)->name, "xfs_bar");
}

// The kernel looked up on a helper thread before the first sample gives the same
// symbols as a lookup on first use, whether the prefetch's build-id turns out right
// (the machine knew the kernel from the header) or not (it is discarded).
TEST(SymbolizerTest, PrefetchedKernelSymbolsMatchLoadOnUse) {
  TempDir dir;
  testing::WriteFile(dir / "kallsyms",
                     "ffffffff81000000 T _text\n"
                     "ffffffff81000100 T start_kernel\n"
                     "ffffffffc0001000 t xfs_foo\t[xfs]\n");
  const std::string bid = "0102030405060708090a0b0c0d0e0f1011121314";
  Machine with_kernel("x86_64");
  BuildIdEntry e;
  e.misc = 1;  // PERF_RECORD_MISC_KERNEL
  e.build_id = *BuildId::FromHex(bid);
  e.filename = "[kernel.kallsyms]";
  with_kernel.AddBuildIds({e});
  ASSERT_NE(with_kernel.kernel_dso(), nullptr);
  Symbolizer early({.kallsyms = dir / "kallsyms"}, &with_kernel);
  early.PrefetchKernelSymbols();
  early.PrefetchKernelSymbols();  // a second call changes nothing
  const Dso& kernel = *with_kernel.kernel_dso();
  ASSERT_NE(early.Find(kernel, 0xffffffff81000150), nullptr) << early.Info(kernel).message;
  EXPECT_EQ(early.Find(kernel, 0xffffffff81000150)->name, "start_kernel");
  EXPECT_EQ(early.Info(kernel).path, dir / "kallsyms");

  // Prefetched for no build-id, needed for one: looked up again, same answer.
  Machine bare("x86_64");
  Symbolizer late({.kallsyms = dir / "kallsyms"}, &bare);
  late.PrefetchKernelSymbols();
  Dso other(12, "[kernel.kallsyms]", DsoKind::kKernel);
  other.set_build_id(*BuildId::FromHex(bid));
  ASSERT_NE(late.Find(other, 0xffffffff81000150), nullptr) << late.Info(other).message;
  EXPECT_EQ(late.Find(other, 0xffffffff81000150)->name, "start_kernel");
}

// A text symbol of the running kernel from /proc/kallsyms: its address and name, or
// nullopt when the addresses are hidden (kptr_restrict) or the file is unreadable.
std::optional<std::pair<uint64_t, std::string>> RunningKernelTextSymbol() {
  std::ifstream in("/proc/kallsyms");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string addr, type, name;
    if (!(ls >> addr >> type >> name) || (type != "T" && type != "t") || name == "_text" || name == "_stext") continue;
    uint64_t a = std::stoull(addr, nullptr, 16);
    if (a == 0) return std::nullopt;
    if (line.find('[') == std::string::npos) return std::pair{a, name};
  }
  return std::nullopt;
}

// Issue #14: this machine's /proc/kallsyms describes only its running kernel, and
// nothing of this machine is read under --symfs.
TEST(SymbolizerTest, RunningKernelSymbolsOnlyForTheRunningKernelAndNeverUnderSymfs) {
  auto text = RunningKernelTextSymbol();
  if (!text) GTEST_SKIP() << "no readable kernel addresses in /proc/kallsyms";
  const std::string running = RunningKernelBuildIdHex();
  struct utsname u;
  ASSERT_EQ(uname(&u), 0);
  TempDir dir;
  fs::create_directories(dir / "symfs");
  const std::string empty_cache = dir / "empty-cache";
  auto kernel_with = [](int id, const std::string& bid) {
    Dso k(id, "[kernel.kallsyms]", DsoKind::kKernel);
    if (!bid.empty()) k.set_build_id(*BuildId::FromHex(bid));
    return k;
  };
  // The running kernel (same build-id; or none recorded and the same release + arch):
  // its symbols.
  {
    Dso k = kernel_with(20, running);
    Symbolizer s({.buildid_dir = empty_cache, .recorded_osrelease = u.release, .recorded_arch = u.machine}, nullptr);
    const Symbol* sym = s.Find(k, text->first);
    ASSERT_NE(sym, nullptr) << s.Info(k).message;
    EXPECT_EQ(s.Info(k).path, "/proc/kallsyms");
  }
  // Under --symfs: not read, and the message says why.
  {
    Dso k = kernel_with(21, running);
    Symbolizer s({.symfs = dir / "symfs", .buildid_dir = empty_cache, .recorded_osrelease = u.release,
                  .recorded_arch = u.machine},
                 nullptr);
    EXPECT_EQ(s.Find(k, text->first), nullptr);
    EXPECT_NE(s.Info(k).message.find("/proc/kallsyms: not used: --symfs"), std::string::npos) << s.Info(k).message;
  }
  // Another kernel's build-id.
  {
    Dso k = kernel_with(22, "0123456789abcdef0123456789abcdef01234567");
    Symbolizer s({.buildid_dir = empty_cache}, nullptr);
    EXPECT_EQ(s.Find(k, text->first), nullptr);
    EXPECT_NE(s.Info(k).message.find("the recording's kernel is not the running one"), std::string::npos)
        << s.Info(k).message;
  }
  // No build-id recorded, another release (a 4.9 recording): not this machine's symbols.
  {
    Dso k = kernel_with(23, "");
    Symbolizer s({.buildid_dir = empty_cache, .recorded_osrelease = "4.9.0-8-amd64", .recorded_arch = u.machine},
                 nullptr);
    EXPECT_EQ(s.Find(k, text->first), nullptr);
    EXPECT_NE(s.Info(k).message.find("(4.9.0-8-amd64 " + std::string(u.machine) + ") is not the running one"),
              std::string::npos)
        << s.Info(k).message;
  }
  // No build-id and no release recorded: unknown, so not used either.
  {
    Dso k = kernel_with(24, "");
    Symbolizer s({.buildid_dir = empty_cache}, nullptr);
    EXPECT_EQ(s.Find(k, text->first), nullptr) << "an unknown kernel is not assumed to be the running one";
    // Said as what it is (a truncated file, typically), with the way out, not "foreign".
    EXPECT_NE(s.Info(k).message.find("does not say which kernel it ran on"), std::string::npos) << s.Info(k).message;
    EXPECT_NE(s.Info(k).message.find("--kallsyms /proc/kallsyms"), std::string::npos) << s.Info(k).message;
    for (const std::string& line : s.Problems()) EXPECT_EQ(line.find("foreign"), std::string::npos) << line;
    EXPECT_TRUE(s.FixHints().empty());
  }
}

// Under --symfs the local vdso is not read, even when its build-id is the recorded one.
TEST(SymbolizerTest, LocalVdsoNeverUnderSymfs) {
  LocalVdsos local;
  auto image = local.Get(DsoKind::kVdso);
  if (!image.ok() || image->build_id.empty()) GTEST_SKIP() << "no local vdso with a build-id";
  TempDir dir;
  fs::create_directories(dir / "symfs");
  Dso vdso(30, "[vdso]", DsoKind::kVdso);
  vdso.set_build_id(image->build_id);
  Symbolizer here({.buildid_dir = dir / "empty-cache"}, nullptr);
  here.Find(vdso, 0x1000);
  EXPECT_EQ(here.Info(vdso).status, LoadStatus::kLoaded) << here.Info(vdso).message;
  Dso vdso2(31, "[vdso]", DsoKind::kVdso);
  vdso2.set_build_id(image->build_id);
  Symbolizer confined({.symfs = dir / "symfs", .buildid_dir = dir / "empty-cache"}, nullptr);
  EXPECT_EQ(confined.Find(vdso2, 0x1000), nullptr);
  EXPECT_NE(confined.Info(vdso2).status, LoadStatus::kLoaded);
}

}  // namespace
}  // namespace perflens
