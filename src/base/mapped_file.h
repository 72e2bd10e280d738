// MappedFile: a read-only mmap of a regular file, or an owned buffer (for pipes and
// tests). Parsers take the bytes (std::span), never the file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace perflens {

// Which mapped file holds `addr`, for a SIGBUS handler (the CLI's): a file that shrinks
// while mapped faults on its lost pages. Async-signal-safe. Copies the file's name
// (truncated, NUL-terminated) into name_out and its byte offset into *offset; false
// when no MappedFile maps `addr`. At most 16 mappings are registered at once (more are
// simply not found).
bool LookupMappedAddress(const void* addr, char* name_out, size_t name_cap, uint64_t* offset);

// Opens `path` read-only for a library that takes a descriptor (libelf, libdw): O_NONBLOCK
// so that a FIFO named by untrusted input never blocks, O_CLOEXEC, and only a regular
// file. Returns the descriptor (the caller closes it). Errors: "PATH: strerror",
// "PATH: not a regular file".
Result<int> OpenRegularFile(const std::string& path);

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path` read-only. Errors: open/stat/mmap failure, not a regular file, or
  // larger than `max_size` bytes.
  static Result<MappedFile> Open(const std::string& path, uint64_t max_size = UINT64_MAX);
  // Maps the regular file open on `fd` (not closed; e.g. standard input redirected
  // from a file), named `name` in messages. Errors as Open.
  static Result<MappedFile> MapFd(int fd, const std::string& name, uint64_t max_size = UINT64_MAX);
  // Wraps an owned buffer.
  static MappedFile FromBuffer(std::vector<uint8_t> bytes, std::string name = "<memory>");

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }
  // Owner of the mapped file (st_uid at open); -1 for buffers.
  int64_t owner_uid() const { return owner_uid_; }
  // Gives back the resident pages of bytes [begin, end) (offsets in the file; the whole
  // pages inside the range) with MADV_DONTNEED: the process's RSS no longer counts them.
  // The bytes stay readable: the mapping is a private read-only file mapping, so a later
  // read faults them back in from the page cache, unchanged. No-op for buffers.
  void DropPages(size_t begin, size_t end) const;

 private:
  void Reset();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> owned_;
  std::string name_;
  int64_t owner_uid_ = -1;
};

}  // namespace perflens
