#include "base/tar_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace perflens {
namespace {

constexpr size_t kBlock = 512;
constexpr uint64_t kMaxOctalSize = 077777777777ull;  // 11 octal digits: 8 GiB - 1

// `value` as `width - 1` octal digits and a NUL.
void PutOctal(char* field, size_t width, uint64_t value) {
  std::string digits = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, digits.data(), width - 1);
  field[width - 1] = '\0';
}

// One pax record: "<len> key=value\n", where <len> counts the whole record.
std::string PaxRecord(std::string_view key, std::string_view value) {
  size_t body = 1 + key.size() + 1 + value.size() + 1;  // " key=value\n"
  size_t len = body + 1;
  while (std::to_string(len).size() + body != len) len = std::to_string(len).size() + body;
  return fmt::format("{} {}={}\n", len, key, value);
}

}  // namespace

Result<TarWriter> TarWriter::Create(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Err("{}: {}", path, std::strerror(errno));
  return TarWriter(fd, path);
}

TarWriter::TarWriter(TarWriter&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)), written_(other.written_) {
  other.fd_ = -1;
}

TarWriter::~TarWriter() {
  if (fd_ >= 0) close(fd_);
}

Status TarWriter::Write(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Err("{}: {}", path_, std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
    written_ += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

Status TarWriter::Pad(uint64_t size) {
  static const char kZeros[kBlock] = {};
  size_t rest = size % kBlock;
  return rest ? Write(kZeros, kBlock - rest) : Status::Ok();
}

Status TarWriter::Header(std::string_view name, char type, uint64_t size, std::string_view link) {
  if (fd_ < 0) return Err("{}: archive already finished", path_);
  if (name.empty() || name.find('\0') != std::string_view::npos || link.find('\0') != std::string_view::npos)
    return Err("{}: bad member name", path_);
  std::string pax;
  if (name.size() >= 100) pax += PaxRecord("path", name);
  if (link.size() >= 100) pax += PaxRecord("linkpath", link);
  if (size > kMaxOctalSize) pax += PaxRecord("size", std::to_string(size));
  if (!pax.empty()) {
    PERFLENS_RETURN_IF_ERROR(Header("././@PaxHeader", 'x', pax.size(), ""));
    PERFLENS_RETURN_IF_ERROR(Write(pax.data(), pax.size()));
    PERFLENS_RETURN_IF_ERROR(Pad(pax.size()));
  }
  char h[kBlock] = {};
  std::memcpy(h, name.data(), std::min<size_t>(name.size(), 99));
  PutOctal(h + 100, 8, type == '5' ? 0755 : type == '2' ? 0777 : 0644);
  PutOctal(h + 108, 8, 0);
  PutOctal(h + 116, 8, 0);
  PutOctal(h + 124, 12, std::min(size, kMaxOctalSize));
  PutOctal(h + 136, 12, 0);
  h[156] = type;
  std::memcpy(h + 157, link.data(), std::min<size_t>(link.size(), 99));
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memcpy(h + 265, "root", 4);
  std::memcpy(h + 297, "root", 4);
  PutOctal(h + 329, 8, 0);
  PutOctal(h + 337, 8, 0);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  PutOctal(h + 148, 7, sum);  // six digits and a NUL; the eighth byte stays a space
  return Write(h, kBlock);
}

Status TarWriter::AddDirectory(std::string_view name) {
  std::string n(name);
  if (!n.empty() && n.back() != '/') n += '/';
  return Header(n, '5', 0, "");
}

Status TarWriter::AddSymlink(std::string_view name, std::string_view target) {
  if (target.empty()) return Err("{}: empty link target for {}", path_, name);
  return Header(name, '2', 0, target);
}

Status TarWriter::AddFileData(std::string_view name, std::string_view data) {
  PERFLENS_RETURN_IF_ERROR(Header(name, '0', data.size(), ""));
  PERFLENS_RETURN_IF_ERROR(Write(data.data(), data.size()));
  return Pad(data.size());
}

Status TarWriter::AddFileFrom(std::string_view name, int fd, uint64_t size, const std::string& source) {
  PERFLENS_RETURN_IF_ERROR(Header(name, '0', size, ""));
  std::vector<char> buf(1 << 20);
  for (uint64_t left = size; left > 0;) {
    ssize_t n = read(fd, buf.data(), static_cast<size_t>(std::min<uint64_t>(left, buf.size())));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Err("{}: {}", source, std::strerror(errno));
    if (n == 0) return Err("{}: ended {} bytes early (changed while archived?)", source, left);
    PERFLENS_RETURN_IF_ERROR(Write(buf.data(), static_cast<size_t>(n)));
    left -= static_cast<uint64_t>(n);
  }
  return Pad(size);
}

Status TarWriter::Finish() {
  if (fd_ < 0) return Err("{}: archive already finished", path_);
  static const char kZeros[2 * kBlock] = {};
  PERFLENS_RETURN_IF_ERROR(Write(kZeros, sizeof kZeros));
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) return Err("{}: {}", path_, std::strerror(errno));
  return Status::Ok();
}

}  // namespace perflens
