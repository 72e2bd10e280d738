#include "symbolize/code_bytes.h"

#include <gelf.h>
#include <libelf.h>

#include "base/mapped_file.h"

namespace perflens {

Result<CodeBytes> ReadCodeBytes(const DsoModule& module, uint64_t file_offset, uint64_t size) {
  const std::string& path = module.runtime_path();
  if (path.empty() || module.segments().empty()) return Err("no ELF image to read code from");
  auto file = MappedFile::Open(path);
  if (!file.ok()) return file.error();
  if (file_offset > file->size() || size > file->size() - file_offset)
    return Err(
        "{}: code at file offset {:#x} (+{:#x}) is beyond the file's "
        "{:#x} bytes",
        path, file_offset, size, file->size());
  CodeBytes out;
  out.path = path;
  if (elf_version(EV_CURRENT) == EV_NONE) return Err("libelf: {}", elf_errmsg(-1));
  Elf* elf = elf_memory(reinterpret_cast<char*>(const_cast<uint8_t*>(file->data())), file->size());
  if (elf) {
    size_t shstrndx = 0;
    bool nobits = false;
    if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
      for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_size == 0) continue;
        if (file_offset < sh.sh_offset || file_offset - sh.sh_offset >= sh.sh_size) continue;
        // A SHT_NOBITS section's offset may equal the next section's: only a
        // section with file bytes names the code's.
        if (sh.sh_type == SHT_NOBITS) {
          nobits = true;
          continue;
        }
        const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
        out.section = name ? name : "";
        break;
      }
    }
    if (out.section.empty() && nobits) {
      elf_end(elf);
      return Err(
          "{}: the code at file offset {:#x} is in a section without "
          "file bytes (a debug file "
          "without the binary?)",
          path, file_offset);
    }
    elf_end(elf);
  }
  const uint8_t* begin = file->data() + file_offset;
  out.bytes.assign(begin, begin + size);
  return out;
}

}  // namespace perflens
