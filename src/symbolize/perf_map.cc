#include "symbolize/perf_map.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

namespace perflens {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// strtoull(s, &end, 16) without locale or overflow surprises: leading blanks, optional
// 0x, at least one digit. Advances *pos past the number; false on no digits/overflow.
bool ParseHex(std::string_view line, size_t* pos, uint64_t* value) {
  size_t i = *pos;
  while (i < line.size() && IsBlank(line[i])) ++i;
  if (i + 2 < line.size() && line[i] == '0' && (line[i + 1] == 'x' || line[i + 1] == 'X') &&
      HexDigit(line[i + 2]) >= 0) {
    i += 2;
  }
  size_t digits_start = i;
  uint64_t v = 0;
  while (i < line.size() && HexDigit(line[i]) >= 0) {
    if (v >> 60) return false;  // would overflow 64 bits
    v = v << 4 | static_cast<uint64_t>(HexDigit(line[i]));
    ++i;
  }
  if (i == digits_start) return false;
  *pos = i;
  *value = v;
  return true;
}

}  // namespace

// Walked newest first, an entry keeps only the parts of its range that no newer entry
// covers (split in pieces of the same name).
void AddNewestFirst(std::span<const JitSymbolEntry> entries, SymbolTable* table) {
  std::map<uint64_t, uint64_t> covered;  // disjoint [start, end), merged
  auto add_covered = [&covered](uint64_t start, uint64_t end) {
    auto it = covered.upper_bound(start);
    if (it != covered.begin() && std::prev(it)->second >= start) --it;
    while (it != covered.end() && it->first <= end) {
      start = std::min(start, it->first);
      end = std::max(end, it->second);
      it = covered.erase(it);
    }
    covered.emplace(start, end);
  };
  for (auto e = entries.rbegin(); e != entries.rend(); ++e) {
    // Ranges that would wrap past 2^64 end there.
    const uint64_t end = e->size ? (e->start + e->size < e->start ? UINT64_MAX : e->start + e->size) : e->start + 1;
    if (end <= e->start) continue;  // a zero-size entry at UINT64_MAX
    uint64_t at = e->start;
    auto it = covered.upper_bound(at);
    if (it != covered.begin() && std::prev(it)->second > at) --it;
    for (; it != covered.end() && it->first < end && at < end; ++it) {
      if (it->first > at) table->Add(at, e->size ? it->first - at : 0, e->name);
      at = std::max(at, it->second);
    }
    if (at < end) table->Add(at, e->size ? end - at : 0, e->name);
    add_covered(e->start, end);
  }
}

SymbolTable ParsePerfMap(std::string_view text, size_t* bad_lines) {
  SymbolTable table;
  std::vector<JitSymbolEntry> entries;
  size_t bad = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    while (!line.empty() && (line.back() == '\r' || IsBlank(line.back()))) line.remove_suffix(1);
    size_t first = 0;
    while (first < line.size() && IsBlank(line[first])) ++first;
    if (first == line.size()) continue;  // blank line

    size_t pos = 0;
    uint64_t start = 0, size = 0;
    bool ok = ParseHex(line, &pos, &start) && pos < line.size() && IsBlank(line[pos]);
    if (ok) {
      ++pos;  // one separator, as perf
      ok = ParseHex(line, &pos, &size) && pos + 1 < line.size() && IsBlank(line[pos]);
    }
    if (!ok) {
      ++bad;
      continue;
    }
    entries.push_back({start, size, line.substr(pos + 1)});
  }
  AddNewestFirst(entries, &table);
  table.Finish();
  if (bad_lines) *bad_lines = bad;
  return table;
}

Result<SymbolTable> ReadPerfMap(const std::string& path, size_t* bad_lines) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Err("cannot open perf map {}: {}", path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Err("perf map {} is not a regular file", path);
  }
  std::string data;
  data.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return Err("cannot read perf map {}: {}", path, std::strerror(err));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return ParsePerfMap(data, bad_lines);
}

}  // namespace perflens
