#include "symbolize/kallsyms.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/build_id.h"

namespace perflens {
namespace {

constexpr uint8_t kStbLocal = 0, kStbGlobal = 1, kStbWeak = 2;
constexpr uint8_t kSttObject = 1, kSttFunc = 2;
constexpr uint64_t kPage = 4096;

struct RawSym {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string_view name;    // without the module part
  std::string_view module;  // "[xfs]", empty for the kernel
  uint8_t binding = kStbGlobal;
  uint8_t type = kSttFunc;
};

// perf's symbol_type__filter.
// ASCII case folding without the locale (a call per line showed in profiles).
char Upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool KeepType(char type) {
  char t = Upper(type);
  return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

// perf's kallsyms__is_function, plus 'A' as find_symbol_cb accepts for the anchor.
bool IsAnchorType(char type) {
  char t = Upper(type);
  return t == 'T' || t == 'W' || t == 'A';
}

uint8_t Binding(char type) {  // kallsyms2elf_binding
  if (type == 'W') return kStbWeak;
  return type >= 'A' && type <= 'Z' ? kStbGlobal : kStbLocal;
}

uint8_t ElfType(char type) {  // kallsyms2elf_type
  char t = Lower(type);
  return (t == 't' || t == 'w') ? kSttFunc : kSttObject;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

uint64_t RoundUpPage(uint64_t v) { return (v + kPage - 1) / kPage * kPage; }

bool PreferFirst(const RawSym& a, const RawSym& b) {
  return ChooseFirstSymbol(a.end - a.start, a.binding, a.name, b.end - b.start, b.binding, b.name);
}

// Parses "<hex> <type> <name>[\t<module>]". False for junk.
bool ParseLine(std::string_view line, uint64_t* addr, char* type, std::string_view* name,
               std::string_view* module) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < line.size() && HexDigit(line[i]) >= 0) {
    if (i >= 16) return false;  // more than 64 bits
    v = v << 4 | static_cast<uint64_t>(HexDigit(line[i]));
    ++i;
  }
  if (i == 0 || i + 3 > line.size() || line[i] != ' ' || line[i + 2] != ' ') return false;
  *addr = v;
  *type = line[i + 1];
  std::string_view rest = TrimRight(line.substr(i + 3));
  size_t tab = rest.find('\t');
  if (tab == std::string_view::npos) {
    *name = rest;
    *module = {};
  } else {
    *name = rest.substr(0, tab);
    std::string_view mod = rest.substr(tab + 1);
    while (!mod.empty() && (mod.front() == ' ' || mod.front() == '\t')) mod.remove_prefix(1);
    *module = mod;
  }
  return !name->empty();
}

}  // namespace

Result<KallsymsTables> ParseKallsyms(std::string_view text, std::string_view ref_symbol, int64_t delta) {
  KallsymsTables out;
  std::vector<RawSym> syms;
  syms.reserve(text.size() / 40);  // lines are ~45 bytes
  size_t parsed = 0;
  bool have_ref = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);

    uint64_t addr;
    char type;
    std::string_view name, module;
    if (!ParseLine(line, &addr, &type, &name, &module)) continue;
    ++parsed;
    if (addr != 0) out.all_zero = false;
    if (!have_ref && !ref_symbol.empty() && module.empty() && IsAnchorType(type) && name == ref_symbol) {
      out.ref_addr = addr;
      have_ref = true;
    }
    if (!KeepType(type) || name[0] == '$') continue;
    if (module.empty() && name == "__entry_SYSCALL_64_trampoline") continue;
    syms.push_back(RawSym{addr, addr, name, module, Binding(type), ElfType(type)});
  }
  if (parsed == 0) return Err("kallsyms: no parsable line (expected \"<hex address> <type> <name>\")");

  // symbols__fixup_end(is_kallsyms=true) on the combined table, before the split.
  auto by_start = [](const RawSym& a, const RawSym& b) { return a.start < b.start; };
  if (!std::is_sorted(syms.begin(), syms.end(), by_start)) std::stable_sort(syms.begin(), syms.end(), by_start);
  for (size_t i = 0; i + 1 < syms.size(); ++i) {
    RawSym& prev = syms[i];
    const RawSym& curr = syms[i + 1];
    if (prev.end != prev.start) continue;
    if (prev.module.empty() != curr.module.empty()) {
      prev.end = RoundUpPage(prev.start + kPage);
    } else {
      prev.end = curr.start;
    }
  }
  if (!syms.empty() && syms.back().end == syms.back().start) {
    syms.back().end = RoundUpPage(syms.back().start) + kPage;
  }

  // symbols__fixup_duplicate, in place.
  size_t kept = 0;
  for (size_t i = 0; i < syms.size(); ++i) {
    if (kept > 0 && syms[kept - 1].start == syms[i].start) {
      if (!PreferFirst(syms[kept - 1], syms[i])) syms[kept - 1] = syms[i];
      continue;
    }
    syms[kept++] = syms[i];
  }
  syms.resize(kept);

  // Split: module symbols keep their absolute addresses, kernel ones get the delta.
  std::string_view last_module;
  SymbolTable* module_table = nullptr;  // of last_module: a module's symbols come together
  for (const RawSym& s : syms) {
    if (s.module.empty()) {
      uint64_t start = s.start + static_cast<uint64_t>(delta);
      out.kernel.Add(start, s.end - s.start, s.name, s.binding, s.type);
    } else {
      if (!module_table || s.module != last_module) {
        module_table = &out.modules[std::string(s.module)];
        last_module = s.module;
      }
      module_table->Add(s.start, s.end - s.start, s.name, s.binding, s.type);
    }
  }
  out.kernel.Finish();
  for (auto& [name, table] : out.modules) table.Finish();
  return out;
}

std::string GnuBuildIdHexFromNotes(std::string_view notes) {
  constexpr uint32_t kNtGnuBuildId = 3;
  auto align4 = [](uint64_t v) { return (v + 3) & ~uint64_t{3}; };
  uint64_t pos = 0;
  while (pos + 12 <= notes.size()) {
    uint32_t namesz, descsz, type;
    std::memcpy(&namesz, notes.data() + pos, 4);
    std::memcpy(&descsz, notes.data() + pos + 4, 4);
    std::memcpy(&type, notes.data() + pos + 8, 4);
    uint64_t name_off = pos + 12;
    uint64_t desc_off = name_off + align4(namesz);
    uint64_t next = desc_off + align4(descsz);
    if (desc_off + descsz > notes.size()) return "";
    if (type == kNtGnuBuildId && namesz == 4 && std::memcmp(notes.data() + name_off, "GNU", 4) == 0 &&
        descsz > 0) {
      return BuildId::FromBytes(reinterpret_cast<const uint8_t*>(notes.data() + desc_off), descsz).ToHex();
    }
    pos = next;
  }
  return "";
}

std::string RunningKernelBuildIdHex() {
  int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string data;
  char buf[4096];
  while (data.size() < (1u << 20)) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return GnuBuildIdHexFromNotes(data);
}

}  // namespace perflens
