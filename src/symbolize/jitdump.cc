#include "symbolize/jitdump.h"

#include <cstring>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/byte_order.h"
#include "base/mapped_file.h"
#include "symbolize/perf_map.h"

namespace perflens {
namespace {

constexpr uint32_t kJitCodeLoad = 0;
constexpr uint32_t kJitCodeMove = 1;
constexpr size_t kRecordHeaderSize = 16;  // u32 id, u32 total_size, u64 timestamp
constexpr size_t kCodeLoadFixed = 40;     // pid, tid, vma, code_addr, code_size, code_index
constexpr size_t kCodeMoveFixed = 48;     // pid, tid, vma, old, new, code_size, code_index

}  // namespace

bool IsJitdumpMarker(std::string_view filename, uint32_t pid) {
  const size_t slash = filename.rfind('/');
  std::string_view base = slash == std::string_view::npos ? filename : filename.substr(slash + 1);
  constexpr std::string_view kPrefix = "jit-", kSuffix = ".dump";
  if (base.size() <= kPrefix.size() + kSuffix.size() || base.substr(0, kPrefix.size()) != kPrefix ||
      base.substr(base.size() - kSuffix.size()) != kSuffix)
    return false;
  uint64_t value = 0;
  for (char c : base.substr(kPrefix.size(), base.size() - kPrefix.size() - kSuffix.size())) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
    if (value > UINT32_MAX) return false;
  }
  return value == pid;
}

Result<Jitdump> ParseJitdump(std::span<const uint8_t> bytes) {
  if (bytes.size() < kJitdumpHeaderSize)
    return Err("jitdump: {} bytes, shorter than its {}-byte header", bytes.size(), kJitdumpHeaderSize);
  const uint8_t* data = bytes.data();
  Loader ld;
  uint32_t magic = ld.U32(data);
  if (magic != kJitdumpMagic) {
    ld.swap = true;
    if (ld.U32(data) != kJitdumpMagic) return Err("jitdump: bad magic {:#010x}", magic);
  }
  Jitdump out;
  out.swapped = ld.swap;
  out.version = ld.U32(data + 4);
  const uint32_t header_size = ld.U32(data + 8);
  out.elf_mach = ld.U32(data + 12);
  out.pid = ld.U32(data + 20);
  out.flags = ld.U64(data + 32);
  if (header_size < kJitdumpHeaderSize || header_size > bytes.size())
    return Err("jitdump: header size {} outside [{}, {}]", header_size, kJitdumpHeaderSize, bytes.size());

  std::vector<JitSymbolEntry> entries;
  // code_index → name of its newest CODE_LOAD, for CODE_MOVE (names view into `bytes`).
  std::unordered_map<uint64_t, std::string_view> names;
  size_t pos = header_size;
  while (pos < bytes.size()) {
    const size_t left = bytes.size() - pos;
    if (left < kRecordHeaderSize) {
      ++out.bad_records;  // a torn record header at the end
      break;
    }
    const uint8_t* rec = data + pos;
    const uint32_t id = ld.U32(rec);
    const uint32_t total_size = ld.U32(rec + 4);
    if (total_size < kRecordHeaderSize || total_size > left) {
      ++out.bad_records;  // cannot find the next record: stop
      break;
    }
    pos += total_size;
    const uint8_t* body = rec + kRecordHeaderSize;
    const size_t body_size = total_size - kRecordHeaderSize;
    if (id == kJitCodeLoad) {
      if (body_size < kCodeLoadFixed) {
        ++out.bad_records;
        continue;
      }
      const uint64_t code_addr = ld.U64(body + 16);
      const uint64_t code_size = ld.U64(body + 24);
      const uint64_t code_index = ld.U64(body + 32);
      const size_t name_room = body_size - kCodeLoadFixed;
      if (code_size > name_room) {  // code bytes larger than the record
        ++out.bad_records;
        continue;
      }
      const size_t name_max = name_room - static_cast<size_t>(code_size);
      const char* name_start = reinterpret_cast<const char*>(body + kCodeLoadFixed);
      const void* nul = std::memchr(name_start, '\0', name_max);
      if (!nul) {  // no NUL before the code bytes
        ++out.bad_records;
        continue;
      }
      std::string_view name(name_start, static_cast<size_t>(static_cast<const char*>(nul) - name_start));
      entries.push_back({code_addr, code_size, name});
      names[code_index] = name;
      ++out.code_loads;
    } else if (id == kJitCodeMove) {
      if (body_size < kCodeMoveFixed) {
        ++out.bad_records;
        continue;
      }
      const uint64_t new_code_addr = ld.U64(body + 24);
      const uint64_t code_size = ld.U64(body + 32);
      const uint64_t code_index = ld.U64(body + 40);
      auto it = names.find(code_index);
      if (it == names.end()) {
        ++out.bad_records;
        continue;
      }
      entries.push_back({new_code_addr, code_size, it->second});
      ++out.code_moves;
    }
    // DEBUG_INFO, CODE_CLOSE, UNWINDING_INFO and ids from newer writers carry no symbol.
  }
  AddNewestFirst(entries, &out.symbols);
  out.symbols.Finish();
  return out;
}

Result<Jitdump> ReadJitdump(const std::string& path) {
  auto file = MappedFile::Open(path);
  if (!file.ok()) return file.error();
  auto parsed = ParseJitdump(file->bytes());
  if (!parsed.ok()) return Err("{}: {}", path, parsed.error().message);
  return parsed;
}

}  // namespace perflens
