#include "report/srcline.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace perflens {
namespace {

bool IsPltSymbol(const Symbol* sym) {
  if (!sym) return false;
  const std::string_view name = sym->name;
  return name == ".plt" || (name.size() > 4 && name.substr(name.size() - 4) == "@plt");
}

// Whether binutils' addr2line -f names a function at `dso_addr`: it takes the nearest
// ELF function symbol at or below the address, whatever its size. perflens's own
// symbols end where perf ends them, and its PLT symbols are made up (as perf's).
bool Addr2lineNamesAFunction(const DsoModule& module, uint64_t dso_addr) {
  if (const Symbol* sym = module.FindSymbol(dso_addr)) return !IsPltSymbol(sym);
  const SymbolTable* table = module.symbols();
  if (!table) return false;
  const std::vector<Symbol>& all = table->symbols();
  auto it = std::upper_bound(all.begin(), all.end(), dso_addr, [](uint64_t a, const Symbol& s) { return a < s.start; });
  while (it != all.begin()) {
    --it;
    if (!IsPltSymbol(&*it)) return true;
  }
  return false;
}

}  // namespace

std::string Addr2lineText(Symbolizer* symbolizer, const Dso& dso, uint64_t dso_addr, bool full_path,
                          uint64_t* vaddr) {
  if (vaddr) *vaddr = dso_addr;
  if (dso.is_kernel()) return {};
  const DsoModule* module = symbolizer->Module(dso);
  if (vaddr)
    if (auto v = module->ToDsoVaddr(dso_addr)) *vaddr = *v;
  const SourceLine line = module->FindSourceLine(dso_addr);
  if (line.known()) return FormatSrcline(line, full_path);
  // perf ran `addr2line -f` on the file, which answers "??:0" without line info when
  // the ELF symbols name a function there. Without such a function (local code of a
  // stripped binary, PLT stubs, whose symbols perf makes up) addr2line answers
  // "?? ??:0", which perf takes for a failure, as it does for DSOs with no file to run
  // it on (kernel, vdso, JIT maps): those get the fallbacks.
  if (dso.kind() == DsoKind::kUser && !module->segments().empty() && Addr2lineNamesAFunction(*module, dso_addr))
    return "??:0";
  return {};
}

std::string DsoAddrText(Symbolizer* symbolizer, const Dso& dso, uint64_t dso_addr) {
  uint64_t vaddr = dso_addr;
  if (!dso.is_kernel())
    if (auto v = symbolizer->Module(dso)->ToDsoVaddr(dso_addr)) vaddr = *v;
  return fmt::format("{}[{:x}]", dso.short_name(), vaddr);
}

void SrcLines::Fill(HistEntry* e, uint64_t dso_addr) {
  e->srcline = e->srcfile = nullptr;
  e->srcline_id = e->srcfile_id = 0;
  e->srcline_vaddr = dso_addr;
  if (!e->dso) return;
  auto [it, added] = by_addr_.try_emplace({static_cast<uint32_t>(e->dso->id()), dso_addr});
  Cached& c = it->second;
  if (added) {
    std::string text = Addr2lineText(symbolizer_, *e->dso, dso_addr, full_path_, &c.vaddr);
    if (!text.empty()) {
      const size_t colon = text.rfind(':');
      if (text != "??:0" && colon != std::string::npos) std::tie(c.file, c.file_id) = Intern(text.substr(0, colon));
      std::tie(c.text, c.id) = Intern(std::move(text));
    }
  }
  e->srcline = c.text;
  e->srcline_id = c.id;
  e->srcline_vaddr = c.vaddr;
  e->srcfile = c.file;
  e->srcfile_id = c.file_id;
}

void SrcLines::FillBranchEnd(BranchEnd* end) {
  HistEntry e;
  e.dso = end->dso;
  e.sym = end->sym;
  e.key_addr = end->al_addr;
  Fill(&e, end->al_addr);
  std::string text;
  Print(e, &text);
  std::tie(end->srcline, end->srcline_id) = Intern(std::move(text));
}

const std::string* SrcLines::ChainText(const Dso* dso, uint64_t dso_addr, const Symbol* sym, bool expanded) {
  if (!dso || !sym) return nullptr;
  auto [it, added] = chain_texts_.try_emplace({sym, dso_addr, expanded}, nullptr);
  if (!added) return it->second;
  std::string text;
  if (expanded && inline_frames_ && !dso->is_kernel()) {
    // perf's append_inlines gives each frame of an expansion the line addr2line -i
    // printed for it.
    const SymbolFrames frames = symbolizer_->Module(*dso)->FramesAt(dso_addr);
    if (frames.size() > 1)
      for (const SymbolFrame& f : frames)
        if (f.sym == sym && f.line.known()) {
          text = FormatSrcline(f.line, full_path_);
          break;
        }
  }
  if (text.empty()) text = Addr2lineText(symbolizer_, *dso, dso_addr, full_path_);
  if (text.empty()) text = fmt::format("+{}", dso_addr >= sym->start ? dso_addr - sym->start : 0);
  it->second = Intern(std::move(text)).first;
  return it->second;
}

std::pair<const std::string*, uint32_t> SrcLines::Intern(std::string text) {
  auto [it, fresh] = ids_.try_emplace(std::move(text), static_cast<uint32_t>(texts_.size()));
  if (fresh) texts_.push_back(&it->first);
  return {&it->first, it->second};
}

void SrcLines::Print(const HistEntry& e, std::string* out) {
  if (e.srcline) {
    out->append(*e.srcline);
  } else if (e.sym && !e.sym->inlined && e.key_addr >= e.sym->start) {
    fmt::format_to(std::back_inserter(*out), "{}+{}", e.sym->name, e.key_addr - e.sym->start);
  } else if (e.dso) {
    fmt::format_to(std::back_inserter(*out), "{}[{:x}]", e.dso->short_name(), e.srcline_vaddr);
  } else {
    out->append("??:0");
  }
}

}  // namespace perflens
