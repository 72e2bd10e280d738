// The kallsyms index (kallsyms_index.h): tables made from it must answer every lookup
// exactly as the parse it was made from, and a stale, foreign or damaged index must be
// refused (the caller then parses), never crash or answer wrongly.
#include "symbolize/kallsyms_index.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "elf_test_util.h"
#include "symbolize/symbolizer.h"

namespace perflens {
namespace {

using testing::TempDir;

// Kernel and two modules, an alias pair, a weak symbol, a name with a control byte
// (escaped: not in the text as stored), filtered types, and a generated run of
// zero-size functions.
std::string SampleText() {
  std::string t =
      "ffffffff81000000 T _text\n"
      "ffffffff81000000 T startup_64\n"
      "ffffffff81000100 t secondary_startup\n"
      "ffffffff81000200 W weak_fn\n"
      "ffffffff81000300 r rodata_sym\n"
      "ffffffff81000400 D data_sym\n"
      "ffffffff81000500 b bss_\x01sym\n"
      "0000000000000000 A absolute_sym\n";
  for (int i = 0; i < 500; ++i) t += fmt::format("{:016x} t gen_{}\n", 0xffffffff81001000ULL + 0x40ULL * i, i);
  t +=
      "ffffffff81ff0000 T last_kernel\n"
      "ffffffffc0001000 t mod_a_init\t[mod_a]\n"
      "ffffffffc0001080 T mod_a_fn\t[mod_a]\n"
      "ffffffffc0005000 t mod_b_fn\t[mod_b]\n"
      "ffffffffc0005040 t mod_b_\x02last\t[mod_b]\n";
  return t;
}

std::shared_ptr<const KallsymsText> MapText(const std::string& path) {
  auto t = std::make_shared<KallsymsText>();
  auto m = MappedFile::Open(path);
  EXPECT_TRUE(m.ok());
  if (m.ok()) t->mapped = std::move(*m);
  return t;
}

// A kallsyms file in a temp dir with its parse and its index bytes.
struct Indexed {
  TempDir dir;
  std::string path = dir / "kallsyms";
  std::shared_ptr<const KallsymsText> text;
  KallsymsIndexKey key;
  KallsymsTables parsed;
  std::string bytes;

  explicit Indexed(const std::string& body, const std::string& ref = "_text") {
    testing::WriteFile(path, body);
    text = MapText(path);
    auto k = KallsymsIndexKeyOf(path, ref);
    EXPECT_TRUE(k.ok());
    key = *k;
    auto p = ParseKallsyms(text, ref, 0);
    EXPECT_TRUE(p.ok());
    parsed = std::move(*p);
    auto b = SerializeKallsymsIndex(parsed, text->text(), key);
    EXPECT_TRUE(b.ok()) << b.error().message;
    bytes = *b;
  }
  Result<KallsymsTables> FromBytes(std::string b) const {
    return KallsymsTablesFromIndex(
        std::make_shared<const MappedFile>(MappedFile::FromBuffer(std::vector<uint8_t>(b.begin(), b.end()))), text,
        key);
  }
};

std::string Describe(const Symbol* s) {
  if (!s) return "<none>";
  return fmt::format("{:#x}-{:#x} {} b{} t{} i{}", s->start, s->end, s->name, s->binding, s->type, s->index);
}

// Every lookup near every symbol of `want` answers the same from `got`.
void ExpectSameTable(const SymbolTable& want, const SymbolTable& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  std::vector<uint64_t> probes{0, 1, UINT64_MAX};
  for (const Symbol& s : want.symbols()) {
    for (uint64_t a : {s.start - 1, s.start, s.start + 1, s.end - 1, s.end, s.end + 1}) probes.push_back(a);
  }
  for (uint64_t a : probes) EXPECT_EQ(Describe(want.Find(a)), Describe(got.Find(a))) << what << " at " << a;
  const auto& ws = want.symbols();
  const auto& gs = got.symbols();
  ASSERT_EQ(ws.size(), gs.size());
  for (size_t i = 0; i < ws.size(); ++i) EXPECT_EQ(Describe(&ws[i]), Describe(&gs[i])) << what << " #" << i;
}

void ExpectSameTables(const KallsymsTables& want, const KallsymsTables& got) {
  EXPECT_EQ(want.ref_addr, got.ref_addr);
  EXPECT_EQ(want.all_zero, got.all_zero);
  ExpectSameTable(want.kernel, got.kernel, "kernel");
  ASSERT_EQ(want.modules.size(), got.modules.size());
  for (const auto& [name, table] : want.modules) {
    auto it = got.modules.find(name);
    ASSERT_NE(it, got.modules.end()) << name;
    ExpectSameTable(table, it->second, name);
  }
}

TEST(KallsymsIndexTest, TablesFromTheIndexAnswerAsTheParse) {
  Indexed ix(SampleText());
  auto lazy = ix.FromBytes(ix.bytes);
  ASSERT_TRUE(lazy.ok()) << lazy.error().message;
  ExpectSameTables(ix.parsed, *lazy);
  // The escaped names come from the index's own copies, as the parse escaped them.
  ASSERT_NE(lazy->kernel.Find(0xffffffff81000500), nullptr);
  EXPECT_EQ(lazy->kernel.Find(0xffffffff81000500)->name, "bss_\\x01sym");
  // One Symbol per entry: a second lookup returns the same object.
  EXPECT_EQ(lazy->kernel.Find(0xffffffff81001010), lazy->kernel.Find(0xffffffff81001000));
}

// This machine's kallsyms (121K lines on the project VM), when addresses are readable.
TEST(KallsymsIndexTest, ThisMachinesKallsyms) {
  std::string body = testing::ReadFile("/proc/kallsyms");
  if (body.empty() || body.rfind("0000000000000000 ", 0) == 0) GTEST_SKIP() << "no readable /proc/kallsyms";
  Indexed ix(body);
  auto lazy = ix.FromBytes(ix.bytes);
  ASSERT_TRUE(lazy.ok()) << lazy.error().message;
  ExpectSameTables(ix.parsed, *lazy);
}

// A KASLR shift applies to a lazy table as to a parsed one: same answer for the in-place
// shift and the same refusal when an address would wrap.
TEST(KallsymsIndexTest, ShiftsAsTheParsedTable) {
  Indexed ix(SampleText());
  for (int64_t delta : {int64_t{0x3000000}, int64_t{-0x10000}, int64_t{0x7f000000}, INT64_MIN + 1}) {
    auto lazy = ix.FromBytes(ix.bytes);
    ASSERT_TRUE(lazy.ok());
    auto eager = ParseKallsyms(ix.text, "_text", 0);
    ASSERT_TRUE(eager.ok());
    const bool want = eager->kernel.Shift(delta);
    EXPECT_EQ(lazy->kernel.Shift(delta), want) << delta;
    ExpectSameTable(eager->kernel, lazy->kernel, fmt::format("shift {}", delta));
  }
  // Two shifts add up.
  auto lazy = ix.FromBytes(ix.bytes);
  auto eager = ParseKallsyms(ix.text, "_text", 0);
  ASSERT_TRUE(lazy.ok() && eager.ok());
  EXPECT_TRUE(lazy->kernel.Shift(0x1000) && lazy->kernel.Shift(0x2000));
  EXPECT_TRUE(eager->kernel.Shift(0x3000));
  ExpectSameTable(eager->kernel, lazy->kernel, "two shifts");
}

// Adding to a lazy table first makes all its symbols; copies share the source.
TEST(KallsymsIndexTest, CopiesAndAddsKeepTheSymbols) {
  Indexed ix(SampleText());
  auto lazy = ix.FromBytes(ix.bytes);
  ASSERT_TRUE(lazy.ok());
  SymbolTable copy = lazy->kernel;
  ExpectSameTable(ix.parsed.kernel, copy, "copy");
  SymbolTable moved = std::move(copy);
  ExpectSameTable(ix.parsed.kernel, moved, "moved");
  moved.Add(0xffffffff90000000, 0x10, "added");
  moved.Finish();
  EXPECT_EQ(moved.size(), ix.parsed.kernel.size() + 1);
  ASSERT_NE(moved.Find(0xffffffff90000004), nullptr);
  EXPECT_EQ(moved.Find(0xffffffff90000004)->name, "added");
  EXPECT_EQ(Describe(moved.Find(0xffffffff81000100)), Describe(ix.parsed.kernel.Find(0xffffffff81000100)));
}

TEST(KallsymsIndexTest, AnotherFileOrAnchorIsRefused) {
  Indexed ix(SampleText());
  for (auto change : std::vector<void (*)(KallsymsIndexKey*)>{
           [](KallsymsIndexKey* k) { k->mtime_ns += 1; }, [](KallsymsIndexKey* k) { k->ino += 1; },
           [](KallsymsIndexKey* k) { k->dev += 1; }, [](KallsymsIndexKey* k) { k->ref_symbol = "_stext"; }}) {
    KallsymsIndexKey other = ix.key;
    change(&other);
    auto r = KallsymsTablesFromIndex(std::make_shared<const MappedFile>(MappedFile::FromBuffer(
                                         std::vector<uint8_t>(ix.bytes.begin(), ix.bytes.end()))),
                                     ix.text, other);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("another kallsyms file"), std::string::npos) << r.error().message;
  }
  // The key changes with the file: rewriting it gives another mtime or size.
  testing::WriteFile(ix.path, SampleText() + "ffffffff81ff1000 T later\n");
  auto k = KallsymsIndexKeyOf(ix.path, "_text");
  ASSERT_TRUE(k.ok());
  EXPECT_NE(*k, ix.key);
  EXPECT_FALSE(KallsymsIndexKeyOf(ix.dir / "missing", "_text").ok());
  EXPECT_FALSE(KallsymsIndexKeyOf(ix.dir.path(), "_text").ok());  // a directory
  EXPECT_NE(KallsymsIndexPath("/c", *k), KallsymsIndexPath("/c", ix.key));
  EXPECT_EQ(KallsymsIndexPath("/c", ix.key).rfind("/c/kallsyms/", 0), 0u);
}

// Every truncation and a byte flip at every position of the header, the tables and the
// first entries, and random flips elsewhere: refused, or (a flip that keeps the index
// consistent, e.g. in an address) tables whose lookups stay within the data.
TEST(KallsymsIndexTest, DamagedIndexIsRefusedOrStaysInBounds) {
  Indexed ix(SampleText());
  for (size_t cut = 0; cut < ix.bytes.size(); cut += 7) {
    EXPECT_FALSE(ix.FromBytes(ix.bytes.substr(0, cut)).ok()) << cut;
  }
  std::vector<size_t> positions;
  for (size_t i = 0; i < 128 + 3 * 32 + 24 * 8 && i < ix.bytes.size(); ++i) positions.push_back(i);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) positions.push_back(rng() % ix.bytes.size());
  // Header bytes that must refuse: magic, byte order, version, the key (dev, ino, size,
  // mtime), ref_len, the counts and sizes, and the anchor's 5 characters ("_text").
  auto must_refuse = [](size_t pos) { return pos < 48 || (pos >= 60 && pos < 96 + 5); };
  for (size_t pos : positions) {
    std::string b = ix.bytes;
    b[pos] = static_cast<char>(b[pos] ^ (1 << (pos % 8)));
    auto r = ix.FromBytes(b);
    if (!r.ok()) continue;
    EXPECT_FALSE(must_refuse(pos)) << "accepted a flip at " << pos;
    // Names are read (ASan checks the bounds) and lookups stay consistent.
    for (const Symbol& s : r->kernel.symbols()) {
      if (const Symbol* f = r->kernel.Find(s.start)) {
        EXPECT_EQ(f->start, s.start);
        EXPECT_EQ(f->name, s.name);
      }
    }
  }
  // Entries out of order: refused.
  std::string swapped = ix.bytes;
  const size_t entries = 128 + 3 * 32;
  std::swap_ranges(swapped.begin() + entries, swapped.begin() + entries + 8, swapped.begin() + entries + 24);
  auto r = ix.FromBytes(swapped);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("out of order"), std::string::npos) << r.error().message;
}

TEST(KallsymsIndexTest, WriteCreatesDirectoriesAndLeavesNoTemporaries) {
  Indexed ix(SampleText());
  const std::string path = KallsymsIndexPath(ix.dir / "cache/perflens", ix.key);
  ASSERT_TRUE(WriteKallsymsIndex(path, ix.bytes).ok());
  EXPECT_EQ(testing::ReadFile(path), ix.bytes);
  ASSERT_TRUE(WriteKallsymsIndex(path, ix.bytes).ok());  // over an existing one
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(ix.dir / "cache/perflens/kallsyms")) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".idx");
  }
  EXPECT_EQ(files, 1u);
  auto opened = OpenKallsymsIndex(path, ix.text, ix.key);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  ExpectSameTables(ix.parsed, *opened);
  EXPECT_FALSE(WriteKallsymsIndex("/proc/perflens-no/x.idx", ix.bytes).ok());
}

// The key of an open descriptor is the file it was opened on: a file renamed over the
// path afterwards (same size, as kallsyms copies are) has another key, so the tables of
// the mapped text are never saved under the new file's key.
TEST(KallsymsIndexTest, DescriptorKeyIsTheMappedFiles) {
  TempDir dir;
  const std::string path = dir / "kallsyms";
  testing::WriteFile(path, SampleText());
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto by_fd = KallsymsIndexKeyOfFd(fd, path, "_text");
  auto by_path = KallsymsIndexKeyOf(path, "_text");
  ASSERT_TRUE(by_fd.ok() && by_path.ok());
  EXPECT_EQ(*by_fd, *by_path);
  testing::WriteFile(dir / "next", SampleText());
  ASSERT_EQ(rename((dir / "next").c_str(), path.c_str()), 0);
  auto after = KallsymsIndexKeyOf(path, "_text");
  ASSERT_TRUE(after.ok());
  EXPECT_NE(*after, *by_fd);
  auto still = KallsymsIndexKeyOfFd(fd, path, "_text");
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(*still, *by_fd);
  close(fd);
}

// A write first clears what earlier writers left: temporaries of dead processes (not of
// live ones), indexes older than 30 days, and all but the 16 newest.
TEST(KallsymsIndexTest, WritePrunesTheCache) {
  TempDir dir;
  const std::string kdir = dir / "kallsyms";
  ASSERT_EQ(mkdir(kdir.c_str(), 0700), 0);
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);  // a pid that no longer runs
  const std::string dead_tmp = fmt::format("{}/0000000000000001.idx.tmp.{}.0", kdir, child);
  const std::string live_tmp = fmt::format("{}/0000000000000002.idx.tmp.{}.0", kdir, getpid());
  testing::WriteFile(dead_tmp, "partial");
  testing::WriteFile(live_tmp, "in progress");
  const time_t now = time(nullptr);
  auto age = [](const std::string& p, time_t t) {
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, p.c_str(), ts, 0), 0);
  };
  for (int i = 0; i < 20; ++i) {
    const std::string p = fmt::format("{}/{:016x}.idx", kdir, 0x100 + i);
    testing::WriteFile(p, "old index");
    age(p, now - 3600 * (i + 1));  // index 0x100 is the newest
  }
  const std::string ancient = kdir + "/00000000000000ff.idx";
  testing::WriteFile(ancient, "old index");
  age(ancient, now - 31 * 24 * 3600);
  const std::string fresh = kdir + "/0000000000000fff.idx";
  ASSERT_TRUE(WriteKallsymsIndex(fresh, "new index").ok());
  EXPECT_FALSE(std::filesystem::exists(dead_tmp));
  EXPECT_TRUE(std::filesystem::exists(live_tmp));
  EXPECT_FALSE(std::filesystem::exists(ancient));
  EXPECT_EQ(testing::ReadFile(fresh), "new index");
  size_t indexes = 0;
  for (const auto& e : std::filesystem::directory_iterator(kdir)) indexes += e.path().extension() == ".idx";
  EXPECT_EQ(indexes, 16u);
  EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/{:016x}.idx", kdir, 0x100)));
  EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/{:016x}.idx", kdir, 0x100 + 14)));
  EXPECT_FALSE(std::filesystem::exists(fmt::format("{}/{:016x}.idx", kdir, 0x100 + 15)));
}

// Through the Symbolizer: the first run writes the index, the next maps it and answers
// the same; a damaged index is parsed around (and replaced).
TEST(KallsymsIndexTest, SymbolizerWritesThenUsesTheIndex) {
  TempDir dir;
  testing::WriteFile(dir / "kallsyms", SampleText());
  const std::string cache = dir / "cache";
  Dso kernel(10, "[kernel.kallsyms]", DsoKind::kKernel);
  Dso mod_b(11, "/lib/modules/6.1.0/kernel/mod_b.ko", DsoKind::kKernelModule);
  auto answers = [&] {
    Symbolizer s({.kallsyms = dir / "kallsyms", .cache_dir = cache}, nullptr);
    std::string out;
    for (uint64_t a : {0xffffffff81000150ULL, 0xffffffff81001044ULL, 0xffffffff81000500ULL, 0xffffffffc0005044ULL}) {
      out += Describe(s.Find(kernel, a)) + "; ";
    }
    out += Describe(s.Find(mod_b, 0xffffffffc0005044ULL)) + " " + s.Info(kernel).path;
    return out;
  };
  const std::string first = answers();
  auto key = KallsymsIndexKeyOf(dir / "kallsyms", "_text");
  ASSERT_TRUE(key.ok());
  const std::string index = KallsymsIndexPath(cache, *key);
  ASSERT_TRUE(std::filesystem::exists(index)) << index;
  EXPECT_EQ(answers(), first);
  testing::WriteFile(index, "PLKSYMIX garbage");
  EXPECT_EQ(answers(), first);
  EXPECT_GT(std::filesystem::file_size(index), 128u);  // rewritten after the parse
  // Without a cache directory nothing is written.
  TempDir other;
  testing::WriteFile(other / "kallsyms", SampleText());
  Symbolizer s({.kallsyms = other / "kallsyms"}, nullptr);
  ASSERT_NE(s.Find(kernel, 0xffffffff81000150ULL), nullptr);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(other.path()), std::filesystem::directory_iterator()), 1);
}

}  // namespace
}  // namespace perflens
