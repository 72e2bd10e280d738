#include "symbolize/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "symbolize/demangle.h"

namespace perflens {
namespace {

constexpr uint64_t kMaxElfSize = 2ull << 30;  // 2 GiB

// An open ELF file: fd + libelf handle, closed on destruction.
class ElfFile {
 public:
  ElfFile() = default;
  ElfFile(ElfFile&& o) noexcept { *this = std::move(o); }
  ElfFile& operator=(ElfFile&& o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(elf_, o.elf_);
    std::swap(size_, o.size_);
    std::swap(path_, o.path_);
    return *this;
  }
  ElfFile(const ElfFile&) = delete;
  ~ElfFile() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) close(fd_);
  }

  static Result<ElfFile> Open(const std::string& path) {
    static const bool kLibelfReady = elf_version(EV_CURRENT) != EV_NONE;
    if (!kLibelfReady) return Err("{}: libelf version mismatch", path);
    ElfFile f;
    f.path_ = path;
    // O_NONBLOCK: never hang on a FIFO; fstat then refuses anything but a regular file.
    f.fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f.fd_ < 0) return Err("{}: {}", path, std::strerror(errno));
    struct stat st;
    if (fstat(f.fd_, &st) != 0) return Err("{}: {}", path, std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return Err("{}: not a regular file", path);
    if (static_cast<uint64_t>(st.st_size) > kMaxElfSize)
      return Err("{}: {} bytes is over the {} byte limit", path, st.st_size, kMaxElfSize);
    f.size_ = st.st_size;
    if (f.size_ < EI_NIDENT) return Err("{}: truncated ELF ({} bytes)", path, f.size_);
    f.elf_ = elf_begin(f.fd_, ELF_C_READ_MMAP, nullptr);
    if (!f.elf_ || elf_kind(f.elf_) != ELF_K_ELF) return Err("{}: not an ELF file", path);
    GElf_Ehdr ehdr;
    if (!gelf_getehdr(f.elf_, &ehdr)) return Err("{}: bad ELF header: {}", path, elf_errmsg(-1));
    return f;
  }

  Elf* elf() const { return elf_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
  uint64_t size_ = 0;
  std::string path_;
};

struct Section {
  Elf_Scn* scn = nullptr;
  GElf_Shdr shdr{};
  std::string_view name;
  size_t index = 0;
};

// All section headers, with names. Errors: unreadable section table.
Result<std::vector<Section>> ReadSections(const ElfFile& f) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(f.elf(), &ehdr)) return Err("{}: bad ELF header", f.path());
  uint64_t table_end = ehdr.e_shoff + uint64_t{ehdr.e_shnum} * ehdr.e_shentsize;
  if (ehdr.e_shoff && (table_end < ehdr.e_shoff || table_end > f.size()))
    return Err("{}: truncated ELF: section headers [{:#x}, {:#x}) are past the end of the file ({:#x} bytes)",
               f.path(), ehdr.e_shoff, table_end, f.size());
  size_t shnum = 0, shstrndx = 0;
  if (elf_getshdrnum(f.elf(), &shnum) != 0) return Err("{}: bad section count: {}", f.path(), elf_errmsg(-1));
  if (shnum > 0 && elf_getshdrstrndx(f.elf(), &shstrndx) != 0)
    return Err("{}: bad section name table index: {}", f.path(), elf_errmsg(-1));
  std::vector<Section> out;
  for (size_t i = 0; i < shnum; ++i) {
    Section s;
    s.index = i;
    s.scn = elf_getscn(f.elf(), i);
    if (!s.scn || !gelf_getshdr(s.scn, &s.shdr)) return Err("{}: bad section header {}", f.path(), i);
    const char* n = elf_strptr(f.elf(), shstrndx, s.shdr.sh_name);
    s.name = n ? n : "";
    out.push_back(s);
  }
  return out;
}

const Section* FindSection(const std::vector<Section>& secs, std::string_view name) {
  for (const Section& s : secs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const Section* FindSectionType(const std::vector<Section>& secs, uint32_t type) {
  for (const Section& s : secs) {
    if (s.shdr.sh_type == type && s.shdr.sh_size > 0) return &s;
  }
  return nullptr;
}

// The section's bytes; errors name the section when it lies past the end of the file.
Result<Elf_Data*> SectionData(const ElfFile& f, const Section& s) {
  if (s.shdr.sh_type != SHT_NOBITS) {
    uint64_t end = s.shdr.sh_offset + s.shdr.sh_size;
    if (end < s.shdr.sh_offset || end > f.size())
      return Err("{}: section {} ({}) [{:#x}, {:#x}) is past the end of the file ({:#x} bytes)", f.path(), s.index,
                 s.name, s.shdr.sh_offset, end, f.size());
  }
  Elf_Data* d = elf_getdata(s.scn, nullptr);
  if (!d) return Err("{}: cannot read section {} ({}): {}", f.path(), s.index, s.name, elf_errmsg(-1));
  return d;
}

std::optional<BuildId> BuildIdFromNotes(Elf_Data* d) {
  GElf_Nhdr nhdr;
  size_t off = 0, name_off = 0, desc_off = 0;
  while (off < d->d_size && (off = gelf_getnote(d, off, &nhdr, &name_off, &desc_off)) > 0) {
    if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4) continue;
    const char* base = static_cast<const char*>(d->d_buf);
    if (std::memcmp(base + name_off, "GNU", 4) != 0) continue;
    if (nhdr.n_descsz == 0) continue;
    return BuildId::FromBytes(reinterpret_cast<const uint8_t*>(base + desc_off), nhdr.n_descsz);
  }
  return std::nullopt;
}

BuildId ReadBuildId(const ElfFile& f, const std::vector<Section>& secs) {
  for (const Section& s : secs) {
    if (s.shdr.sh_type != SHT_NOTE) continue;
    auto d = SectionData(f, s);
    if (!d.ok()) continue;
    if (auto id = BuildIdFromNotes(*d)) return *id;
  }
  // No section headers (or no note section): the PT_NOTE segments.
  size_t phnum = 0;
  if (elf_getphdrnum(f.elf(), &phnum) != 0) return {};
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(f.elf(), i, &ph) || ph.p_type != PT_NOTE) continue;
    if (ph.p_offset > f.size() || ph.p_filesz > f.size() - ph.p_offset) continue;
    Elf_Data* d = elf_getdata_rawchunk(f.elf(), ph.p_offset, ph.p_filesz, ELF_T_NHDR);
    if (!d) continue;
    if (auto id = BuildIdFromNotes(d)) return *id;
  }
  return {};
}

// The PT_LOAD headers in program-header order; empty-sized ones are skipped.
ElfSegments ReadLoadSegments(const ElfFile& f) {
  std::vector<ElfSegment> out;
  size_t phnum = 0;
  if (elf_getphdrnum(f.elf(), &phnum) != 0) return ElfSegments{};
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(f.elf(), i, &ph) || ph.p_type != PT_LOAD) continue;
    uint64_t size = std::max(ph.p_memsz, ph.p_filesz);
    if (size) out.push_back({ph.p_offset, ph.p_vaddr, size});
  }
  return ElfSegments(std::move(out));
}

// perf's elf_sec__filter for labels: sections named like text or data.
bool IsTextOrData(std::string_view section_name) {
  return section_name.find("text") != std::string_view::npos || section_name.find("data") != std::string_view::npos;
}

bool IsArmMappingSymbol(std::string_view n) {
  return n.size() >= 2 && n[0] == '$' && std::strchr("adtx", n[1]) && (n.size() == 2 || n[2] == '.');
}

struct SymtabContext {
  const ElfFile& syms;
  const std::vector<Section>& syms_secs;
  const std::vector<Section>& runtime_secs;
  const ElfSegments& loads;
  const ElfSymbolOptions& options;
  uint16_t machine;
};

Status LoadSymtab(const SymtabContext& c, const Section& symtab, SymbolTable* table) {
  if (symtab.shdr.sh_link >= c.syms_secs.size() || c.syms_secs[symtab.shdr.sh_link].shdr.sh_type != SHT_STRTAB)
    return Err("{}: section {} ({}) links to {}, which is not a string table", c.syms.path(), symtab.index,
               symtab.name, symtab.shdr.sh_link);
  PERFLENS_RETURN_IF_ERROR(SectionData(c.syms, c.syms_secs[symtab.shdr.sh_link]));
  auto data = SectionData(c.syms, symtab);
  if (!data.ok()) return data.error();
  size_t entsize = gelf_fsize(c.syms.elf(), ELF_T_SYM, 1, EV_CURRENT);
  size_t count = entsize ? symtab.shdr.sh_size / entsize : 0;
  for (size_t i = 1; i < count; ++i) {
    GElf_Sym sym;
    if (!gelf_getsym(*data, static_cast<int>(i), &sym)) break;
    uint8_t type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
    if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE) continue;
    bool is_func = type == STT_FUNC || type == STT_GNU_IFUNC;
    bool is_label = type == STT_NOTYPE && GELF_ST_VISIBILITY(sym.st_other) != STV_HIDDEN &&
                    GELF_ST_VISIBILITY(sym.st_other) != STV_INTERNAL;
    if (!is_func && type != STT_OBJECT && !is_label) continue;
    const char* raw = elf_strptr(c.syms.elf(), symtab.shdr.sh_link, sym.st_name);
    if (!raw || !*raw) continue;
    std::string_view name = raw;
    if ((c.machine == EM_ARM || c.machine == EM_AARCH64) && IsArmMappingSymbol(name)) continue;
    if (sym.st_shndx >= c.syms_secs.size()) continue;
    const Section* sec = &c.syms_secs[sym.st_shndx];
    if (!(sec->shdr.sh_flags & SHF_ALLOC)) continue;
    // Debug files have NOBITS sections with meaningless offsets: use the runtime image's.
    if (sec->shdr.sh_type == SHT_NOBITS && sym.st_shndx < c.runtime_secs.size()) sec = &c.runtime_secs[sym.st_shndx];
    if (is_label && !IsTextOrData(sec->name)) continue;
    uint64_t value = sym.st_value;
    if (c.machine == EM_ARM && type == STT_FUNC && (value & 1)) --value;
    if (!c.options.kernel) {
      // dso_vaddr → file offset through the PT_LOAD holding it, else the section.
      if (auto file_offset = c.loads.ToFileOffset(value)) value = *file_offset;
      else value = value - sec->shdr.sh_addr + sec->shdr.sh_offset;
    }
    if (c.options.demangle && MaybeMangled(name)) table->AddMangled(value, sym.st_size, name, bind, type);
    else table->Add(value, sym.st_size, name, bind, type);
  }
  return Status::Ok();
}

struct PltEntry {
  uint64_t got;
  std::string name;
};

// perf's dso__synthesize_plt_symbols (6.3+ shape): a ".plt" header symbol and one
// `name@plt` per .rela.plt/.rel.plt entry, over .plt.sec when present (x86 IBT).
void SynthesizePlt(const ElfFile& rt, const std::vector<Section>& secs, const ElfSymbolOptions& options,
                   SymbolTable* table) {
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(rt.elf(), &ehdr)) return;
  const Section* dynsym = FindSectionType(secs, SHT_DYNSYM);
  const Section* rel = FindSection(secs, ".rela.plt");
  if (!rel) rel = FindSection(secs, ".rel.plt");
  const Section* plt = FindSection(secs, ".plt");
  const Section* plt_sec = FindSection(secs, ".plt.sec");
  if (!dynsym || !rel || !plt || plt->shdr.sh_type != SHT_PROGBITS) return;
  if (rel->shdr.sh_link != dynsym->index || dynsym->shdr.sh_link >= secs.size()) return;
  if (plt_sec && plt_sec->shdr.sh_type != SHT_PROGBITS) plt_sec = nullptr;
  auto rel_data = SectionData(rt, *rel);
  auto sym_data = SectionData(rt, *dynsym);
  if (!rel_data.ok() || !sym_data.ok()) return;
  bool rela = rel->shdr.sh_type == SHT_RELA;
  size_t entsize = gelf_fsize(rt.elf(), rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
  size_t n = entsize ? rel->shdr.sh_size / entsize : 0;
  std::vector<PltEntry> entries;
  for (size_t i = 0; i < n; ++i) {
    uint64_t info = 0, offset = 0;
    if (rela) {
      GElf_Rela r;
      if (!gelf_getrela(*rel_data, static_cast<int>(i), &r)) break;
      info = r.r_info, offset = r.r_offset;
    } else {
      GElf_Rel r;
      if (!gelf_getrel(*rel_data, static_cast<int>(i), &r)) break;
      info = r.r_info, offset = r.r_offset;
    }
    GElf_Sym sym;
    const char* raw = nullptr;
    if (gelf_getsym(*sym_data, static_cast<int>(GELF_R_SYM(info)), &sym))
      raw = elf_strptr(rt.elf(), dynsym->shdr.sh_link, sym.st_name);
    entries.push_back({offset, raw ? std::string(raw) : std::string()});
  }
  bool x86 = ehdr.e_machine == EM_X86_64 || ehdr.e_machine == EM_386;
  // x86 PLT slots follow GOT order (IFUNC relocations can be listed out of order).
  if (x86) std::stable_sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.got < b.got; });
  uint64_t header = 0, entry = 0;
  switch (ehdr.e_machine) {
    case EM_ARM: header = 20, entry = 12; break;
    case EM_AARCH64: header = 32, entry = 16; break;
    case EM_X86_64:
    case EM_386: header = 16, entry = 16; break;
    default: header = entry = plt->shdr.sh_entsize; break;
  }
  if (entry == 0) return;
  uint64_t first = plt->shdr.sh_offset + header, limit = plt->shdr.sh_offset + plt->shdr.sh_size;
  if (plt_sec) {
    first = plt_sec->shdr.sh_offset;
    limit = plt_sec->shdr.sh_offset + plt_sec->shdr.sh_size;
    if (plt_sec->shdr.sh_entsize) entry = plt_sec->shdr.sh_entsize;
  }
  // The symbol before .plt (often _init) was stretched over it by the end fix-up.
  table->TruncateAt(plt->shdr.sh_offset);
  if (header && header <= plt->shdr.sh_size) table->Add(plt->shdr.sh_offset, header, ".plt", STB_GLOBAL, STT_FUNC);
  uint64_t at = first;
  for (const PltEntry& e : entries) {
    if (at + entry > limit) break;
    // Demangled when first found, as the table's other names.
    if (options.demangle && MaybeMangled(e.name)) table->AddMangledPlt(at, entry, e.name);
    else
      table->Add(at, entry, e.name.empty() ? fmt::format("offset_{:#x}@plt", at) : e.name + "@plt", STB_GLOBAL,
                 STT_FUNC);
    at += entry;
  }
}

}  // namespace

Result<ElfInfo> ReadElfInfo(const std::string& path) {
  auto f = ElfFile::Open(path);
  if (!f.ok()) return f.error();
  auto secs = ReadSections(*f);
  if (!secs.ok()) return secs.error();
  GElf_Ehdr ehdr;
  gelf_getehdr(f->elf(), &ehdr);
  ElfInfo info;
  info.e_type = ehdr.e_type;
  int cls = gelf_getclass(f->elf());
  if (cls == ELFCLASS64) info.elf_class = ElfClass::k64;
  else if (cls == ELFCLASS32) info.elf_class = ehdr.e_machine == EM_X86_64 ? ElfClass::kX32 : ElfClass::k32;
  info.build_id = ReadBuildId(*f, *secs);
  info.has_symtab = FindSectionType(*secs, SHT_SYMTAB) != nullptr;
  info.has_dynsym = FindSectionType(*secs, SHT_DYNSYM) != nullptr;
  const Section* debug_info = FindSection(*secs, ".debug_info");
  if (!debug_info) debug_info = FindSection(*secs, ".zdebug_info");
  info.has_debug_info = debug_info && debug_info->shdr.sh_type != SHT_NOBITS && debug_info->shdr.sh_size > 0;
  if (const Section* dl = FindSection(*secs, ".gnu_debuglink"); dl && dl->shdr.sh_type != SHT_NOBITS) {
    auto d = SectionData(*f, *dl);
    if (d.ok() && (*d)->d_buf) {
      const char* p = static_cast<const char*>((*d)->d_buf);
      info.debuglink.assign(p, strnlen(p, (*d)->d_size));
    }
  }
  return info;
}

Result<SymbolTable> LoadElfSymbols(const std::string& syms_path, const std::string& runtime_path,
                                   const ElfSymbolOptions& options) {
  auto image = LoadElfImage(syms_path, runtime_path, options);
  if (!image.ok()) return image.error();
  return std::move(image->symbols);
}

Result<ElfImage> LoadElfImage(const std::string& syms_path, const std::string& runtime_path,
                              const ElfSymbolOptions& options) {
  auto syms = ElfFile::Open(syms_path);
  if (!syms.ok()) return syms.error();
  auto syms_secs = ReadSections(*syms);
  if (!syms_secs.ok()) return syms_secs.error();
  Result<ElfFile> runtime_file = Error{};
  std::vector<Section> runtime_secs_storage;
  const ElfFile* runtime = &*syms;
  const std::vector<Section>* runtime_secs = &*syms_secs;
  if (!runtime_path.empty() && runtime_path != syms_path) {
    runtime_file = ElfFile::Open(runtime_path);
    if (!runtime_file.ok()) return runtime_file.error();
    auto rs = ReadSections(*runtime_file);
    if (!rs.ok()) return rs.error();
    runtime_secs_storage = std::move(*rs);
    runtime = &*runtime_file;
    runtime_secs = &runtime_secs_storage;
  }
  ElfSegments loads = ReadLoadSegments(*runtime);
  if (loads.empty()) loads = ReadLoadSegments(*syms);
  GElf_Ehdr ehdr;
  gelf_getehdr(syms->elf(), &ehdr);
  SymtabContext ctx{*syms, *syms_secs, *runtime_secs, loads, options, ehdr.e_machine};
  SymbolTable table;
  table.set_demangle_params(options.demangle_params);
  const Section* symtab = FindSectionType(*syms_secs, SHT_SYMTAB);
  const Section* dynsym = FindSectionType(*syms_secs, SHT_DYNSYM);
  if (!symtab && !dynsym) return Err("{}: no .symtab or .dynsym", syms_path);
  if (options.kernel && !symtab) return Err("{}: kernel image without .symtab", syms_path);
  // perf loads .symtab, fixes it up, then adds .dynsym and fixes up again.
  for (const Section* s : {symtab, dynsym}) {
    if (!s) continue;
    PERFLENS_RETURN_IF_ERROR(LoadSymtab(ctx, *s, &table));
    table.Finish();
  }
  if (options.synthesize_plt && !options.kernel) {
    SynthesizePlt(*runtime, *runtime_secs, options, &table);
    table.Finish();
  }
  return ElfImage{std::move(table), std::move(loads)};
}

}  // namespace perflens
