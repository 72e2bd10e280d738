// LocalVdsos::Get checked with libelf directly (not the project's ELF loader), and against
// what perf record writes into the build-id table.
#include "symbolize/vdso.h"

#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <libelf.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace perflens {
namespace {

struct ElfFacts {
  bool ok = false;
  int elf_class = 0;
  int machine = 0;
  std::string build_id_hex;
  bool has_clock_gettime = false;
};

ElfFacts InspectElf(const std::string& path) {
  ElfFacts facts;
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return facts;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    facts.ok = true;
    facts.elf_class = gelf_getclass(elf);
    GElf_Ehdr ehdr;
    if (gelf_getehdr(elf, &ehdr)) facts.machine = ehdr.e_machine;
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
      GElf_Shdr shdr;
      if (!gelf_getshdr(scn, &shdr)) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      if (shdr.sh_type == SHT_NOTE) {
        GElf_Nhdr nhdr;
        size_t off = 0, name_off, desc_off;
        while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
          if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4) {
            const auto* d = static_cast<const unsigned char*>(data->d_buf) + desc_off;
            char hex[3];
            for (size_t i = 0; i < nhdr.n_descsz; ++i) {
              std::snprintf(hex, sizeof(hex), "%02x", d[i]);
              facts.build_id_hex += hex;
            }
          }
        }
      }
      if (shdr.sh_type == SHT_DYNSYM) {
        size_t n = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
        for (size_t i = 0; i < n; ++i) {
          GElf_Sym sym;
          if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
          const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
          if (name && std::strcmp(name, "__vdso_clock_gettime") == 0) facts.has_clock_gettime = true;
        }
      }
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return facts;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string BuiltHelper(const char* suffix) {
  return std::string(PERFLENS_BINARY_DIR) + "/src/cli/perflens-read-vdso" + suffix;
}

class VdsoTest : public ::testing::Test {
 protected:
  LocalVdsos vdsos_;  // each test's own images, closed when it ends
};

TEST_F(VdsoTest, LocalVdsoIsElfWithBuildIdAndClockGettime) {
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdso);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_FALSE(v->build_id.empty());
  ElfFacts facts = InspectElf(v->path);
  ASSERT_TRUE(facts.ok) << v->path;
  EXPECT_EQ(facts.elf_class, sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32);
  EXPECT_EQ(facts.build_id_hex, v->build_id.ToHex());
  EXPECT_TRUE(facts.has_clock_gettime);

  // The bytes are exactly this process's vdso (AT_SYSINFO_EHDR points at it).
  auto* ehdr = reinterpret_cast<const char*>(getauxval(AT_SYSINFO_EHDR));
  ASSERT_NE(ehdr, nullptr);
  std::string bytes = ReadAll(v->path);
  ASSERT_GT(bytes.size(), 64u);
  EXPECT_EQ(std::memcmp(bytes.data(), ehdr, bytes.size()), 0);
}

// The image lives in a memfd: no file on disk, so nothing can be left behind by a
// signal, a crash or SIGKILL (issue #10 finding 7), and no handler is installed.
TEST_F(VdsoTest, ImageIsAMemoryFileCachedAndReleased) {
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdso);
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->path.rfind("/proc/self/fd/", 0), 0u) << v->path;
  char target[256] = {};
  ASSERT_GT(readlink(v->path.c_str(), target, sizeof(target) - 1), 0);
  EXPECT_EQ(std::string(target).rfind("/memfd:perflens-vdso.so", 0), 0u) << target;
  struct stat st;
  ASSERT_EQ(stat(v->path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));

  Result<LocalVdso> again = vdsos_.Get(DsoKind::kVdso);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->path, v->path);

  const int fd = std::stoi(v->path.substr(std::strlen("/proc/self/fd/")));
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);  // not inherited by helpers
  vdsos_.Release();
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);  // closed
  Result<LocalVdso> fresh = vdsos_.Get(DsoKind::kVdso);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->build_id, v->build_id);
}

TEST_F(VdsoTest, WritesNoFileAndInstallsNoSignalHandler) {
  char dir[] = "/tmp/perflens-vdso-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const char* old = getenv("TMPDIR");
  std::string saved = old ? old : "";
  setenv("TMPDIR", dir, 1);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaction(sig, &dfl, nullptr);
  vdsos_.Release();
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdso);
  if (old) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(rmdir(dir), 0) << "something was written to " << dir;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) {
    struct sigaction now = {};
    ASSERT_EQ(sigaction(sig, nullptr, &now), 0);
    EXPECT_FALSE(now.sa_flags & SA_SIGINFO) << sig;
    EXPECT_EQ(now.sa_handler, SIG_DFL) << sig;
  }
}

TEST_F(VdsoTest, RejectsNonVdsoKind) {
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kUser);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("not a vdso kind"), std::string::npos);
}

class CompatVdsoTest : public VdsoTest {
 protected:
  void SetUp() override { setenv("PERFLENS_LIBEXEC_DIR", PERFLENS_BINARY_DIR "/src/cli", 1); }
};

TEST_F(CompatVdsoTest, Vdso32FromHelper) {
  if (!Exists(BuiltHelper("32"))) GTEST_SKIP() << "perflens-read-vdso32 not built (no -m32 toolchain)";
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdso32);
  if (!v.ok() && v.error().message.find("Exec format error") != std::string::npos) {
    GTEST_SKIP() << "kernel cannot run 32-bit programs: " << v.error().message;
  }
  ASSERT_TRUE(v.ok()) << v.error().message;
  ElfFacts facts = InspectElf(v->path);
  ASSERT_TRUE(facts.ok);
  EXPECT_EQ(facts.elf_class, ELFCLASS32);
  EXPECT_EQ(facts.machine, EM_386);
  EXPECT_EQ(facts.build_id_hex, v->build_id.ToHex());
  EXPECT_FALSE(v->build_id.empty());
  EXPECT_TRUE(facts.has_clock_gettime);
  EXPECT_EQ(v->path.rfind("/proc/self/fd/", 0), 0u) << v->path;

  Result<LocalVdso> v64 = vdsos_.Get(DsoKind::kVdso);
  ASSERT_TRUE(v64.ok());
  EXPECT_NE(v64->build_id, v->build_id);  // different images
  EXPECT_NE(v64->path, v->path);
  vdsos_.Release();
  EXPECT_FALSE(Exists(v->path));
}

TEST_F(CompatVdsoTest, Vdsox32FromHelperOrClearError) {
  if (!Exists(BuiltHelper("x32"))) GTEST_SKIP() << "perflens-read-vdsox32 not built (no -mx32 toolchain)";
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdsox32);
  if (!v.ok()) {
    EXPECT_NE(v.error().message.find("perflens-read-vdsox32"), std::string::npos) << v.error().message;
    GTEST_SKIP() << "x32 helper cannot run here (kernel without CONFIG_X86_X32_ABI?): " << v.error().message;
  }
  ElfFacts facts = InspectElf(v->path);
  ASSERT_TRUE(facts.ok);
  EXPECT_EQ(facts.elf_class, ELFCLASS32);
  EXPECT_EQ(facts.machine, EM_X86_64);
  EXPECT_EQ(facts.build_id_hex, v->build_id.ToHex());
}

TEST_F(CompatVdsoTest, MissingHelperGivesClearError) {
  setenv("PERFLENS_LIBEXEC_DIR", "/nonexistent-libexec", 1);
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdsox32);
  if (v.ok()) GTEST_SKIP() << "a system x32 helper works here";
  // Every place looked in is named, with why it failed.
  EXPECT_NE(v.error().message.find("/nonexistent-libexec/perflens-read-vdsox32: not found"), std::string::npos)
      << v.error().message;
  EXPECT_NE(v.error().message.find("PERFLENS_LIBEXEC_DIR"), std::string::npos);
}

// --- Against perf record -------------------------------------------------------------

std::string FindPerf() {
  for (const char* p : {"/usr/bin/perf", "/usr/local/bin/perf"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// The build-id perf record stored for `dso_name` ("[vdso]") when recording `argv`.
std::string RecordedVdsoBuildId(const std::string& perf, const std::string& program, const char* dso_name,
                                std::string* why) {
  char dir[] = "/tmp/perflens-vdso-rec-XXXXXX";
  if (!mkdtemp(dir)) return "";
  std::string data = std::string(dir) + "/x.data";
  // -N: leave ~/.debug alone. The vdso entry is written even without samples in it.
  std::string cmd = perf + " record -N -q -o " + data + " -- " + program + " >/dev/null 2>&1";
  std::string result;
  if (std::system(cmd.c_str()) != 0) {
    *why = "perf record failed: " + cmd;
  } else {
    std::string list = perf + " buildid-list -i " + data + " 2>/dev/null";
    FILE* p = popen(list.c_str(), "r");
    char line[512];
    while (p && fgets(line, sizeof(line), p)) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
      size_t sp = s.find(' ');
      if (sp != std::string::npos && s.substr(sp + 1) == dso_name) result = s.substr(0, sp);
    }
    if (p) pclose(p);
    if (result.empty()) *why = std::string("no ") + dso_name + " entry in perf buildid-list";
  }
  unlink(data.c_str());
  unlink((data + ".old").c_str());
  rmdir(dir);
  return result;
}

TEST_F(VdsoTest, MatchesPerfRecordBuildIdTable) {
  std::string perf = FindPerf();
  if (perf.empty()) GTEST_SKIP() << "perf not installed";
  if (access("/bin/true", X_OK) != 0) GTEST_SKIP() << "no /bin/true";
  std::string why;
  std::string recorded = RecordedVdsoBuildId(perf, "/bin/true", "[vdso]", &why);
  if (recorded.empty()) GTEST_SKIP() << why;
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdso);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->build_id.ToHex(), recorded);
}

TEST_F(CompatVdsoTest, Vdso32MatchesPerfRecordBuildIdTable) {
  std::string perf = FindPerf();
  if (perf.empty()) GTEST_SKIP() << "perf not installed";
  std::string helper = BuiltHelper("32");
  if (!Exists(helper)) GTEST_SKIP() << "perflens-read-vdso32 not built";
  Result<LocalVdso> v = vdsos_.Get(DsoKind::kVdso32);
  if (!v.ok()) GTEST_SKIP() << v.error().message;
  // The helper is itself a 32-bit program, so perf records a [vdso32] entry for it.
  std::string why;
  std::string recorded = RecordedVdsoBuildId(perf, helper, "[vdso32]", &why);
  if (recorded.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(v->build_id.ToHex(), recorded);
}

}  // namespace
}  // namespace perflens
