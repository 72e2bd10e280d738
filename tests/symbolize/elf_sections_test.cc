// HideCompressedSections and InflateDebugSections on a real -gz (zlib) object: hidden
// sections lose their name and stay compressed; inflated ones (the largest on a helper
// thread) hold exactly the bytes `objcopy --decompress-debug-sections` writes.
#include "symbolize/elf_sections.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace perflens {
namespace {

struct Section {
  bool compressed = false;
  std::vector<uint8_t> bytes;  // elf_getdata's, once not compressed
};

// name → section of the ELF open on `elf`.
std::map<std::string, Section> Sections(Elf* elf) {
  std::map<std::string, Section> out;
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr mem;
    GElf_Shdr* shdr = gelf_getshdr(scn, &mem);
    const char* name = shdr ? elf_strptr(elf, shstrndx, shdr->sh_name) : nullptr;
    if (!name) continue;
    Section& s = out[name];
    s.compressed = (shdr->sh_flags & SHF_COMPRESSED) != 0;
    if (Elf_Data* d = s.compressed ? nullptr : elf_getdata(scn, nullptr); d && d->d_buf)
      s.bytes.assign(static_cast<const uint8_t*>(d->d_buf), static_cast<const uint8_t*>(d->d_buf) + d->d_size);
  }
  return out;
}

class ElfSectionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/perflens-elfsec-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    FILE* f = std::fopen((dir_ + "/f.c").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("int g(int);\n", f);  // enough code that every debug section compresses
    for (int i = 0; i < 300; ++i) std::fprintf(f, "int F%d(int x) { int y = g(x) * %d; return y + g(y + %d); }\n", i, i, i);
    std::fclose(f);
    const std::string cmd = "cd " + dir_ + " && cc -O2 -g -gz=zlib -fPIC -shared -o gz.so f.c >/dev/null 2>&1" +
                            " && objcopy --decompress-debug-sections gz.so plain.so";
    have_ = std::system(cmd.c_str()) == 0;
    elf_version(EV_CURRENT);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  Elf* Open(const std::string& name, Elf_Cmd cmd, int* fd) {
    *fd = open((dir_ + "/" + name).c_str(), O_RDONLY);
    return *fd >= 0 ? elf_begin(*fd, cmd, nullptr) : nullptr;
  }
  std::string dir_;
  bool have_ = false;
};

TEST_F(ElfSectionsTest, InflatedOnTwoThreadsAsObjcopyDoes) {
  if (!have_) GTEST_SKIP() << "no cc -gz or objcopy";
  int fd_gz, fd_plain;
  Elf* gz = Open("gz.so", ELF_C_READ_MMAP_PRIVATE, &fd_gz);
  Elf* plain = Open("plain.so", ELF_C_READ_MMAP, &fd_plain);
  ASSERT_TRUE(gz && plain);
  std::map<std::string, Section> before = Sections(gz);
  ASSERT_TRUE(before[".debug_info"].compressed) << "the compiler did not compress .debug_info";
  HideCompressedSections(gz, [](std::string_view name) { return name == ".debug_loclists"; });
  InflateDebugSections(gz, /*parallel_from=*/0);  // the largest on a helper, always
  std::map<std::string, Section> after = Sections(gz), want = Sections(plain);
  if (before.count(".debug_loclists") && before[".debug_loclists"].compressed) {
    EXPECT_EQ(after.count(".debug_loclists"), 0u) << "hidden: no longer found by name";
    EXPECT_TRUE(after[""].compressed) << "the hidden section keeps its bytes, compressed";
  }
  size_t inflated = 0;
  for (const auto& [name, s] : before) {
    if (!s.compressed || name == ".debug_loclists") continue;
    ASSERT_TRUE(after.count(name)) << name;
    EXPECT_FALSE(after[name].compressed) << name;
    EXPECT_EQ(after[name].bytes, want[name].bytes) << name;
    ++inflated;
  }
  EXPECT_GE(inflated, 3u) << "info, abbrev, line at least";
  elf_end(gz);
  elf_end(plain);
  close(fd_gz);
  close(fd_plain);
}

}  // namespace
}  // namespace perflens
