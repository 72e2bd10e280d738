#include "symbolize/vdso.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

extern char** environ;

namespace perflens {
namespace {

constexpr size_t kMaxImageSize = 1 << 20;
constexpr int kHelperTimeoutMs = 10000;
constexpr int kKinds = 3;

int KindIndex(DsoKind kind) {
  switch (kind) {
    case DsoKind::kVdso: return 0;
    case DsoKind::kVdso32: return 1;
    case DsoKind::kVdsox32: return 2;
    default: return -1;
  }
}

constexpr std::array<const char*, kKinds> kStems = {"vdso", "vdso32", "vdsox32"};


std::string ErrnoText(int err) { return std::strerror(err); }

// Puts `bytes` in an anonymous memory file (memfd_create): nothing on disk, nothing to
// remove at exit or on a signal, and libelf opens it as /proc/self/fd/N like any file.
// The fd (close-on-exec, in *fd) stays open until its LocalVdsos goes.
Result<std::string> WriteMemoryFile(const std::string& bytes, int index, int* out_fd) {
  int fd = memfd_create(fmt::format("perflens-{}.so", kStems[index]).c_str(), MFD_CLOEXEC);
  if (fd < 0) return Err("memfd_create: {}", ErrnoText(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      close(fd);
      return Err("cannot write the {} image to a memory file: {}", kStems[index], ErrnoText(err));
    }
    done += static_cast<size_t>(n);
  }
  *out_fd = fd;
  return fmt::format("/proc/self/fd/{}", fd);
}

// This process's vdso bytes: the r-xp "[vdso]" mapping, copied from memory.
Result<std::string> ReadOwnVdso() {
  std::ifstream maps("/proc/self/maps");
  if (!maps) return Err("cannot read /proc/self/maps: {}", ErrnoText(errno));
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long start = 0, end = 0;
    char perms[8] = {};
    int name_pos = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %*s %*s %*s %n", &start, &end, perms, &name_pos) < 3) continue;
    if (name_pos <= 0) continue;
    std::string_view name(line.c_str() + name_pos);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name != "[vdso]" || std::strncmp(perms, "r-x", 3) != 0) continue;
    if (end <= start || end - start > kMaxImageSize) {
      return Err("[vdso] mapping {:#x}-{:#x} has an implausible size", start, end);
    }
    return std::string(reinterpret_cast<const char*>(static_cast<uintptr_t>(start)), end - start);
  }
  return Err("no r-xp [vdso] line in /proc/self/maps (vdso disabled, e.g. vdso=0?)");
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::vector<std::string> HelperCandidates(DsoKind kind) {
  const char* suffix = kind == DsoKind::kVdso32 ? "32" : "x32";
  std::vector<std::string> out;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/') + 1);
    out.push_back(fmt::format("{}perflens-read-vdso{}", dir, suffix));
  }
  if (const char* libexec = std::getenv("PERFLENS_LIBEXEC_DIR"); libexec && *libexec) {
    out.push_back(fmt::format("{}/perflens-read-vdso{}", libexec, suffix));
  }
  out.push_back(fmt::format("/usr/lib/perf-core/perf-read-vdso{}", suffix));
  out.push_back(fmt::format("/usr/libexec/perf-core/perf-read-vdso{}", suffix));
  return out;
}

// Runs `path` with no arguments and returns its stdout (at most kMaxImageSize bytes).
Result<std::string> RunHelper(const std::string& path) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Err("pipe: {}", ErrnoText(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return Err("cannot run {}: {}{}", path, ErrnoText(rc),
               rc == ENOEXEC ? " (kernel without support for this ABI?)" : "");
  }
  std::string out;
  std::string problem;
  char buf[65536];
  while (problem.empty()) {
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, kHelperTimeoutMs);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) problem = fmt::format("timed out after {} ms", kHelperTimeoutMs);
    if (pr < 0) problem = ErrnoText(errno);
    if (!problem.empty()) break;
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) problem = ErrnoText(errno);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxImageSize) problem = fmt::format("output larger than {} bytes", kMaxImageSize);
  }
  if (!problem.empty()) kill(pid, SIGKILL);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!problem.empty()) return Err("{}: {}", path, problem);
  if (WIFSIGNALED(status)) return Err("{} killed by signal {}", path, WTERMSIG(status));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Err("{} exited with status {}", path, WEXITSTATUS(status));
  }
  if (out.empty()) return Err("{} printed nothing", path);
  return out;
}

Result<std::string> ReadCompatVdso(DsoKind kind) {
  std::string tried;
  for (const std::string& candidate : HelperCandidates(kind)) {
    if (!IsExecutableFile(candidate)) {
      tried += fmt::format("\n  {}: not found", candidate);
      continue;
    }
    Result<std::string> bytes = RunHelper(candidate);
    if (bytes.ok()) return bytes;
    tried += "\n  " + bytes.error().message;
  }
  return Err("no working {} helper (set PERFLENS_LIBEXEC_DIR); tried:{}", DsoKindName(kind), tried);
}

// Checks the ELF header against the kind: 64-bit for [vdso] on 64-bit hosts, ELFCLASS32
// EM_386 for [vdso32], ELFCLASS32 EM_X86_64 for [vdsox32].
Status CheckImage(const std::string& bytes, DsoKind kind) {
  if (bytes.size() < sizeof(Elf32_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return Err("{} image ({} bytes) is not an ELF file", DsoKindName(kind), bytes.size());
  }
  unsigned char elf_class = static_cast<unsigned char>(bytes[EI_CLASS]);
  uint16_t machine;
  std::memcpy(&machine, bytes.data() + offsetof(Elf32_Ehdr, e_machine), sizeof(machine));
  if (kind == DsoKind::kVdso32 && (elf_class != ELFCLASS32 || machine == EM_X86_64)) {
    return Err("[vdso32] image is not a 32-bit ELF (class {}, machine {})", elf_class, machine);
  }
  if (kind == DsoKind::kVdsox32 && (elf_class != ELFCLASS32 || machine != EM_X86_64)) {
    return Err("[vdsox32] image is not an x32 ELF (class {}, machine {})", elf_class, machine);
  }
  return Status::Ok();
}

// Scans one note buffer (as libelf converted it) for NT_GNU_BUILD_ID "GNU".
bool FindBuildIdNote(Elf_Data* data, BuildId* out) {
  if (data == nullptr) return false;
  size_t offset = 0, name_off = 0, desc_off = 0;
  GElf_Nhdr nhdr;
  while (offset < data->d_size) {
    size_t next = gelf_getnote(data, offset, &nhdr, &name_off, &desc_off);
    if (next == 0 || next <= offset) break;
    const char* base = static_cast<const char*>(data->d_buf);
    if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 && std::memcmp(base + name_off, "GNU", 4) == 0 &&
        nhdr.n_descsz > 0) {
      *out = BuildId::FromBytes(reinterpret_cast<const uint8_t*>(base + desc_off), nhdr.n_descsz);
      return true;
    }
    offset = next;
  }
  return false;
}

// The image's build-id via libelf: PT_NOTE segments first, then SHT_NOTE sections.
Result<BuildId> ImageBuildId(std::string& bytes) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(bytes.data(), bytes.size());
  if (elf == nullptr || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    return Err("vdso image is not ELF: {}", elf_errmsg(-1));
  }
  BuildId id;
  bool found = false;
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum && !found; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_NOTE) continue;
      if (phdr.p_offset > bytes.size() || phdr.p_filesz > bytes.size() - phdr.p_offset) continue;
      Elf_Type type = phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;
      found = FindBuildIdNote(elf_getdata_rawchunk(elf, static_cast<int64_t>(phdr.p_offset), phdr.p_filesz, type), &id);
    }
  }
  for (Elf_Scn* scn = nullptr; !found && (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    found = FindBuildIdNote(elf_getdata(scn, nullptr), &id);
  }
  elf_end(elf);
  return id;  // empty when the image has no build-id note
}

Result<LocalVdso> LoadLocalVdso(DsoKind kind, int index, int* fd) {
  Result<std::string> bytes = kind == DsoKind::kVdso ? ReadOwnVdso() : ReadCompatVdso(kind);
  if (!bytes.ok()) return bytes.error();
  PERFLENS_RETURN_IF_ERROR(CheckImage(*bytes, kind));
  Result<BuildId> build_id = ImageBuildId(*bytes);
  if (!build_id.ok()) return build_id.error();
  Result<std::string> path = WriteMemoryFile(*bytes, index, fd);
  if (!path.ok()) return path.error();
  return LocalVdso{std::move(*path), *build_id};
}

}  // namespace

LocalVdsos::~LocalVdsos() { Release(); }

Result<LocalVdso> LocalVdsos::Get(DsoKind kind) {
  int index = KindIndex(kind);
  if (index < 0) return Err("LocalVdsos::Get: {} is not a vdso kind", DsoKindName(kind));
  std::lock_guard<std::mutex> lock(mu_);
  if (!cache_[index].has_value()) cache_[index].emplace(LoadLocalVdso(kind, index, &fds_[index]));
  return *cache_[index];
}

void LocalVdsos::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < kKinds; ++i) {
    cache_[i].reset();
    if (fds_[i] >= 0) close(fds_[i]);
    fds_[i] = -1;
  }
}

}  // namespace perflens
