// TarWriter: writes one POSIX tar archive (ustar headers, with pax extended headers for
// names or link targets of 100 bytes and more and sizes of 8 GiB and more), the format
// GNU tar, bsdtar and Python's tarfile read. Only what `perflens archive` needs:
// directories, regular files and symbolic links, owned by uid/gid 0, mtime 0 (the same
// tree gives the same bytes).
//
// Member names are taken as given (relative, no ".." — the caller's job); the writer
// checks only that they are not empty and hold no NUL byte.
//
// Errors are values: "PATH: strerror" for the output, "SOURCE: ..." for a file copied in.
// After an error the archive is incomplete; the caller removes it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace perflens {

class TarWriter {
 public:
  // Creates `path` (O_EXCL: an existing file is not overwritten; mode 0644).
  static Result<TarWriter> Create(const std::string& path);
  TarWriter(TarWriter&& other) noexcept;
  TarWriter& operator=(TarWriter&&) = delete;
  ~TarWriter();  // closes without the end marker when Finish was not called

  Status AddDirectory(std::string_view name);  // mode 0755
  Status AddSymlink(std::string_view name, std::string_view target);
  // A regular file (mode 0644) whose bytes are `data`.
  Status AddFileData(std::string_view name, std::string_view data);
  // A regular file (mode 0644) of exactly `size` bytes read from `fd` at its current
  // position; `source` names it in errors (a file that ends early is an error).
  Status AddFileFrom(std::string_view name, int fd, uint64_t size, const std::string& source);
  // Writes the end-of-archive blocks and closes the file.
  Status Finish();

  // Bytes written so far (headers and padding included).
  uint64_t bytes_written() const { return written_; }

 private:
  TarWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status Header(std::string_view name, char type, uint64_t size, std::string_view link);
  Status Write(const void* data, size_t n);
  Status Pad(uint64_t size);

  int fd_ = -1;
  std::string path_;
  uint64_t written_ = 0;
};

}  // namespace perflens
