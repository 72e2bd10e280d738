#include "symbolize/elf_symbols.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "elf_test_util.h"
#include "symbolize/demangle.h"

namespace perflens {
namespace {

using testing::Compile;
using testing::TempDir;

// Checks that `name` resolves at the file offset computed from nm + readelf -l.
void ExpectAtFileOffset(const SymbolTable& t, const std::string& binary, const std::string& raw_name,
                        const std::string& shown_name) {
  auto values = testing::NmValues(binary);
  ASSERT_TRUE(values.count(raw_name)) << raw_name << " not in nm output of " << binary;
  uint64_t offset = testing::VaddrToOffset(testing::ReadelfLoads(binary), values[raw_name]);
  const Symbol* s = t.Find(offset);
  ASSERT_NE(s, nullptr) << shown_name << " at " << std::hex << offset;
  EXPECT_EQ(s->name, shown_name);
  EXPECT_EQ(s->start, offset);
  EXPECT_EQ(t.Find(offset + 1)->name, shown_name);
}

struct Variant {
  const char* name;
  const char* flags;
};

class ElfVariantTest : public ::testing::TestWithParam<Variant> {};

TEST_P(ElfVariantTest, SymbolsAtFileOffsets) {
  TempDir dir;
  std::string bin = dir / "prog";
  if (!Compile(dir, testing::kCProgram, "c", GetParam().flags, bin)) GTEST_SKIP() << "toolchain lacks " << GetParam().flags;
  auto t = LoadElfSymbols(bin, bin, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ExpectAtFileOffset(*t, bin, "main", "main");
  ExpectAtFileOffset(*t, bin, "spin_leaf", "spin_leaf");
  ExpectAtFileOffset(*t, bin, "local_helper", "local_helper");
  ExpectAtFileOffset(*t, bin, "weak_fn", "weak_fn");
  ExpectAtFileOffset(*t, bin, "global_counter", "global_counter");
  auto info = ReadElfInfo(bin);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->build_id.ToHex(), testing::ReadelfBuildId(bin));
  EXPECT_TRUE(info->has_symtab);
  EXPECT_EQ(info->elf_class, ElfClass::k64);
}

INSTANTIATE_TEST_SUITE_P(Link, ElfVariantTest,
                         ::testing::Values(Variant{"pie", "-fPIE -pie"}, Variant{"nopie", "-fno-pie -no-pie"},
                                           Variant{"staticpie", "-static-pie -fPIE"},
                                           Variant{"static", "-static"},
                                           // Moves .text so p_vaddr - p_offset != 0 for the text segment.
                                           Variant{"shifted", "-fno-pie -no-pie -Wl,-Ttext-segment=0x800000"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ElfSymbolsTest, StrippedBinaryWithDebugFile) {
  TempDir dir;
  std::string bin = dir / "prog", dbg = dir / "prog.debug", stripped = dir / "prog.stripped";
  ASSERT_TRUE(Compile(dir, testing::kCProgram, "c", "-fPIE -pie", bin));
  ASSERT_TRUE(testing::Run("objcopy --only-keep-debug " + bin + " " + dbg));
  ASSERT_TRUE(testing::Run("objcopy --strip-all --add-gnu-debuglink=" + dbg + " " + bin + " " + stripped));
  auto sinfo = ReadElfInfo(stripped);
  ASSERT_TRUE(sinfo.ok());
  EXPECT_FALSE(sinfo->has_symtab);
  EXPECT_TRUE(sinfo->has_dynsym);
  EXPECT_EQ(sinfo->debuglink, "prog.debug");
  auto dinfo = ReadElfInfo(dbg);
  ASSERT_TRUE(dinfo.ok());
  EXPECT_TRUE(dinfo->has_symtab);
  EXPECT_FALSE(dinfo->has_dynsym);  // NOBITS in a debug file
  EXPECT_EQ(dinfo->build_id, sinfo->build_id);
  // Symbols from the debug file, offsets through the stripped runtime image.
  auto t = LoadElfSymbols(dbg, stripped, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ExpectAtFileOffset(*t, bin, "local_helper", "local_helper");
  ExpectAtFileOffset(*t, bin, "main", "main");
  // The stripped file alone has only .dynsym: main is not exported, the PLT is there.
  auto only_dyn = LoadElfSymbols(stripped, stripped, {});
  ASSERT_TRUE(only_dyn.ok());
  uint64_t main_off = testing::VaddrToOffset(testing::ReadelfLoads(bin), testing::NmValues(bin)["main"]);
  const Symbol* s = only_dyn->Find(main_off);
  EXPECT_TRUE(s == nullptr || s->name != "main");
}

TEST(ElfSymbolsTest, PltEntriesNamedAsPerf) {
  for (std::string flags : {"-fPIE -pie", "-fPIE -pie -fcf-protection=full -Wl,-z,ibtplt", "-fno-pie -no-pie"}) {
    SCOPED_TRACE(flags);
    TempDir dir;
    std::string bin = dir / "prog";
    ASSERT_TRUE(Compile(dir, testing::kCProgram, "c", "-fno-builtin " + flags, bin));
    auto t = LoadElfSymbols(bin, bin, {});
    ASSERT_TRUE(t.ok()) << t.error().message;
    uint64_t plt_off = 0, plt_size = 0, sec_off = 0, sec_size = 0;
    ASSERT_TRUE(testing::ReadelfSection(bin, ".plt", &plt_off, &plt_size));
    bool has_sec = testing::ReadelfSection(bin, ".plt.sec", &sec_off, &sec_size);
    uint64_t first = has_sec ? sec_off : plt_off + 16;
    EXPECT_EQ(t->Find(plt_off)->name, ".plt");
    // abs and labs are called through the PLT; their order follows .rela.plt/GOT.
    std::set<std::string> names;
    for (uint64_t at = first; at < first + 32; at += 16) {
      const Symbol* s = t->Find(at + 4);
      ASSERT_NE(s, nullptr);
      EXPECT_EQ(s->start, at);
      names.insert(std::string(s->name));
    }
    EXPECT_TRUE(names.count("abs@plt")) << *names.begin();
    EXPECT_TRUE(names.count("labs@plt"));
  }
}

TEST(ElfSymbolsTest, CxxNamesAsPerf61PrintsThem) {
  TempDir dir;
  std::string bin = dir / "prog";
  ASSERT_TRUE(Compile(dir, testing::kCxxProgram, "c++", "-fno-inline", bin));
  auto t = LoadElfSymbols(bin, bin, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ExpectAtFileOffset(*t, bin, "_ZN2ns3BoxIlE4SpinEi", "ns::Box<long>::Spin");
  ExpectAtFileOffset(*t, bin, "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back");
  ElfSymbolOptions raw;
  raw.demangle = false;
  auto r = LoadElfSymbols(bin, bin, raw);
  ASSERT_TRUE(r.ok());
  ExpectAtFileOffset(*r, bin, "_ZN2ns3BoxIlE4SpinEi", "_ZN2ns3BoxIlE4SpinEi");
}

TEST(DemangleTest, MatchesPerf61NoParams) {
  // Observed in perf 6.1 `perf report` output.
  EXPECT_EQ(DemangleLikePerf("_ZNSt15__new_allocatorIiE9constructIiJRKiEEEvPT_DpOT0_"),
            "std::__new_allocator<int>::construct<int, int const&>");
  EXPECT_EQ(DemangleLikePerf("_ZNSt16allocator_traitsISaIiEE9constructIiJRKiEEEvRS0_PT_DpOT0_"),
            "std::allocator_traits<std::allocator<int> >::construct<int, int const&>");
  EXPECT_EQ(DemangleLikePerf("_Znwm"), "operator new");
  EXPECT_EQ(DemangleLikePerf("main"), "");
  EXPECT_EQ(DemangleLikePerf("_ZN3FooclEi"), "Foo::operator()");
  EXPECT_EQ(DemangleLikePerf("_ZNK3Foo3barEv"), "Foo::bar");
  EXPECT_EQ(DemangleLikePerf("_Z3fooi.cold"), "foo");
  EXPECT_EQ(DemangleLikePerf("_ZNSt6vectorIiSaIiEE9push_backERKi@@GLIBCXX_3.4"),
            "std::vector<int, std::allocator<int> >::push_back");
  EXPECT_EQ(DemangleLikePerf("_ZltIiEbRK1AIT_ES4_"), "operator< <int>");
  EXPECT_EQ(DemangleLikePerf("_ZN12_GLOBAL__N_13fooEv"), "(anonymous namespace)::foo");
  EXPECT_EQ(DemangleLikePerf("_ZTV3Foo"), "vtable for Foo");
  EXPECT_EQ(DemangleLikePerf("_ZN3FoocviEv"), "Foo::operator int");
  EXPECT_EQ(DemangleLikePerf("_ZZ4mainENKUliE_clEi"), "main::{lambda(int)#1}::operator()");
  EXPECT_FALSE(DemangleLikePerf("_Z1fIiEPFvvEv").empty());  // function returning a pointer: rare, best effort
}

TEST(ElfSymbolsTest, MalformedFilesAreErrorsNotCrashes) {
  TempDir dir;
  std::string bin = dir / "prog";
  ASSERT_TRUE(Compile(dir, testing::kCProgram, "c", "-fPIE -pie", bin));
  std::string bytes = testing::ReadFile(bin);
  // Truncated: header only, half the file, not ELF at all, a directory, a FIFO.
  testing::WriteFile(dir / "t1", bytes.substr(0, 10));
  testing::WriteFile(dir / "t2", bytes.substr(0, bytes.size() / 2));
  testing::WriteFile(dir / "t3", "hello, not an elf file\n");
  ASSERT_TRUE(testing::Run("mkfifo " + (dir / "fifo")));
  for (const char* name : {"t1", "t3", "fifo", "missing"}) {
    EXPECT_FALSE(ReadElfInfo(dir / name).ok()) << name;
    EXPECT_FALSE(LoadElfSymbols(dir / name, dir / name, {}).ok()) << name;
  }
  EXPECT_FALSE(ReadElfInfo(dir.path()).ok());
  auto half = LoadElfSymbols(dir / "t2", dir / "t2", {});
  ASSERT_FALSE(half.ok());  // .symtab is at the end of the file
  EXPECT_NE(half.error().message.find("past the end"), std::string::npos) << half.error().message;
  // A .symtab whose sh_link is out of range, and one whose offset is past the end.
  auto patch_symtab = [&](size_t field_off, uint64_t value, size_t width) {
    std::string m = bytes;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    std::memcpy(&shoff, &m[0x28], 8);
    std::memcpy(&shentsize, &m[0x3a], 2);
    std::memcpy(&shnum, &m[0x3c], 2);
    for (uint16_t i = 0; i < shnum; ++i) {
      char* sh = &m[shoff + i * shentsize];
      uint32_t type;
      std::memcpy(&type, sh + 4, 4);
      if (type == 2 /*SHT_SYMTAB*/) std::memcpy(sh + field_off, &value, width);
    }
    return m;
  };
  testing::WriteFile(dir / "badlink", patch_symtab(40 /*sh_link*/, 0xffff, 4));
  auto bad_link = LoadElfSymbols(dir / "badlink", dir / "badlink", {});
  ASSERT_FALSE(bad_link.ok());
  EXPECT_NE(bad_link.error().message.find("not a string table"), std::string::npos) << bad_link.error().message;
  testing::WriteFile(dir / "badoff", patch_symtab(24 /*sh_offset*/, 0x7fffffff0000ull, 8));
  auto bad_off = LoadElfSymbols(dir / "badoff", dir / "badoff", {});
  ASSERT_FALSE(bad_off.ok());
  EXPECT_NE(bad_off.error().message.find("past the end"), std::string::npos) << bad_off.error().message;
  // Byte flips across the headers and tables: any result, never a crash.
  uint32_t seed = 12345;
  for (int i = 0; i < 300; ++i) {
    std::string mutated = bytes;
    for (int k = 0; k < 8; ++k) {
      seed = seed * 1103515245 + 12345;
      size_t pos = (i % 2 ? seed % 256 : seed % mutated.size());
      mutated[pos] = static_cast<char>(seed >> 16);
    }
    testing::WriteFile(dir / "m", mutated);
    (void)ReadElfInfo(dir / "m");
    (void)LoadElfSymbols(dir / "m", dir / "m", {});
  }
}

}  // namespace
}  // namespace perflens
