#include "symbolize/elf_sections.h"

#include <gelf.h>
#include <libdeflate.h>
#include <zstd.h>

#include <bit>
#include <cstring>
#include <string>

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

namespace {

constexpr uint32_t kElfCompressZstd = 2;  // ELFCOMPRESS_ZSTD (gABI 2022; not in glibc 2.36's elf.h)

struct ImageSection {
  std::string name;
  GElf_Shdr shdr;          // the original header
  const char* in = nullptr;  // the bytes in the file (after the Chdr when compressed)
  size_t in_size = 0;
  uint32_t compression = 0;  // 0: stored as is
  uint64_t size = 0;         // bytes in the image
  uint64_t align = 1;
  uint64_t offset = 0;       // in the image
};

// Inflates `sec` into `out` (sec.size bytes); false unless it gives exactly that.
bool Inflate(const ImageSection& sec, char* out) {
  if (sec.compression == ELFCOMPRESS_ZLIB) {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    if (!d) return false;
    size_t got = 0;
    const libdeflate_result r = libdeflate_zlib_decompress(d, sec.in, sec.in_size, out, sec.size, &got);
    libdeflate_free_decompressor(d);
    return r == LIBDEFLATE_SUCCESS && got == sec.size;
  }
  if (sec.compression == kElfCompressZstd) {
    const size_t got = ZSTD_decompress(out, sec.size, sec.in, sec.in_size);
    return !ZSTD_isError(got) && got == sec.size;
  }
  // An empty section has no bytes (libelf gives a null d_buf): memcpy must not see it.
  if (sec.size) std::memcpy(out, sec.in, sec.size);
  return true;
}

template <typename Ehdr, typename Shdr>
void WriteHeaders(const GElf_Ehdr& from, const std::vector<ImageSection>& secs, uint64_t shstrtab_offset,
                  uint64_t shstrtab_size, const std::vector<uint32_t>& name_offsets, uint64_t shoff, char* image) {
  Ehdr eh{};
  std::memcpy(eh.e_ident, from.e_ident, EI_NIDENT);
  eh.e_type = from.e_type;
  eh.e_machine = from.e_machine;
  eh.e_version = from.e_version;
  eh.e_flags = from.e_flags;
  eh.e_ehsize = sizeof(Ehdr);
  eh.e_shentsize = sizeof(Shdr);
  eh.e_shoff = shoff;
  eh.e_shnum = static_cast<uint16_t>(secs.size() + 2);  // null, the sections, .shstrtab
  eh.e_shstrndx = static_cast<uint16_t>(secs.size() + 1);
  std::memcpy(image, &eh, sizeof eh);
  std::vector<Shdr> sh(secs.size() + 2);
  for (size_t i = 0; i < secs.size(); ++i) {
    Shdr& h = sh[i + 1];
    h.sh_name = name_offsets[i];
    h.sh_type = secs[i].shdr.sh_type;
    h.sh_flags = secs[i].shdr.sh_flags & ~static_cast<decltype(h.sh_flags)>(SHF_COMPRESSED);
    h.sh_offset = secs[i].offset;
    h.sh_size = secs[i].size;
    h.sh_addralign = secs[i].align;
    h.sh_entsize = secs[i].shdr.sh_entsize;
  }
  Shdr& str = sh.back();
  str.sh_name = name_offsets.back();
  str.sh_type = SHT_STRTAB;
  str.sh_offset = shstrtab_offset;
  str.sh_size = shstrtab_size;
  str.sh_addralign = 1;
  std::memcpy(image + shoff, sh.data(), sh.size() * sizeof(Shdr));
}

}  // namespace

Result<ElfImage> InflatedDebugImage(Elf* elf, bool (*keep)(std::string_view name), uint64_t parallel_from) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf, &ehdr)) return Err("no ELF header ({})", elf_errmsg(-1));
  const int cls = gelf_getclass(elf);
  const bool host_lsb = std::endian::native == std::endian::little;
  if (ehdr.e_ident[EI_DATA] != (host_lsb ? ELFDATA2LSB : ELFDATA2MSB)) return Err("byte order other than the host's");
  if (cls != ELFCLASS32 && cls != ELFCLASS64) return Err("ELF class {}", cls);
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return Err("no section-name table ({})", elf_errmsg(-1));
  std::vector<ImageSection> secs;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (!name) continue;
    const std::string_view n(name);
    if (n == ".gnu_debugaltlink") return Err("a .gnu_debugaltlink (dwz)");
    if (n.rfind(".zdebug_", 0) == 0) return Err("GNU .zdebug compression ({})", n);
    if (n.rfind(".debug_", 0) != 0 || shdr.sh_type == SHT_NOBITS || !keep(n)) continue;
    Elf_Data* raw = elf_rawdata(scn, nullptr);
    if (!raw || (!raw->d_buf && raw->d_size)) return Err("{}: unreadable ({})", n, elf_errmsg(-1));
    ImageSection sec;
    sec.name = name;
    sec.shdr = shdr;
    sec.in = static_cast<const char*>(raw->d_buf);
    sec.in_size = raw->d_size;
    sec.size = raw->d_size;
    sec.align = shdr.sh_addralign ? shdr.sh_addralign : 1;
    if (shdr.sh_flags & SHF_COMPRESSED) {
      GElf_Chdr chdr;
      if (!gelf_getchdr(scn, &chdr)) return Err("{}: no compression header ({})", n, elf_errmsg(-1));
      const size_t chdr_size = cls == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
      if (sec.in_size < chdr_size) return Err("{}: shorter than its compression header", n);
      if (chdr.ch_type != ELFCOMPRESS_ZLIB && chdr.ch_type != kElfCompressZstd)
        return Err("{}: compression type {}", n, chdr.ch_type);
      sec.in += chdr_size;
      sec.in_size -= chdr_size;
      if (chdr.ch_size > (uint64_t{4} << 30) || chdr.ch_size / 1032 > sec.in_size)
        return Err("{}: claims {} inflated bytes from {}", n, chdr.ch_size, sec.in_size);
      sec.compression = chdr.ch_type;
      sec.size = chdr.ch_size;
      sec.align = chdr.ch_addralign && std::has_single_bit(chdr.ch_addralign) ? chdr.ch_addralign : 1;
    }
    if (!std::has_single_bit(sec.align) || sec.align > 4096) sec.align = 8;
    secs.push_back(std::move(sec));
  }
  if (secs.empty()) return Err("no debug section to keep");
  // Uncompressed sections are best read in place, from the mapped file.
  if (std::none_of(secs.begin(), secs.end(), [](const ImageSection& sec) { return sec.compression != 0; }))
    return Err("no compressed debug section to keep");
  // Layout: ELF header, the sections (each at its alignment), .shstrtab, section headers.
  const bool is64 = cls == ELFCLASS64;
  uint64_t at = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  for (ImageSection& sec : secs) {
    at = (at + sec.align - 1) & ~(sec.align - 1);
    sec.offset = at;
    at += sec.size;
  }
  std::string shstrtab(1, '\0');
  std::vector<uint32_t> name_offsets;
  for (const ImageSection& sec : secs) {
    name_offsets.push_back(static_cast<uint32_t>(shstrtab.size()));
    shstrtab += sec.name;
    shstrtab += '\0';
  }
  name_offsets.push_back(static_cast<uint32_t>(shstrtab.size()));
  shstrtab += ".shstrtab";
  shstrtab += '\0';
  const uint64_t shstrtab_offset = at;
  at += shstrtab.size();
  at = (at + 7) & ~uint64_t{7};
  const uint64_t shoff = at;
  at += (secs.size() + 2) * (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
  if (!is64 && at > UINT32_MAX) return Err("inflated sections too large for a 32-bit ELF ({} bytes)", at);

  ElfImage image;
  image.bytes.reset(new (std::nothrow) char[at]);
  if (!image.bytes) return Err("cannot allocate {} bytes for the inflated debug sections", at);
  image.size = at;
  char* out = image.bytes.get();
  // The largest compressed section on a helper thread, the rest here.
  size_t largest = secs.size();
  uint64_t compressed = 0;
  for (size_t i = 0; i < secs.size(); ++i) {
    if (!secs[i].compression) continue;
    compressed += secs[i].in_size;
    if (largest == secs.size() || secs[i].in_size > secs[largest].in_size) largest = i;
  }
  bool helper_ok = true;
  std::thread helper;
  if (largest != secs.size() && compressed >= parallel_from && secs.size() > 1) {
    try {
      helper = std::thread([&] { helper_ok = Inflate(secs[largest], out + secs[largest].offset); });
    } catch (const std::system_error&) {
    }
  }
  size_t failed = secs.size();
  uint64_t end = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
  for (size_t i = 0; i < secs.size(); ++i) {
    std::memset(out + end, 0, secs[i].offset - end);  // alignment padding
    end = secs[i].offset + secs[i].size;
    if (helper.joinable() && i == largest) continue;
    if (!Inflate(secs[i], out + secs[i].offset) && failed == secs.size()) failed = i;
  }
  if (helper.joinable()) {
    helper.join();
    if (!helper_ok && failed == secs.size()) failed = largest;
  }
  if (failed != secs.size())
    return Err("{}: does not inflate to its claimed {} bytes", secs[failed].name, secs[failed].size);
  std::memcpy(out + shstrtab_offset, shstrtab.data(), shstrtab.size());
  std::memset(out + shstrtab_offset + shstrtab.size(), 0, shoff - shstrtab_offset - shstrtab.size());
  if (is64)
    WriteHeaders<Elf64_Ehdr, Elf64_Shdr>(ehdr, secs, shstrtab_offset, shstrtab.size(), name_offsets, shoff, out);
  else
    WriteHeaders<Elf32_Ehdr, Elf32_Shdr>(ehdr, secs, shstrtab_offset, shstrtab.size(), name_offsets, shoff, out);
  return image;
}

}  // namespace perflens
