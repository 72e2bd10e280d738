#include "report/annotate.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <tuple>

#include "base/text_escape.h"
#include "report/srcline.h"
#include "symbolize/code_bytes.h"

namespace perflens {

// Sums each evsel's self samples per (dso, symbol) and per address offset.
class Annotate::Consumer : public SampleConsumer {
 public:
  explicit Consumer(const std::string& symbol) : symbol_(symbol) {}

  void OnSample(const ResolvedSample& s) override {
    const AddrLocation& al = s.location;
    if (s.filtered || !al.dso || !al.sym || al.sym->inlined) return;
    // perf annotate -s drops every other symbol's samples (evsel__add_sample).
    if (!symbol_.empty() && al.sym->name != symbol_) return;
    auto [it, added] = index_.try_emplace(Key{s.evsel, al.dso, al.sym}, symbols_.size());
    if (added) {
      symbols_.emplace_back();
      AnnotatedSymbol& a = symbols_.back();
      a.evsel = s.evsel, a.dso = al.dso, a.sym = al.sym;
    }
    AnnotatedSymbol& a = symbols_[it->second];
    // perf's symbol__inc_addr_samples: only addresses inside the symbol count.
    if (al.dso_addr < al.sym->start || al.dso_addr >= al.sym->end) return;
    AddrCost& c = a.by_offset[al.dso_addr - al.sym->start];
    c.nr_samples += s.nr_samples, c.period += s.period;
    a.total.nr_samples += s.nr_samples, a.total.period += s.period;
  }

  const std::deque<AnnotatedSymbol>& symbols() const { return symbols_; }

 private:
  struct Key {
    uint32_t evsel;
    const Dso* dso;
    const Symbol* sym;
    bool operator==(const Key& o) const { return evsel == o.evsel && dso == o.dso && sym == o.sym; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.sym) * 31 + std::hash<const void*>()(k.dso) + k.evsel;
    }
  };
  std::string symbol_;
  std::unordered_map<Key, size_t, KeyHash> index_;
  std::deque<AnnotatedSymbol> symbols_;
};

std::vector<AddrCost> CostsPerInstruction(std::span<const Instruction> code, uint64_t start_vaddr, uint64_t size,
                                          const std::map<uint64_t, AddrCost>& by_offset) {
  std::vector<AddrCost> out(code.size());
  auto it = by_offset.begin();
  for (size_t i = 0; i < code.size(); ++i) {
    const uint64_t begin = code[i].dso_vaddr - start_vaddr;
    const uint64_t end = i + 1 < code.size() ? code[i + 1].dso_vaddr - start_vaddr : size;
    while (it != by_offset.end() && it->first < begin) ++it;  // before the first instruction
    for (; it != by_offset.end() && it->first < end; ++it) {
      out[i].nr_samples += it->second.nr_samples;
      out[i].period += it->second.period;
    }
  }
  return out;
}

Annotate::~Annotate() = default;

Result<std::unique_ptr<Annotate>> Annotate::Create(PerfFile* file, const AnnotateOptions& options) {
  std::unique_ptr<Annotate> a(new Annotate());
  a->options_ = options;
  a->file_ = file;
  SessionOptions so;
  so.symbolize = options.symbolize;
  so.progress = options.progress;
  so.needs.assign(file->evsels().size(), SampleNeeds{true, false});
  so.coalesce = true;  // self samples only: summed per (thread, ip), resolved once
  so.use_threads = options.use_threads;
  so.parallel_read = options.parallel_read;
  a->session_ = Session::Open(file, std::move(so));
  a->consumer_ = std::make_unique<Consumer>(options.symbol);
  a->session_->AddConsumer(a->consumer_.get());
  a->arch_name_ = file->env().arch.value_or("");
  return a;
}

Status Annotate::Process() { return session_->Run(); }

std::vector<const AnnotatedSymbol*> Annotate::Selected() const {
  std::vector<const AnnotatedSymbol*> out;
  for (const AnnotatedSymbol& a : consumer_->symbols())
    if (a.total.nr_samples > 0) out.push_back(&a);
  std::stable_sort(out.begin(), out.end(), [](const AnnotatedSymbol* x, const AnnotatedSymbol* y) {
    if (x->evsel != y->evsel) return x->evsel < y->evsel;
    if (x->total.period != y->total.period) return x->total.period > y->total.period;
    if (x->total.nr_samples != y->total.nr_samples) return x->total.nr_samples > y->total.nr_samples;
    return std::make_tuple(x->dso->id(), x->sym->start) < std::make_tuple(y->dso->id(), y->sym->start);
  });
  return out;
}

const std::vector<std::string>* Annotate::SourceFile(std::string_view path) {
  auto [it, added] = sources_.try_emplace(std::string(path));
  if (added) {
    // Under --symfs nothing outside it is read (as for the binaries): the source's
    // path is taken inside the symfs.
    std::ifstream in(options_.symbolize.symfs.empty() ? it->first : options_.symbolize.symfs + "/" + it->first);
    std::string line;
    while (in && std::getline(in, line)) it->second.push_back(std::move(line));
  }
  return it->second.empty() ? nullptr : &it->second;
}

namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// perf strims objdump's source lines and expands their tabs (8 columns).
std::string SourceText(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  std::string out;
  for (char c : line) {
    if (c == '\t')
      out.append(8 - out.size() % 8, ' ');
    else
      out += c;
  }
  return out;
}

// "<sym>" / "<sym+0x20>" for a dso_vaddr, as objdump names a branch target; ""
// when no symbol of the module holds it.
std::string TargetName(const DsoModule& module, uint64_t dso_vaddr) {
  const std::optional<uint64_t> file_offset = module.ToFileOffset(dso_vaddr);
  if (!file_offset) return {};
  const Symbol* sym = module.FindSymbol(*file_offset);
  if (!sym) return {};
  const uint64_t off = *file_offset - sym->start;
  return off ? fmt::format("<{}+{:#x}>", sym->name, off) : fmt::format("<{}>", sym->name);
}

}  // namespace

Status Annotate::Print(const AnnotatedSymbol& s, std::string* out) {
  const Dso& dso = *s.dso;
  const Symbol& sym = *s.sym;
  Symbolizer& symbolizer = session_->symbolizer();
  if (dso.is_kernel())
    return Err(
        "cannot annotate {}: perflens does not annotate kernel code yet ({} with build id {}; perf needs "
        "its vmlinux)",
        sym.name, dso.short_name(), dso.build_id().empty() ? "?" : dso.build_id().ToHex());
  const DsoModule* module = symbolizer.Module(dso);
  if (module->info().status != LoadStatus::kLoaded || module->segments().empty())
    return Err("cannot annotate {}: no ELF file for {}{}{}", sym.name, dso.printable_long_name(),
               module->info().message.empty() ? "" : ": ", module->info().message);
  const std::optional<uint64_t> start_vaddr = module->ToDsoVaddr(sym.start);
  if (!start_vaddr)
    return Err("cannot annotate {}: its address is in no PT_LOAD of {}", sym.name, module->runtime_path());
  const uint64_t size = sym.end - sym.start;
  auto code = ReadCodeBytes(*module, sym.start, size);
  if (!code) return Err("cannot annotate {}: {}", sym.name, code.error().message);
  if (!disassembler_) {
    const std::optional<CodeArch> arch = CodeArchFromName(arch_name_.empty() ? "x86_64" : arch_name_);
    if (!arch)
      return Err(
          "cannot annotate {}: perflens disassembles x86_64 and "
          "aarch64, not {}",
          sym.name, arch_name_);
    auto d = Disassembler::Create(*arch);
    if (!d) return Err("cannot annotate {}: {}", sym.name, d.error().message);
    disassembler_.emplace(std::move(*d));
  }
  const std::vector<Instruction> code_lines = disassembler_->Disassemble(code->bytes, *start_vaddr);
  const std::vector<AddrCost> costs = CostsPerInstruction(code_lines, *start_vaddr, size, s.by_offset);
  std::vector<double> percent(costs.size());
  for (size_t i = 0; i < costs.size(); ++i) percent[i] = LocalPeriodPercent(costs[i], s.total);

  auto w = std::back_inserter(*out);
  const std::string& evsel_name = file_->evsels()[s.evsel].name;
  const std::string dso_name =
      options_.full_path ? dso.printable_long_name() : std::string(BaseName(dso.printable_long_name()));

  // -l: perf's symbol__calc_lines + print_summary. Instructions above 0.5% get
  // their source line; the lines are summed by text and listed by share, equal
  // shares in descending text order (perf's two rb-trees).
  std::vector<std::string> paths(code_lines.size());
  if (options_.print_line) {
    std::map<std::string, double> sums;
    for (size_t i = 0; i < code_lines.size(); ++i) {
      if (percent[i] <= 0.5) continue;
      const uint64_t file_offset = sym.start + (code_lines[i].dso_vaddr - *start_vaddr);
      std::string text = Addr2lineText(&symbolizer, dso, file_offset, options_.full_path);
      if (text.empty()) text = DsoAddrText(&symbolizer, dso, file_offset);
      sums[text] += percent[i];
      paths[i] = std::move(text);
    }
    std::vector<std::pair<std::string, double>> sorted(sums.rbegin(), sums.rend());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    fmt::format_to(w,
                   "\nSorted summary for file "
                   "{}\n----------------------------------------------\n\n",
                   dso.printable_long_name());
    if (sorted.empty()) fmt::format_to(w, " Nothing higher than {:1.1f}%\n", 0.5);
    for (const auto& [text, sum] : sorted) fmt::format_to(w, " {:7.2f} {}\n", sum, text);
  }

  const std::string header = fmt::format(
      " {:<8}|\tSource code & Disassembly of {} for {} ({} "
      "samples, percent: local period)\n",
      "Percent", dso_name, evsel_name, s.total.nr_samples);
  out->append(header);
  out->append(header.size() + 4,
              '-');  // perf: the header's length (its '\n' included) + "----"
  out->push_back('\n');

  const int addr_width =
      code_lines.empty() ? 1 : static_cast<int>(fmt::format("{:x}", code_lines.back().dso_vaddr).size());
  auto text_line = [&](std::string_view text, uint64_t line_nr) {
    if (text.empty())
      out->append("         :\n");
    else
      fmt::format_to(w, "         : {:<{}} {}\n", line_nr, addr_width, text);
  };
  // objdump's own lines before the code, as perf shows them.
  text_line("", 0), text_line("", 0), text_line("", 0);
  text_line(fmt::format("Disassembly of section {}:", code->section.empty() ? ".text" : code->section), 3);
  text_line("", 0);
  text_line(fmt::format("{:016x} <{}>:", *start_vaddr, sym.name), 5);

  // objdump's tab after "addr:" (perf expands it from column 0 of the trimmed
  // line).
  const int after_colon = 8 - (addr_width + 1) % 8;
  const bool x86 = disassembler_->arch() == CodeArch::kX86_64;
  std::string_view prev_file;
  uint32_t prev_line = 0;
  std::string insn;
  for (size_t i = 0; i < code_lines.size(); ++i) {
    const Instruction& ins = code_lines[i];
    const uint64_t file_offset = sym.start + (ins.dso_vaddr - *start_vaddr);
    const SourceLine src = module->FindSourceLine(file_offset);
    if (src.known() && src.line != 0 && (src.file != prev_file || src.line != prev_line)) {
      prev_file = src.file, prev_line = src.line;
      const std::vector<std::string>* lines = SourceFile(src.file);
      if (lines && src.line <= lines->size())
        text_line(SourceText((*lines)[src.line - 1]), src.line);
      else
        text_line(FormatSrcline(src, options_.full_path), src.line);
    }
    insn.clear();
    if (x86) {
      fmt::format_to(std::back_inserter(insn), "{:<6} {}", ins.mnemonic, ins.operands);
    } else {  // objdump: "mnemonic\toperands", the tab from the column after
              // "addr:"
      const size_t col = static_cast<size_t>(addr_width + 1 + after_colon) + ins.mnemonic.size();
      insn = ins.mnemonic;
      if (!ins.operands.empty()) insn.append(8 - col % 8, ' ').append(ins.operands);
    }
    if (ins.target) {
      const std::string name = TargetName(*module, *ins.target);
      if (ins.branch) {
        if (!name.empty()) insn.append(" ").append(name);
      } else if (x86) {
        fmt::format_to(std::back_inserter(insn), "        # {:x}{}{}", *ins.target, name.empty() ? "" : " ", name);
      } else if (!name.empty()) {
        insn.append(" ").append(name);
      }
    }
    while (!insn.empty() && insn.back() == ' ') insn.pop_back();
    fmt::format_to(w, " {:7.2f} :   {:>{}x}:{:{}}{}", percent[i], ins.dso_vaddr, addr_width, "", after_colon, insn);
    if (!paths[i].empty() && paths[i] != prev_path_) {
      fmt::format_to(w, " // {}", paths[i]);
      prev_path_ = paths[i];
    }
    out->push_back('\n');
  }
  return Status::Ok();
}

}  // namespace perflens
