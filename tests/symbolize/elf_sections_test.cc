// HideCompressedSections and InflateDebugSections on a real -gz (zlib) object: hidden
// sections lose their name and stay compressed; inflated ones (the largest on a helper
// thread) hold exactly the bytes `objcopy --decompress-debug-sections` writes.
// InflatedDebugImage on zlib and zstd (objcopy) objects: an image libelf and libdw open
// with exactly the kept sections' inflated bytes, and its refusals.
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

#include <elfutils/libdw.h>
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
    have_zstd_ = have_ && std::system(("cd " + dir_ +
                                       " && objcopy --compress-debug-sections=zstd plain.so zstd.so >/dev/null 2>&1")
                                          .c_str()) == 0;
    elf_version(EV_CURRENT);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  Elf* Open(const std::string& name, Elf_Cmd cmd, int* fd) {
    *fd = open((dir_ + "/" + name).c_str(), O_RDONLY);
    return *fd >= 0 ? elf_begin(*fd, cmd, nullptr) : nullptr;
  }
  // The bytes of the file `name` in dir_.
  std::vector<char> Read(const std::string& name) {
    std::vector<char> out;
    if (FILE* f = std::fopen((dir_ + "/" + name).c_str(), "rb")) {
      char buf[65536];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.insert(out.end(), buf, buf + n);
      std::fclose(f);
    }
    return out;
  }
  void Write(const std::string& name, const std::vector<char>& bytes) {
    FILE* f = std::fopen((dir_ + "/" + name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  // InflatedDebugImage of the file `name`, keeping every debug section but loclists.
  Result<ElfImage> ImageOf(const std::string& name) {
    int fd;
    Elf* elf = Open(name, ELF_C_READ_MMAP, &fd);
    if (!elf) return Err("cannot open {}", name);
    Result<ElfImage> image =
        InflatedDebugImage(elf, [](std::string_view n) { return n != ".debug_loclists"; }, /*parallel_from=*/0);
    elf_end(elf);
    close(fd);
    return image;
  }
  // The file offset of `section`'s bytes in the ELF64 file `bytes` (0: none).
  static uint64_t SectionOffset(const std::vector<char>& bytes, const std::string& section) {
    Elf* elf = elf_memory(const_cast<char*>(bytes.data()), bytes.size());
    uint64_t offset = 0;
    size_t shstrndx;
    if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
      for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr mem;
        GElf_Shdr* shdr = gelf_getshdr(scn, &mem);
        const char* name = shdr ? elf_strptr(elf, shstrndx, shdr->sh_name) : nullptr;
        if (name && section == name) offset = shdr->sh_offset;
      }
    }
    if (elf) elf_end(elf);
    return offset;
  }
  std::string dir_;
  bool have_ = false, have_zstd_ = false;
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

// The image holds the kept sections inflated, byte for byte objcopy's, and libdw reads
// its compile units: from zlib (libdeflate) and from zstd (libzstd).
TEST_F(ElfSectionsTest, ImageOfInflatedSectionsAsObjcopyWritesThem) {
  if (!have_) GTEST_SKIP() << "no cc -gz or objcopy";
  int fd_plain;
  Elf* plain = Open("plain.so", ELF_C_READ_MMAP, &fd_plain);
  ASSERT_NE(plain, nullptr);
  std::map<std::string, Section> want = Sections(plain);
  for (const std::string file : {"gz.so", "zstd.so"}) {
    SCOPED_TRACE(file);
    if (file == "zstd.so" && !have_zstd_) continue;  // objcopy without zstd: zlib only
    Result<ElfImage> image = ImageOf(file);
    ASSERT_TRUE(image.ok()) << image.error().message;
    Elf* elf = elf_memory(image->bytes.get(), image->size);
    ASSERT_NE(elf, nullptr) << elf_errmsg(-1);
    std::map<std::string, Section> got = Sections(elf);
    size_t debug = 0;
    for (const auto& [name, s] : want) {
      if (name.rfind(".debug_", 0) != 0) continue;
      if (name == ".debug_loclists") {
        EXPECT_EQ(got.count(name), 0u) << "not kept";
        continue;
      }
      ASSERT_TRUE(got.count(name)) << name;
      EXPECT_FALSE(got[name].compressed) << name;
      EXPECT_EQ(got[name].bytes, s.bytes) << name;
      ++debug;
    }
    EXPECT_GE(debug, 3u) << "info, abbrev, line at least";
    EXPECT_EQ(got.size(), debug + 1) << "the kept sections and .shstrtab";
    Dwarf* dw = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
    ASSERT_NE(dw, nullptr) << dwarf_errmsg(-1);
    size_t cus = 0;
    for (Dwarf_Off off = 0, next; dwarf_nextcu(dw, off, &next, nullptr, nullptr, nullptr, nullptr) == 0; off = next)
      ++cus;
    EXPECT_EQ(cus, 1u);
    dwarf_end(dw);
    elf_end(elf);
  }
  elf_end(plain);
  close(fd_plain);
}

// What the image cannot stand for is refused, so that the caller reads the file as it
// is: a claimed size beyond deflate's ratio, a stream shorter than its claim, a dwz alt
// file (libdw finds it through the file's path), and nothing compressed.
TEST_F(ElfSectionsTest, ImageRefusesClaimsTheStreamCannotKeepAndDwzFiles) {
  if (!have_) GTEST_SKIP() << "no cc -gz or objcopy";
  const std::vector<char> gz = Read("gz.so");
  const uint64_t info = SectionOffset(gz, ".debug_info");
  ASSERT_NE(info, 0u);
  auto with_claim = [&](uint64_t ch_size) {
    std::vector<char> bytes = gz;
    std::memcpy(bytes.data() + info + 8, &ch_size, 8);  // Elf64_Chdr.ch_size
    return bytes;
  };
  uint64_t claimed;
  std::memcpy(&claimed, gz.data() + info + 8, 8);
  Write("huge.so", with_claim(uint64_t{1} << 40));
  Write("long.so", with_claim(claimed + 1));
  Result<ElfImage> huge = ImageOf("huge.so"), longer = ImageOf("long.so");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find(".debug_info: claims 1099511627776 inflated bytes"), std::string::npos)
      << huge.error().message;
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.error().message.find(".debug_info: does not inflate to its claimed"), std::string::npos)
      << longer.error().message;
  ASSERT_TRUE(ImageOf("gz.so").ok()) << "the unpatched file is accepted";
  Result<ElfImage> plain = ImageOf("plain.so");
  ASSERT_FALSE(plain.ok()) << "nothing to inflate: the file is read in place";
  EXPECT_NE(plain.error().message.find("no compressed debug section"), std::string::npos) << plain.error().message;
  Write("alt", {'x', '\0'});
  ASSERT_EQ(std::system(("cd " + dir_ + " && objcopy --add-section .gnu_debugaltlink=alt gz.so dwz.so").c_str()), 0);
  Result<ElfImage> dwz = ImageOf("dwz.so");
  ASSERT_FALSE(dwz.ok());
  EXPECT_NE(dwz.error().message.find("gnu_debugaltlink"), std::string::npos) << dwz.error().message;
}

}  // namespace
}  // namespace perflens
