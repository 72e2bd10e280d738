// ElfSegments: the PT_LOAD program headers of one ELF image, kept so that the two
// address spaces of a DSO can be converted both ways (ELF gABI, "Program Header"):
//   file_offset — byte offset in the DSO file (what Map::MapIp gives for a file map),
//   dso_vaddr   — link-time address (st_value, DWARF, CFI).
// Inside one segment: file_offset = dso_vaddr - (p_vaddr - p_offset).
//
// Example: a non-PIE ET_EXEC with `LOAD p_offset 0x1000 p_vaddr 0x401000 p_filesz
// 0x2000`: ToFileOffset(0x401530) == 0x1530, ToDsoVaddr(0x1530) == 0x401530, and
// ToDsoVaddr(0x3800) is nullopt when no segment holds that offset. A PIE with
// p_vaddr == p_offset maps every offset to itself.
//
// A segment spans max(p_filesz, p_memsz) bytes on both sides, as the symbol loader has
// always converted st_value (a .bss symbol gets an offset past p_filesz, and the
// inverse must give its st_value back). Segments are kept in program-header order and
// the first one that holds the address wins, so overlapping (malformed) headers give
// the same answer as the loader's conversion.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace perflens {

struct ElfSegment {
  uint64_t file_offset = 0;  // p_offset
  uint64_t dso_vaddr = 0;    // p_vaddr
  uint64_t size = 0;         // max(p_filesz, p_memsz), never 0
};

class ElfSegments {
 public:
  ElfSegments() = default;
  explicit ElfSegments(std::vector<ElfSegment> segments) : segments_(std::move(segments)) {}

  // The dso_vaddr of `file_offset`; nullopt when no PT_LOAD holds it.
  std::optional<uint64_t> ToDsoVaddr(uint64_t file_offset) const {
    for (const ElfSegment& s : segments_)
      if (file_offset >= s.file_offset && file_offset - s.file_offset < s.size)
        return file_offset - s.file_offset + s.dso_vaddr;
    return std::nullopt;
  }
  // The file_offset of `dso_vaddr`; nullopt when no PT_LOAD holds it.
  std::optional<uint64_t> ToFileOffset(uint64_t dso_vaddr) const {
    for (const ElfSegment& s : segments_)
      if (dso_vaddr >= s.dso_vaddr && dso_vaddr - s.dso_vaddr < s.size) return dso_vaddr - s.dso_vaddr + s.file_offset;
    return std::nullopt;
  }

  const std::vector<ElfSegment>& segments() const { return segments_; }
  bool empty() const { return segments_.empty(); }

 private:
  std::vector<ElfSegment> segments_;
};

}  // namespace perflens
