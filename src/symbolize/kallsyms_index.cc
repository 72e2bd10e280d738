#include "symbolize/kallsyms_index.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <vector>

#include <fmt/format.h>

namespace perflens {
namespace {

constexpr char kMagic[8] = {'P', 'L', 'K', 'S', 'Y', 'M', 'I', 'X'};
constexpr uint32_t kByteOrder = 0x01020304;
constexpr uint32_t kVersion = 1;
constexpr size_t kMaxRef = 32;
constexpr uint32_t kMaxNameLen = (1u << 24) - 1;
constexpr uint32_t kNameInBlob = 1u << 31;

struct Header {
  char magic[8];
  uint32_t byte_order;
  uint32_t version;
  uint64_t dev, ino, size;
  int64_t mtime_ns;
  uint64_t ref_addr;
  uint32_t all_zero;
  uint32_t ref_len;
  uint64_t nr_tables, nr_entries, names_size, file_size;
  char ref_symbol[kMaxRef];
};
static_assert(sizeof(Header) == 128);

struct TableDesc {
  uint64_t first, count;
  uint32_t name_off, name_len;
  uint64_t reserved;
};
static_assert(sizeof(TableDesc) == 32);

struct Entry {
  uint64_t start, end;
  uint32_t name_off, bits;  // name length | binding << 24 | type << 27 | kNameInBlob
};
static_assert(sizeof(Entry) == 24);

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// One table's entries in a mapped index.
class IndexSymbols final : public LazySymbols {
 public:
  IndexSymbols(std::shared_ptr<const MappedFile> index, std::shared_ptr<const KallsymsText> text,
               const uint8_t* entries, size_t count, std::string_view names, uint64_t max_end)
      : index_(std::move(index)), text_(std::move(text)), entries_(entries), count_(count), names_(names),
        max_end_(max_end) {}
  size_t size() const override { return count_; }
  uint64_t start(size_t i) const override { return Load<uint64_t>(entries_ + i * sizeof(Entry)); }
  uint64_t end(size_t i) const override { return Load<uint64_t>(entries_ + i * sizeof(Entry) + 8); }
  uint64_t max_end() const override { return max_end_; }
  Symbol Make(size_t i) const override {
    const Entry e = Load<Entry>(entries_ + i * sizeof(Entry));
    Symbol s;
    s.start = e.start;
    s.end = e.end;
    const std::string_view from = (e.bits & kNameInBlob) ? names_ : text_->text();
    s.name = from.substr(e.name_off, e.bits & kMaxNameLen);
    s.binding = static_cast<uint8_t>((e.bits >> 24) & 7);
    s.type = static_cast<uint8_t>((e.bits >> 27) & 15);
    return s;
  }

 private:
  std::shared_ptr<const MappedFile> index_;
  std::shared_ptr<const KallsymsText> text_;
  const uint8_t* entries_;
  size_t count_;
  std::string_view names_;
  uint64_t max_end_;
};

// Whether [off, off + len) lies within a region of `size` bytes.
bool Within(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

}  // namespace

namespace {

Result<KallsymsIndexKey> KeyOfStat(const struct stat& st, const std::string& path, std::string_view ref_symbol) {
  if (ref_symbol.size() > kMaxRef) return Err("kallsyms index: anchor symbol {} is too long", ref_symbol);
  if (!S_ISREG(st.st_mode)) return Err("{}: not a regular file", path);
  KallsymsIndexKey key;
  key.dev = static_cast<uint64_t>(st.st_dev);
  key.ino = static_cast<uint64_t>(st.st_ino);
  key.size = static_cast<uint64_t>(st.st_size);
  key.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  key.ref_symbol = std::string(ref_symbol);
  return key;
}

}  // namespace

Result<KallsymsIndexKey> KallsymsIndexKeyOf(const std::string& path, std::string_view ref_symbol) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Err("{}: {}", path, std::strerror(errno));
  return KeyOfStat(st, path, ref_symbol);
}

Result<KallsymsIndexKey> KallsymsIndexKeyOfFd(int fd, const std::string& name, std::string_view ref_symbol) {
  struct stat st;
  if (fstat(fd, &st) != 0) return Err("{}: {}", name, std::strerror(errno));
  return KeyOfStat(st, name, ref_symbol);
}

std::string KallsymsIndexPath(const std::string& cache_dir, const KallsymsIndexKey& key) {
  // FNV-1a over the key's fields: a name, not a check (the header holds the key).
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const uint8_t*>(p)[i]) * 0x100000001b3ULL;
  };
  mix(&key.dev, 8);
  mix(&key.ino, 8);
  mix(&key.size, 8);
  mix(&key.mtime_ns, 8);
  mix(key.ref_symbol.data(), key.ref_symbol.size());
  return fmt::format("{}/kallsyms/{:016x}.idx", cache_dir, h);
}

Result<std::string> SerializeKallsymsIndex(const KallsymsTables& tables, std::string_view text,
                                           const KallsymsIndexKey& key) {
  if (key.ref_symbol.size() > kMaxRef) return Err("kallsyms index: anchor symbol {} is too long", key.ref_symbol);
  if (text.size() > UINT32_MAX) return Err("kallsyms index: text of {} bytes is too large", text.size());
  std::vector<const SymbolTable*> order{&tables.kernel};
  std::vector<std::string_view> table_names{std::string_view()};
  for (const auto& [name, table] : tables.modules) {
    order.push_back(&table);
    table_names.push_back(name);
  }
  std::string names;
  std::vector<TableDesc> descs;
  std::vector<Entry> entries;
  for (size_t t = 0; t < order.size(); ++t) {
    TableDesc d{};
    d.first = entries.size();
    d.name_off = static_cast<uint32_t>(names.size());
    d.name_len = static_cast<uint32_t>(table_names[t].size());
    names.append(table_names[t]);
    for (const Symbol& s : order[t]->symbols()) {
      if (s.name.size() > kMaxNameLen || s.binding > 7 || s.type > 15)
        return Err("kallsyms index: symbol {} cannot be stored", s.name.substr(0, 64));
      Entry e{};
      e.start = s.start;
      e.end = s.end;
      e.bits = static_cast<uint32_t>(s.name.size()) | uint32_t{s.binding} << 24 | uint32_t{s.type} << 27;
      // Addresses as integers: the name may point into another allocation.
      const uintptr_t p = reinterpret_cast<uintptr_t>(s.name.data()), base = reinterpret_cast<uintptr_t>(text.data());
      if (p >= base && Within(p - base, s.name.size(), text.size())) {
        e.name_off = static_cast<uint32_t>(p - base);
      } else {
        if (names.size() + s.name.size() > UINT32_MAX) return Err("kallsyms index: too many escaped names");
        e.name_off = static_cast<uint32_t>(names.size());
        e.bits |= kNameInBlob;
        names.append(s.name);
      }
      entries.push_back(e);
    }
    d.count = entries.size() - d.first;
    descs.push_back(d);
  }
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.byte_order = kByteOrder;
  h.version = kVersion;
  h.dev = key.dev;
  h.ino = key.ino;
  h.size = key.size;
  h.mtime_ns = key.mtime_ns;
  h.ref_addr = tables.ref_addr;
  h.all_zero = tables.all_zero ? 1 : 0;
  h.ref_len = static_cast<uint32_t>(key.ref_symbol.size());
  std::memcpy(h.ref_symbol, key.ref_symbol.data(), key.ref_symbol.size());
  h.nr_tables = descs.size();
  h.nr_entries = entries.size();
  h.names_size = names.size();
  h.file_size = sizeof(Header) + descs.size() * sizeof(TableDesc) + entries.size() * sizeof(Entry) + names.size();
  std::string out;
  out.reserve(h.file_size);
  out.append(reinterpret_cast<const char*>(&h), sizeof(h));
  out.append(reinterpret_cast<const char*>(descs.data()), descs.size() * sizeof(TableDesc));
  out.append(reinterpret_cast<const char*>(entries.data()), entries.size() * sizeof(Entry));
  out.append(names);
  return out;
}

Result<KallsymsTables> KallsymsTablesFromIndex(std::shared_ptr<const MappedFile> index,
                                               std::shared_ptr<const KallsymsText> text,
                                               const KallsymsIndexKey& key) {
  const std::span<const uint8_t> bytes = index->bytes();
  const std::string& name = index->name();
  if (bytes.size() < sizeof(Header)) return Err("kallsyms index {}: {} bytes, shorter than its header", name, bytes.size());
  const Header h = Load<Header>(bytes.data());
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) return Err("kallsyms index {}: not an index", name);
  if (h.byte_order != kByteOrder || h.version != kVersion)
    return Err("kallsyms index {}: version {} or byte order not this build's", name, h.version);
  const std::string_view ref(h.ref_symbol, std::min<size_t>(h.ref_len, kMaxRef));
  if (h.dev != key.dev || h.ino != key.ino || h.size != key.size || h.mtime_ns != key.mtime_ns ||
      h.ref_len > kMaxRef || ref != key.ref_symbol)
    return Err("kallsyms index {}: made from another kallsyms file or anchor", name);
  const std::string_view body = text->text();
  if (body.size() != key.size) return Err("kallsyms index {}: the kallsyms file changed size", name);
  if (h.file_size != bytes.size() || h.nr_tables == 0 || h.nr_tables > bytes.size() / sizeof(TableDesc) ||
      h.nr_entries > bytes.size() / sizeof(Entry))
    return Err("kallsyms index {}: sizes do not match the file", name);
  const uint64_t entries_off = sizeof(Header) + h.nr_tables * sizeof(TableDesc);
  const uint64_t names_off = entries_off + h.nr_entries * sizeof(Entry);
  if (names_off > bytes.size() || h.names_size != bytes.size() - names_off)
    return Err("kallsyms index {}: sizes do not match the file", name);
  const std::string_view names(reinterpret_cast<const char*>(bytes.data() + names_off), h.names_size);
  const uint8_t* entries = bytes.data() + entries_off;

  KallsymsTables out;
  out.ref_addr = h.ref_addr;
  out.all_zero = h.all_zero != 0;
  for (uint64_t t = 0; t < h.nr_tables; ++t) {
    const TableDesc d = Load<TableDesc>(bytes.data() + sizeof(Header) + t * sizeof(TableDesc));
    if (!Within(d.first, d.count, h.nr_entries) || !Within(d.name_off, d.name_len, names.size()))
      return Err("kallsyms index {}: table {} out of bounds", name, t);
    const std::string_view table_name = names.substr(d.name_off, d.name_len);
    if ((t == 0) != table_name.empty()) return Err("kallsyms index {}: table {} misnamed", name, t);
    uint64_t max_end = 0;
    for (uint64_t i = 0; i < d.count; ++i) {
      const Entry e = Load<Entry>(entries + (d.first + i) * sizeof(Entry));
      const std::string_view from = (e.bits & kNameInBlob) ? names : body;
      if (!Within(e.name_off, e.bits & kMaxNameLen, from.size()) || (e.bits & kMaxNameLen) == 0)
        return Err("kallsyms index {}: entry {} names bytes out of bounds", name, d.first + i);
      if (i > 0 && e.start <= Load<uint64_t>(entries + (d.first + i - 1) * sizeof(Entry)))
        return Err("kallsyms index {}: entry {} out of order", name, d.first + i);
      max_end = std::max(max_end, e.end);
    }
    auto source = std::make_shared<IndexSymbols>(index, text, entries + d.first * sizeof(Entry),
                                                 static_cast<size_t>(d.count), names, max_end);
    if (t == 0) {
      out.kernel.AdoptLazy(std::move(source));
    } else {
      auto [it, added] = out.modules.try_emplace(std::string(table_name));
      if (!added) return Err("kallsyms index {}: module {} twice", name, table_name);
      it->second.AdoptLazy(std::move(source));
    }
  }
  return out;
}

Result<KallsymsTables> OpenKallsymsIndex(const std::string& path, std::shared_ptr<const KallsymsText> text,
                                         const KallsymsIndexKey& key) {
  auto mapped = MappedFile::Open(path);
  if (!mapped.ok()) return mapped.error();
  return KallsymsTablesFromIndex(std::make_shared<const MappedFile>(std::move(*mapped)), std::move(text), key);
}

namespace {

// What earlier writers left in `dir`: PATH.tmp.PID.N of dead processes, and *.idx files
// older than 30 days or beyond the 16 newest.
void PruneIndexDir(const std::string& dir) {
  constexpr size_t kKeep = 16;
  constexpr int64_t kMaxAgeSeconds = 30 * 24 * 3600;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  std::vector<std::pair<int64_t, std::string>> indexes;  // (mtime, name)
  const int64_t now = static_cast<int64_t>(time(nullptr));
  while (const dirent* e = readdir(d)) {
    const std::string_view name = e->d_name;
    const std::string path = dir + "/" + std::string(name);
    if (const size_t at = name.find(".idx.tmp."); at != std::string_view::npos) {
      const std::string pid_text(name.substr(at + 9));
      char* end = nullptr;
      const long pid = std::strtol(pid_text.c_str(), &end, 10);
      if (end && *end == '.' && pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        unlink(path.c_str());
      continue;
    }
    if (name.size() < 4 || name.substr(name.size() - 4) != ".idx") continue;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (now - static_cast<int64_t>(st.st_mtime) > kMaxAgeSeconds) unlink(path.c_str());
    else indexes.emplace_back(static_cast<int64_t>(st.st_mtime), std::string(name));
  }
  closedir(d);
  if (indexes.size() < kKeep) return;
  std::sort(indexes.begin(), indexes.end(), std::greater<>());
  // Room for the one about to be written.
  for (size_t i = kKeep - 1; i < indexes.size(); ++i) unlink((dir + "/" + indexes[i].second).c_str());
}

}  // namespace

Status WriteKallsymsIndex(const std::string& path, std::string_view bytes) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    for (size_t pos = 1; pos <= dir.size(); ++pos) {
      if (pos != dir.size() && dir[pos] != '/') continue;
      const std::string part = dir.substr(0, pos);
      if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return Err("{}: {}", part, std::strerror(errno));
    }
    PruneIndexDir(dir);
  }
  // PID and a per-process count: two writers in one process never share a temporary.
  static std::atomic<uint64_t> count{0};
  const std::string tmp = fmt::format("{}.tmp.{}.{}", path, getpid(), count.fetch_add(1));
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Err("{}: {}", tmp, std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      close(fd);
      unlink(tmp.c_str());
      return Err("{}: {}", tmp, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return Err("{}: {}", path, std::strerror(err));
  }
  return Status::Ok();
}

}  // namespace perflens
