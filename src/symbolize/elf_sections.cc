#include "symbolize/elf_sections.h"

#include <gelf.h>

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace perflens {

void HideCompressedSections(Elf* elf, bool (*hide)(std::string_view name)) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr mem;
    GElf_Shdr* shdr = gelf_getshdr(scn, &mem);
    if (!shdr || !(shdr->sh_flags & SHF_COMPRESSED)) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr->sh_name);
    if (!name || !hide(name)) continue;
    shdr->sh_name = 0;
    gelf_update_shdr(scn, shdr);
  }
}

void InflateDebugSections(Elf* elf, uint64_t parallel_from) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
  std::vector<std::pair<uint64_t, Elf_Scn*>> compressed;  // (compressed bytes, section)
  uint64_t total = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr mem;
    GElf_Shdr* shdr = gelf_getshdr(scn, &mem);
    if (!shdr || !(shdr->sh_flags & SHF_COMPRESSED) || shdr->sh_type == SHT_NOBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr->sh_name);
    if (!name || std::string_view(name).rfind(".debug_", 0) != 0) continue;
    compressed.emplace_back(shdr->sh_size, scn);
    total += shdr->sh_size;
  }
  if (compressed.empty()) return;
  std::sort(compressed.begin(), compressed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::thread helper;
  size_t first = 0;
  if (compressed.size() > 1 && total >= parallel_from) {
    try {
      helper = std::thread([scn = compressed[0].second] { elf_compress(scn, 0, 0); });
      first = 1;
    } catch (const std::system_error&) {
    }
  }
  for (size_t i = first; i < compressed.size(); ++i) elf_compress(compressed[i].second, 0, 0);
  if (helper.joinable()) helper.join();
}

}  // namespace perflens
