#include "symbolize/elf_sections.h"

#include <gelf.h>

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

}  // namespace perflens
