#include "perfdata/perf_file.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "perfdata/chunk_pool.h"
#include "perfdata/decompressor.h"
#include "perfdata/perf_event.h"
#include "perfdata/record_cursor.h"
#include "perfdata/record_dispatch.h"
#include "perfdata/record_ordering.h"

namespace perflens {
namespace {

constexpr uint64_t kPipeHeaderSize = PerfHeader::kPipeHeaderSize;
// Pipe input is read into chunks of this size (a record is at most 64 KiB).
constexpr size_t kStreamChunk = 1 << 20;

}  // namespace

Result<std::unique_ptr<PerfFile>> PerfFile::Open(const std::string& path, const ReaderOptions& options) {
  if (path == "-") {
    // Standard input redirected from a file is mapped like one; a pipe is streamed.
    struct stat st;
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
      auto bytes = MappedFile::MapFd(STDIN_FILENO, "<stdin>");
      if (!bytes) return bytes.error();
      return FromBytes(std::move(*bytes), options);
    }
    return FromStream(STDIN_FILENO, "<stdin>", options);
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return OpenDirectory(path, options);
  auto bytes = OpenOwned(path, options);
  if (!bytes) return bytes.error();
  return FromBytes(std::move(*bytes), options);
}

Result<MappedFile> PerfFile::OpenOwned(const std::string& path, const ReaderOptions& options) {
  auto bytes = MappedFile::Open(path);
  if (!bytes) return bytes.error();
  // perf's open_file_read: only files of the current user or root, unless forced.
  if (!options.force && bytes->owner_uid() != 0 && bytes->owner_uid() != static_cast<int64_t>(geteuid()))
    return Err("{}: not owned by the current user or root (owner uid {}); use -f/--force to read it anyway", path,
               bytes->owner_uid());
  return bytes;
}

Result<std::unique_ptr<PerfFile>> PerfFile::OpenDirectory(const std::string& dir, const ReaderOptions& options) {
  auto header = OpenOwned(dir + "/data", options);
  if (!header) return Err("{}: a directory, but not a perf record --threads one: {}", dir, header.error().message);
  auto f = FromBytes(std::move(*header), options);
  if (!f) return f.error();
  if (!(*f)->env().dir_format_version)
    return Err("{}/data: no HEADER_DIR_FORMAT feature: {} is not a perf record --threads directory", dir, dir);
  // data.N, N decimal, in N order (perf takes every "data.*" entry).
  std::vector<std::pair<uint64_t, std::string>> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      std::string_view name = e->d_name;
      if (name.size() <= 5 || name.substr(0, 5) != "data." || name.size() > 5 + 9) continue;
      uint64_t n = 0;
      bool digits = true;
      for (char c : name.substr(5)) {
        digits &= c >= '0' && c <= '9';
        n = n * 10 + static_cast<uint64_t>(c - '0');
      }
      if (digits) names.emplace_back(n, std::string(name));
    }
    closedir(d);
  } else {
    return Err("{}: {}", dir, strerror(errno));
  }
  std::sort(names.begin(), names.end());
  (*f)->directory_ = true;
  for (const auto& [n, name] : names) {
    struct stat st;
    const std::string path = dir + "/" + name;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) continue;  // perf skips empty ones
    auto bytes = OpenOwned(path, options);
    if (!bytes) return bytes.error();
    (*f)->dir_files_.push_back(std::move(*bytes));
  }
  return f;
}

namespace {

// Reads up to `n` bytes from `fd` into `out` (EINTR retried). Returns the count, 0 at
// end of input, or an error.
Result<size_t> ReadSome(int fd, uint8_t* out, size_t n, const std::string& name) {
  for (;;) {
    ssize_t got = ::read(fd, out, n);
    if (got >= 0) return static_cast<size_t>(got);
    if (errno == EINTR) continue;
    return Err("{}: read: {}", name, strerror(errno));
  }
}

// Reads from `fd` until `buf` holds at least `want` bytes or input ends; false at end.
Result<bool> FillTo(int fd, std::vector<uint8_t>* buf, size_t want, const std::string& name) {
  while (buf->size() < want) {
    size_t old = buf->size();
    buf->resize(std::max(want, old + (64 << 10)));
    auto got = ReadSome(fd, buf->data() + old, buf->size() - old, name);
    if (!got) {
      buf->resize(old);
      return got.error();
    }
    buf->resize(old + *got);
    if (*got == 0) return false;
  }
  return true;
}

bool IsStreamHeaderType(uint32_t type) {
  return type == kRecordHeaderAttr || type == kRecordHeaderEventType || type == kRecordHeaderTracingData ||
         type == kRecordHeaderBuildId || type == kRecordHeaderFeature || type == kRecordEventUpdate ||
         type == kRecordIdIndex || type == kRecordFinishedRound || type == kRecordTimeConv ||
         type == kRecordStatConfig || type == kRecordThreadMap || type == kRecordCpuMap;
}

}  // namespace

Result<std::unique_ptr<PerfFile>> PerfFile::FromStream(int fd, const std::string& name, const ReaderOptions& options) {
  std::unique_ptr<PerfFile> f(new PerfFile());
  f->file_ = MappedFile::FromBuffer({}, name);
  f->options_ = options;
  f->stream_fd_ = fd;
  PerfHeader& h = f->header_;
  std::vector<uint8_t>& head = f->stream_head_;
  // The magic first, as soon as it arrives: garbage is refused before more is read.
  auto more = FillTo(fd, &head, 8, name);
  if (!more) return more.error();
  if (head.size() < 8) return Err("{}: not a perf.data file: {} bytes, shorter than any perf header", name, head.size());
  PERFLENS_RETURN_IF_ERROR(h.ReadMagic(head.data(), name));
  more = FillTo(fd, &head, kPipeHeaderSize, name);
  if (!more) return more.error();
  if (head.size() < kPipeHeaderSize) return Err("{}: stream ends inside the 16-byte pipe header", name);
  PERFLENS_RETURN_IF_ERROR(h.ParsePipeHeaderStart(head.data(), name));
  const Loader& ld = h.loader();
  // Header records up to the first kernel record: attrs, features, event names.
  uint64_t pos = kPipeHeaderSize;
  std::vector<std::string> ignored;
  for (;;) {
    more = FillTo(fd, &head, pos + 8, name);
    if (!more) return more.error();
    if (!*more) break;
    const uint32_t type = ld.U32(head.data() + pos);
    const uint16_t size = ld.U16(head.data() + pos + 6);
    if (type < 64 || !IsStreamHeaderType(type) || size < 8) break;
    more = FillTo(fd, &head, pos + size, name);
    if (!more) return more.error();
    if (!*more) break;
    RecordView r = ViewAt(ld, head.data() + pos, pos);
    if (const uint64_t extra = TrailingBytes(ld, r, true)) {
      // The tracing data names tracepoint evsels, so it is read now (perf writes it
      // before the first kernel record); as much of it as arrives, which ReadRecords
      // then skips again. Other trailing payloads (AUX data) are ReadRecords' to skip.
      if (r.type != kRecordHeaderTracingData) break;
      // In steps, so a claimed size allocates no more than arrives (plus a step).
      const uint64_t target = pos + size + extra;
      do {
        more = FillTo(fd, &head, static_cast<size_t>(std::min<uint64_t>(target, head.size() + (1u << 20))), name);
        if (!more) return more.error();
      } while (*more && head.size() < target);
      const uint64_t at = pos + size, got = std::min<uint64_t>(extra, head.size() - at);
      h.ApplyTracingData({head.data() + at, static_cast<size_t>(got)}, at);
      if (!*more) break;
      pos += size + extra;
      continue;
    }
    h.ApplyHeaderRecord(r, false, &ignored);
    pos += size;
  }
  f->stream_header_end_ = pos;
  f->stream_size_ = head.size();
  if (h.evlist().empty()) return Err("{}: pipe-mode stream has no HEADER_ATTR record before its data", name);
  h.Finish();
  return f;
}

Result<std::unique_ptr<PerfFile>> PerfFile::FromBytes(MappedFile bytes, const ReaderOptions& options) {
  std::unique_ptr<PerfFile> f(new PerfFile());
  f->file_ = std::move(bytes);
  f->options_ = options;
  PERFLENS_RETURN_IF_ERROR(f->header_.ParseBytes(f->file_.data(), f->file_.size(), f->file_.name()));
  return f;
}

void PerfFile::DropProcessedBytes(uint64_t perf_data_offset) {
  if (pipe_mode() || stream_fd_ >= 0 || perf_data_offset < dropped_below_ + kDropStep) return;
  file_.DropPages(static_cast<size_t>(dropped_below_), static_cast<size_t>(perf_data_offset));
  dropped_below_ = perf_data_offset;
}

void PerfFile::CountRecord(const RecordView& r, ReadStats* stats) {
  ++stats->nr_records_total;
  if (r.type < 128) ++stats->nr_records[r.type];
  else ++stats->nr_unknown_type;
  if (RecordTypeName(r.type) == "UNKNOWN" && !stats->nr_unknown_records++) {
    stats->first_unknown_type = r.type;
    stats->first_unknown_offset = r.perf_data_offset;
  }
}

Status PerfFile::ReadRecords(const RecordCallback& cb, ReadStats* stats) {
  const Loader& ld = loader();
  if (streaming()) {
    if (stream_read_) return Err("{}: a stream can be read once", path());
    stream_read_ = true;
  }
  ChunkPool pool;
  const bool ordered = options_.ordered;
  Decompressor decompressor(ld, options_.max_decompressed_bytes);
  RecordOrdering ordering([&cb](const RecordView& r) { cb(r); }, &pool, options_.max_queued_bytes, stats,
                          streaming() ? nullptr : file_.data(), ld);

  auto deliver = [&cb](const RecordView& r) { cb(r); };
  Dispatcher<decltype(deliver), decltype(ordering)> dispatch(*this, deliver, ordered ? &ordering : nullptr, !directory_,
                                                             &decompressor, &pool, stats);

  if (!streaming()) {
    RecordCursor cursor(ld, file_.data(), data_offset(), data_offset() + data_size(), pipe_mode());
    RecordView r;
    while (cursor.Next(&r)) {
      if (cursor.error()) stats->stopped = cursor.error();  // trailing data past the end: r is the last
      dispatch(r);
    }
    if (cursor.error()) stats->stopped = cursor.error();
    for (const MappedFile& part : dir_files_) {
      if (stats->stopped) break;
      RecordCursor part_cursor(ld, part.data(), 0, part.size(), false);
      while (part_cursor.Next(&r)) {
        if (part_cursor.error()) stats->stopped = Error{part.name() + ": " + part_cursor.error()->message};
        dispatch(r);
      }
      if (part_cursor.error()) stats->stopped = Error{part.name() + ": " + part_cursor.error()->message};
    }
    if (ordered) ordering.FlushAll();
    return Status::Ok();
  }

  // A pipe: frame records out of chunks read as they arrive. The first chunk starts
  // with what FromStream read.
  const int fd = stream_fd_;
  size_t capacity = std::max(kStreamChunk, stream_head_.size());
  uint32_t cur;
  {
    auto first = std::make_unique_for_overwrite<uint8_t[]>(capacity);
    std::memcpy(first.get(), stream_head_.data(), stream_head_.size());
    cur = pool.Add(std::move(first), capacity);
  }
  uint8_t* buf = pool.data(cur);
  size_t filled = stream_head_.size(), pos = kPipeHeaderSize;
  uint64_t base = 0;  // stream offset of buf[0]
  std::vector<uint8_t>().swap(stream_head_);
  // At least `n` bytes at buf + pos, moving the unread tail to a new chunk when the
  // current one has no room; false when the input ends first.
  auto ensure = [&](size_t n) -> Result<bool> {
    if (filled - pos >= n) return true;
    if (capacity - pos < n) {
      const size_t tail = filled - pos, next_capacity = std::max(kStreamChunk, n);
      auto next = std::make_unique_for_overwrite<uint8_t[]>(next_capacity);
      std::memcpy(next.get(), buf + pos, tail);
      const uint32_t old = cur;
      cur = pool.Add(std::move(next), next_capacity);
      pool.Seal(old);
      buf = pool.data(cur);
      capacity = next_capacity;
      base += pos;
      filled = tail;
      pos = 0;
    }
    while (filled - pos < n) {
      auto got = ReadSome(fd, buf + filled, capacity - filled, path());
      if (!got) return got.error();
      if (*got == 0) return false;
      filled += *got;
      stream_size_ = base + filled;
    }
    return true;
  };
  for (;;) {
    auto have = ensure(8);
    if (!have) {
      stats->stopped = have.error();
      break;
    }
    if (!*have) {
      if (filled > pos)
        stats->stopped = Err("{} trailing bytes at offset {:#x} do not hold a record header", filled - pos, base + pos);
      break;
    }
    RecordView r = ViewAt(ld, buf + pos, base + pos);
    if (r.size < 8) {
      stats->stopped = Err("bad record size {} at offset {:#x} ({}); stopped reading", r.size, base + pos,
                           RecordTypeLabel(r.type));
      break;
    }
    have = ensure(r.size);
    if (!have) {
      stats->stopped = have.error();
      break;
    }
    if (!*have) {
      stats->stopped = Err("{} at offset {:#x} has size {} but the stream ends after {} bytes: truncated",
                           RecordTypeLabel(r.type), base + pos, r.size, filled - pos);
      break;
    }
    r.data = buf + pos;  // ensure() may have moved the bytes to a new chunk
    r.chunk = cur;
    uint64_t extra = TrailingBytes(ld, r, true);
    if (r.type >= 64 && r.perf_data_offset >= stream_header_end_) header_.ApplyHeaderRecord(r, true, &stats->warnings);
    dispatch(r);
    pos += r.size;
    // Trailing payloads (AUX data, tracing data) are not kept: skipped as they arrive.
    while (extra > 0) {
      if (pos == capacity) {
        // The chunk is used up: go on in a new, empty one.
        base += pos;
        filled = pos = 0;
        const uint32_t old = cur;
        cur = pool.Add(std::make_unique_for_overwrite<uint8_t[]>(kStreamChunk), kStreamChunk);
        pool.Seal(old);
        buf = pool.data(cur);
        capacity = kStreamChunk;
      }
      if (filled == pos) {
        auto got = ReadSome(fd, buf + pos, capacity - pos, path());
        if (!got) {
          stats->stopped = got.error();
          break;
        }
        if (*got == 0) {
          stats->stopped = Err("{} at offset {:#x} announces {} more bytes of trailing data than the stream holds",
                               RecordTypeLabel(r.type), r.perf_data_offset, extra);
          break;
        }
        filled += *got;
        stream_size_ = base + filled;
      }
      const size_t skip = static_cast<size_t>(std::min<uint64_t>(extra, filled - pos));
      pos += skip;
      extra -= skip;
    }
    if (stats->stopped) break;
  }
  if (ordered) ordering.FlushAll();
  pool.Seal(cur);
  return Status::Ok();
}

}  // namespace perflens
