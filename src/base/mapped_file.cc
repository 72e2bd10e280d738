#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace perflens {

Result<int> OpenRegularFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Err("{}: {}", path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Err("{}: not a regular file", path);
  }
  return fd;
}
namespace {

// Live mappings for LookupMappedAddress. A slot is claimed by a CAS on `start` from 0
// to 1, filled, then published by storing the real start; cleared by storing 0.
struct Registered {
  std::atomic<uintptr_t> start{0};
  size_t size = 0;
  char name[256] = {};
};
Registered g_registered[16];

void Register(const uint8_t* data, size_t size, const std::string& name) {
  for (Registered& r : g_registered) {
    uintptr_t expected = 0;
    if (!r.start.compare_exchange_strong(expected, 1, std::memory_order_acquire)) continue;
    r.size = size;
    size_t n = std::min(name.size(), sizeof(r.name) - 1);
    std::memcpy(r.name, name.data(), n);
    r.name[n] = '\0';
    r.start.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
    return;
  }
}

void Unregister(const uint8_t* data) {
  for (Registered& r : g_registered)
    if (r.start.load(std::memory_order_acquire) == reinterpret_cast<uintptr_t>(data)) r.start.store(0, std::memory_order_release);
}

}  // namespace

bool LookupMappedAddress(const void* addr, char* name_out, size_t name_cap, uint64_t* offset) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  for (Registered& r : g_registered) {
    const uintptr_t start = r.start.load(std::memory_order_acquire);
    if (start <= 1 || a < start || a - start >= r.size) continue;
    size_t i = 0;
    for (; name_cap && i + 1 < name_cap && r.name[i]; ++i) name_out[i] = r.name[i];
    if (name_cap) name_out[i] = '\0';
    *offset = a - start;
    return true;
  }
  return false;
}

MappedFile::MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    Reset();
    owned_ = std::move(o.owned_);
    mapped_ = o.mapped_;
    size_ = o.size_;
    data_ = mapped_ ? o.data_ : owned_.data();
    name_ = std::move(o.name_);
    owner_uid_ = o.owner_uid_;
    o.data_ = nullptr;
    o.size_ = 0;
    o.mapped_ = false;
  }
  return *this;
}

MappedFile::~MappedFile() { Reset(); }

void MappedFile::Reset() {
  if (mapped_ && data_) {
    Unregister(data_);
    munmap(const_cast<uint8_t*>(data_), size_);
  }
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  owned_.clear();
}

Result<MappedFile> MappedFile::Open(const std::string& path, uint64_t max_size) {
  // O_NONBLOCK so that a FIFO named by hostile data never blocks the open.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Err("{}: {}", path, strerror(errno));
  auto f = MapFd(fd, path, max_size);
  ::close(fd);
  return f;
}

Result<MappedFile> MappedFile::MapFd(int fd, const std::string& name, uint64_t max_size) {
  struct stat st;
  if (fstat(fd, &st) != 0) return Err("{}: {}", name, strerror(errno));
  if (!S_ISREG(st.st_mode)) return Err("{}: not a regular file", name);
  if (static_cast<uint64_t>(st.st_size) > max_size)
    return Err("{}: file too large ({} bytes, limit {})", name, st.st_size, max_size);
  MappedFile f;
  f.name_ = name;
  f.owner_uid_ = st.st_uid;
  f.size_ = static_cast<size_t>(st.st_size);
  if (f.size_ > 0) {
    void* p = mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return Err("{}: mmap: {}", name, strerror(errno));
    madvise(p, f.size_, MADV_SEQUENTIAL);
    f.data_ = static_cast<const uint8_t*>(p);
    f.mapped_ = true;
    Register(f.data_, f.size_, name);
  }
  return f;
}

void MappedFile::DropPages(size_t begin, size_t end) const {
  if (!mapped_) return;
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  end = std::min(end, size_);
  begin = (begin + kPage - 1) / kPage * kPage;  // data_ is page-aligned (mmap)
  end = end / kPage * kPage;
  if (end > begin) madvise(const_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED);
}

MappedFile MappedFile::FromBuffer(std::vector<uint8_t> bytes, std::string name) {
  MappedFile f;
  f.owned_ = std::move(bytes);
  f.data_ = f.owned_.data();
  f.size_ = f.owned_.size();
  f.name_ = std::move(name);
  return f;
}

}  // namespace perflens
