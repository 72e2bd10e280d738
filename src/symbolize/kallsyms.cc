#include "symbolize/kallsyms.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/build_id.h"
#include "base/text_escape.h"

namespace perflens {
namespace {

constexpr uint8_t kStbLocal = 0, kStbGlobal = 1, kStbWeak = 2;
constexpr uint8_t kSttObject = 1, kSttFunc = 2;
constexpr uint64_t kPage = 4096;

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

constexpr std::array<int8_t, 256> kHexDigits = [] {
  std::array<int8_t, 256> t{};
  for (auto& d : t) d = -1;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = static_cast<int8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[static_cast<size_t>(c)] = static_cast<int8_t>(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[static_cast<size_t>(c)] = static_cast<int8_t>(c - 'A' + 10);
  return t;
}();

int HexDigit(char c) { return kHexDigits[static_cast<uint8_t>(c)]; }

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

uint64_t RoundUpPage(uint64_t v) { return (v + kPage - 1) / kPage * kPage; }

// Parses "<hex> <type> <name>[\t<module>]". False for junk.
bool ParseLine(std::string_view line, uint64_t* addr, char* type, std::string_view* name,
               std::string_view* module) {
  size_t i = 0;
  uint64_t v = 0;
  if (line.size() > 16 && line[16] == ' ') {
    // The usual 16-digit address, without a branch per digit.
    int bad = 0;
    for (size_t k = 0; k < 16; ++k) {
      int d = HexDigit(line[k]);
      bad |= d;
      v = v << 4 | static_cast<uint64_t>(d & 15);
    }
    if (bad >= 0) i = 16;
    else v = 0;
  }
  while (i < line.size()) {
    int d = HexDigit(line[i]);
    if (d < 0) break;
    if (i >= 16) return false;  // more than 64 bits
    v = v << 4 | static_cast<uint64_t>(d);
    ++i;
  }
  if (i == 0 || i + 3 > line.size() || line[i] != ' ' || line[i + 2] != ' ') return false;
  *addr = v;
  *type = line[i + 1];
  std::string_view rest = TrimRight(line.substr(i + 3));
  const void* tab = rest.empty() ? nullptr : std::memchr(rest.data(), '\t', rest.size());
  if (!tab) {
    *name = rest;
    *module = {};
  } else {
    size_t at = static_cast<size_t>(static_cast<const char*>(tab) - rest.data());
    *name = rest.substr(0, at);
    std::string_view mod = rest.substr(at + 1);
    while (!mod.empty() && (mod.front() == ' ' || mod.front() == '\t')) mod.remove_prefix(1);
    *module = mod;
  }
  return !name->empty();
}

// What the lines of a kallsyms text hold, in file order. Each symbol's `index` holds
// its module (0: the kernel) until the tables are Finish()ed; its name points into the
// text, or into `owner->escaped` when it had control bytes.
struct ParsedLines {
  std::vector<Symbol> syms;
  std::vector<std::string_view> module_names{std::string_view()};
  size_t parsed = 0;
  bool all_zero = true;
  bool have_ref = false;
  uint64_t ref_addr = 0;
};

void ParseLines(std::string_view text, std::string_view ref_symbol, KallsymsNames* owner, ParsedLines* out) {
  // One Symbol per line straight away (lines are ~45 bytes): an intermediate record per
  // line and a copy of every name were 6 MB of fresh pages, which cost more than parsing.
  out->syms.reserve(text.size() / 44 + 16);
  std::unordered_map<std::string_view, uint32_t> module_index;
  const char* const base = text.data();
  for (size_t pos = 0; pos < text.size();) {
    const void* nl = std::memchr(base + pos, '\n', text.size() - pos);
    const size_t line_end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - base) : text.size();
    std::string_view line(base + pos, line_end - pos);
    pos = line_end + 1;

    uint64_t addr;
    char type;
    std::string_view name, module;
    if (!ParseLine(line, &addr, &type, &name, &module)) continue;
    ++out->parsed;
    if (addr != 0) out->all_zero = false;
    if (!out->have_ref && !ref_symbol.empty() && module.empty() && IsAnchorType(type) && name == ref_symbol) {
      out->ref_addr = addr;
      out->have_ref = true;
    }
    if (!KeepType(type) || name[0] == '$') continue;
    if (module.empty() && name == "__entry_SYSCALL_64_trampoline") continue;
    Symbol& r = out->syms.emplace_back();
    r.start = r.end = addr;
    // Names are printed as stored: escaped once here, as SymbolTable::Add does.
    if (HasControlChars(name)) [[unlikely]]
      name = owner->escaped.emplace_back(EscapeControl(name));
    r.name = name;
    r.index = 0;
    if (!module.empty()) {
      // A module's lines come together: compare with the last one before looking up.
      if (module == out->module_names.back()) {
        r.index = static_cast<uint32_t>(out->module_names.size() - 1);
      } else {
        auto [it, added] = module_index.try_emplace(module, static_cast<uint32_t>(out->module_names.size()));
        if (added) out->module_names.push_back(module);
        r.index = it->second;
      }
    }
    r.binding = Binding(type);
    r.type = ElfType(type);
  }
}

}  // namespace

std::string_view KallsymsText::text() const {
  if (mapped.size()) return {reinterpret_cast<const char*>(mapped.data()), mapped.size()};
  return read;
}

Result<KallsymsTables> ParseKallsyms(std::shared_ptr<const KallsymsText> text, std::string_view ref_symbol,
                                     int64_t delta) {
  const std::string_view body = text->text();
  if (body.size() > UINT32_MAX) return Err("kallsyms: text of {} bytes is too large", body.size());
  KallsymsTables out;
  auto owner = std::make_shared<KallsymsNames>();
  owner->text = std::move(text);
  // (Parsing two halves on two threads was slower: the time goes to page faults on
  // the fresh tables, which two threads of one process take in turn.)
  ParsedLines lines;
  ParseLines(body, ref_symbol, owner.get(), &lines);
  if (lines.parsed == 0) return Err("kallsyms: no parsable line (expected \"<hex address> <type> <name>\")");
  out.all_zero = lines.all_zero;
  out.ref_addr = lines.ref_addr;
  std::vector<Symbol>& syms = lines.syms;
  const std::vector<std::string_view>& module_names = lines.module_names;

  // symbols__fixup_end(is_kallsyms=true) on the combined table, before the split.
  auto by_start = [](const Symbol& a, const Symbol& b) { return a.start < b.start; };
  if (!std::is_sorted(syms.begin(), syms.end(), by_start)) std::stable_sort(syms.begin(), syms.end(), by_start);
  for (size_t i = 0; i + 1 < syms.size(); ++i) {
    Symbol& prev = syms[i];
    const Symbol& curr = syms[i + 1];
    if (prev.end != prev.start) continue;
    if ((prev.index == 0) != (curr.index == 0)) {
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
      const Symbol& a = syms[kept - 1];
      const Symbol& b = syms[i];
      if (!ChooseFirstSymbol(a.end - a.start, a.binding, a.name, b.end - b.start, b.binding, b.name))
        syms[kept - 1] = syms[i];
      continue;
    }
    syms[kept++] = syms[i];
  }
  syms.resize(kept);

  // Split, in place: kernel symbols stay at the front (with the delta, the end kept
  // saturated as SymbolTable::Add keeps it), module symbols keep their absolute
  // addresses and go to their module's table.
  std::vector<std::vector<Symbol>> module_syms(module_names.size());
  const uint64_t d = static_cast<uint64_t>(delta);
  size_t kernel_count = 0;
  for (size_t i = 0; i < syms.size(); ++i) {
    Symbol s = syms[i];
    if (s.index != 0) {
      module_syms[s.index].push_back(s);
      continue;
    }
    if (d != 0) {
      const uint64_t size = s.end - s.start;
      s.start += d;
      s.end = s.start + size < s.start ? UINT64_MAX : s.start + size;
    }
    syms[kernel_count++] = s;
  }
  syms.resize(kernel_count);
  out.kernel.Adopt(std::move(syms), owner);
  out.kernel.Finish();
  for (size_t m = 1; m < module_names.size(); ++m) {
    SymbolTable& table = out.modules[std::string(module_names[m])];
    table.Adopt(std::move(module_syms[m]), owner);
    table.Finish();
  }
  return out;
}

Result<KallsymsTables> ParseKallsyms(std::string_view text, std::string_view ref_symbol, int64_t delta) {
  auto copy = std::make_shared<KallsymsText>();
  copy->read.assign(text);
  return ParseKallsyms(std::move(copy), ref_symbol, delta);
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
