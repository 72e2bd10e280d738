#include "symbolize/symbol_table.h"

#include "base/text_escape.h"
#include "symbolize/demangle.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <new>
#include <utility>

namespace perflens {
namespace {

constexpr uint8_t kStbGlobal = 1;
constexpr uint8_t kStbWeak = 2;
constexpr uint8_t kSttFunc = 2;
constexpr uint64_t kPage = 4096;

size_t LeadingUnderscores(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[n] == '_') ++n;
  return n;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Whether ChooseFirstSymbol gets as far as the names for these two.
bool NamesDecide(const Symbol& a, const Symbol& b) {
  const bool sized_a = a.end > a.start, sized_b = b.end > b.start;
  return sized_a == sized_b && (a.binding == kStbWeak) == (b.binding == kStbWeak) &&
         (a.binding == kStbGlobal) == (b.binding == kStbGlobal);
}

// Two mangled names that differ only in the digit of an Itanium <ctor-dtor-name>
// ("_ZN3FooC1Ev" and "_ZN3FooC2Ev"; C1–C5, D0–D5, before the nested name's E, template
// arguments' I or an abi tag's B) demangle to the same text, so perf's choice between
// them ends in a tie that keeps the first: no need to demangle them to know (574 of
// libstdc++'s 615 alias pairs, a third of loading its symbols). Names with "SyS" are
// left to the full comparison (the tie-break looks at that prefix).
bool CtorDtorVariants(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || !StartsWith(a, "_Z")) return false;
  size_t i = 0;
  while (i < a.size() && a[i] == b[i]) ++i;
  if (i < 3 || i + 1 >= a.size() || a.substr(i + 1) != b.substr(i + 1)) return false;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const char kind = a[i - 1], next = a[i + 1];
  return (kind == 'C' || kind == 'D') && digit(a[i]) && digit(b[i]) && (next == 'E' || next == 'I' || next == 'B') &&
         a.find("SyS") == std::string_view::npos;
}

bool PreferFirst(const Symbol& a, const Symbol& b) {
  return ChooseFirstSymbol(a.end - a.start, a.binding, a.name, b.end - b.start, b.binding, b.name);
}

}  // namespace

// perf 6.1 choose_best_symbol: true when `a` (inserted first) beats `b`. perf 6.1.x does
// not yet prefer typed symbols over NOTYPE labels (checked against /usr/bin/perf).
bool ChooseFirstSymbol(uint64_t size_a, uint8_t binding_a, std::string_view name_a, uint64_t size_b,
                       uint8_t binding_b, std::string_view name_b) {
  if (size_b == 0 && size_a > 0) return true;
  if (size_a == 0 && size_b > 0) return false;
  bool weak_a = binding_a == kStbWeak, weak_b = binding_b == kStbWeak;
  if (weak_b && !weak_a) return true;
  if (weak_a && !weak_b) return false;
  bool global_a = binding_a == kStbGlobal, global_b = binding_b == kStbGlobal;
  if (global_a && !global_b) return true;
  if (global_b && !global_a) return false;
  size_t us_a = LeadingUnderscores(name_a), us_b = LeadingUnderscores(name_b);
  if (us_b > us_a) return true;
  if (us_a > us_b) return false;
  if (name_a.size() > name_b.size()) return true;
  if (name_a.size() < name_b.size()) return false;
  // arch__choose_best_symbol: avoid "SyS" syscall aliases.
  return !(StartsWith(name_a, "SyS") || StartsWith(name_a, "compat_SyS"));
}

struct SymbolTable::Lazy {
  struct Free {
    void operator()(const Symbol** p) const { std::free(p); }
  };
  explicit Lazy(std::shared_ptr<const LazySymbols> src, uint64_t d = 0) : source(std::move(src)), shift(d) {
    // calloc: a large zeroed block comes as fresh zero pages, of which only the hit
    // entries' pages are ever written.
    slots.reset(static_cast<const Symbol**>(std::calloc(std::max<size_t>(source->size(), 1), sizeof(Symbol*))));
    if (!slots) throw std::bad_alloc();
  }
  std::shared_ptr<const LazySymbols> source;
  uint64_t shift = 0;                      // added to every start and end (Shift)
  std::unique_ptr<const Symbol*[], Free> slots;  // entry i's made Symbol; atomic_ref access
  std::deque<Symbol> made;                 // guarded by demangle_mutex_; never moves
  std::vector<Symbol> all;                 // symbols(), made once under demangle_mutex_
  std::atomic<bool> all_made{false};
};

SymbolTable::SymbolTable() = default;
SymbolTable::~SymbolTable() = default;
SymbolTable::SymbolTable(SymbolTable&& other) noexcept { *this = std::move(other); }

SymbolTable::SymbolTable(const SymbolTable& other) { *this = other; }

SymbolTable& SymbolTable::operator=(SymbolTable&& other) noexcept {
  if (this == &other) return *this;
  lazy_ = std::move(other.lazy_);
  symbols_ = std::move(other.symbols_);
  arena_ = std::move(other.arena_);
  arena_next_ = std::exchange(other.arena_next_, nullptr);
  arena_left_ = std::exchange(other.arena_left_, 0);
  name_owner_ = std::move(other.name_owner_);
  demangle_params_ = other.demangle_params_;
  other.symbols_.clear();
  other.arena_.clear();
  return *this;
}

SymbolTable& SymbolTable::operator=(const SymbolTable& other) {
  if (this == &other) return *this;
  symbols_.clear();
  arena_.clear();
  arena_next_ = nullptr;
  arena_left_ = 0;
  name_owner_.reset();
  demangle_params_ = other.demangle_params_;
  lazy_.reset();
  if (other.lazy_) {
    lazy_ = std::make_unique<Lazy>(other.lazy_->source, other.lazy_->shift);
    return *this;
  }
  symbols_.reserve(other.symbols_.size());
  for (const Symbol& s : other.symbols_) {
    Symbol copy = s;
    copy.name = Store(s.name);
    symbols_.push_back(copy);
  }
  return *this;
}

std::string_view SymbolTable::Store(std::string_view s) {
  constexpr size_t kChunk = 64 * 1024;
  if (s.empty()) return {};
  // Names are only printed (and matched against --symbols as printed): escape once here.
  std::string escaped;
  if (HasControlChars(s)) [[unlikely]] {
    escaped = EscapeControl(s);
    s = escaped;
  }
  if (s.size() > arena_left_) {
    const size_t size = std::max(kChunk, s.size());
    arena_.push_back(std::make_unique_for_overwrite<char[]>(size));
    arena_next_ = arena_.back().get();
    arena_left_ = size;
  }
  char* dst = arena_next_;
  std::copy(s.begin(), s.end(), dst);
  arena_next_ += s.size();
  arena_left_ -= s.size();
  return {dst, s.size()};
}

void SymbolTable::Add(uint64_t start, uint64_t size, std::string_view name, uint8_t binding, uint8_t type) {
  MakeEager();
  Symbol s;
  s.start = start;
  s.end = start + size < start ? UINT64_MAX : start + size;
  s.name = Store(name);
  s.binding = binding;
  s.type = type;
  symbols_.push_back(s);
}

void SymbolTable::AddMangled(uint64_t start, uint64_t size, std::string_view mangled, uint8_t binding, uint8_t type) {
  Add(start, size, mangled, binding, type);
  symbols_.back().demangle_pending = 1;
}

void SymbolTable::AddMangledPlt(uint64_t start, uint64_t size, std::string_view mangled) {
  Add(start, size, std::string(mangled) + "@plt", kStbGlobal, kSttFunc);
  symbols_.back().demangle_pending = Symbol::kPendingPlt;
}

void SymbolTable::DemanglePending(const Symbol* s) const {
  std::lock_guard lock(demangle_mutex_);
  Symbol& sym = const_cast<Symbol&>(*s);  // the table owns it; only this function writes after Finish
  if (!sym.demangle_pending) return;  // another thread was first
  constexpr std::string_view kPlt = "@plt";
  const bool plt = sym.demangle_pending == Symbol::kPendingPlt;
  std::string demangled =
      DemangleLikePerf(plt ? sym.name.substr(0, sym.name.size() - kPlt.size()) : sym.name, demangle_params_);
  if (!demangled.empty() && plt) demangled += kPlt;
  if (!demangled.empty()) sym.name = const_cast<SymbolTable*>(this)->Store(demangled);
  std::atomic_ref<uint8_t>(sym.demangle_pending).store(0, std::memory_order_release);
}

void SymbolTable::Finish() {
  if (lazy_ || symbols_.empty()) return;
  // Stable: among equal starts the earlier Add comes first, like perf's rb-tree insert.
  // Tables often arrive sorted (kallsyms, a second Finish): then there is nothing to do.
  auto by_start = [](const Symbol& a, const Symbol& b) { return a.start < b.start; };
  // A second Finish sees the first one's sorted symbols and the ones added since (perf's
  // .dynsym after .symtab, the PLT entries): sorting the new ones and merging keeps the
  // order stable_sort would give, for a fraction of its moves.
  const auto sorted_end = std::is_sorted_until(symbols_.begin(), symbols_.end(), by_start);
  if (sorted_end != symbols_.end()) {
    std::stable_sort(sorted_end, symbols_.end(), by_start);
    std::inplace_merge(symbols_.begin(), sorted_end, symbols_.end(), by_start);
  }
  // symbols__fixup_end: a zero-size symbol reaches the next start; the last one gets
  // the rest of its page plus one page.
  for (size_t i = 0; i + 1 < symbols_.size(); ++i) {
    if (symbols_[i].end == symbols_[i].start) symbols_[i].end = symbols_[i + 1].start;
  }
  Symbol& last = symbols_.back();
  if (last.end == last.start) {
    uint64_t rounded = (last.start + kPage - 1) / kPage * kPage;
    last.end = rounded + kPage < rounded ? UINT64_MAX : rounded + kPage;
  }
  // symbols__fixup_duplicate: one symbol per start, perf's choice; in place (a second
  // vector was another 5 MB of fresh pages for kallsyms).
  size_t kept = 0;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    if (kept > 0 && symbols_[kept - 1].start == symbols_[i].start) {
      Symbol& a = symbols_[kept - 1];
      Symbol& b = symbols_[i];
      // perf compares demangled names, but only when sizes and bindings tie, and two
      // equal names compare alike either way (.symtab and .dynsym list most twice).
      if ((a.demangle_pending || b.demangle_pending) && NamesDecide(a, b) && a.name != b.name &&
          !(a.demangle_pending && b.demangle_pending && CtorDtorVariants(a.name, b.name))) {
        if (a.demangle_pending) DemanglePending(&a);
        if (b.demangle_pending) DemanglePending(&b);
      }
      if (!PreferFirst(a, b)) a = b;
      continue;
    }
    if (kept != i) symbols_[kept] = symbols_[i];
    ++kept;
  }
  symbols_.resize(kept);
  for (size_t i = 0; i < symbols_.size(); ++i) symbols_[i].index = static_cast<uint32_t>(i);
}

void SymbolTable::Adopt(std::vector<Symbol> symbols, std::shared_ptr<const void> name_owner) {
  lazy_.reset();
  symbols_ = std::move(symbols);
  name_owner_ = std::move(name_owner);
}

void SymbolTable::AdoptLazy(std::shared_ptr<const LazySymbols> source) {
  symbols_.clear();
  arena_.clear();
  arena_next_ = nullptr;
  arena_left_ = 0;
  name_owner_.reset();
  lazy_ = std::make_unique<Lazy>(std::move(source));
}

void SymbolTable::MakeEager() {
  if (!lazy_) return;
  const LazySymbols& src = *lazy_->source;
  std::vector<Symbol> all;
  all.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) all.push_back(MakeLazy(i));
  name_owner_ = lazy_->source;  // the names point into memory the source keeps
  lazy_.reset();
  symbols_ = std::move(all);
  Finish();  // changes nothing: the entries are sorted, fixed up and indexed
}

Symbol SymbolTable::MakeLazy(size_t i) const {
  const LazySymbols& src = *lazy_->source;
  Symbol s = src.Make(i);
  s.start = src.start(i) + lazy_->shift;
  s.end = src.end(i) + lazy_->shift;
  s.index = static_cast<uint32_t>(i);
  return s;
}

size_t SymbolTable::size() const { return lazy_ ? lazy_->source->size() : symbols_.size(); }

const std::vector<Symbol>& SymbolTable::symbols() const {
  if (!lazy_) return symbols_;
  if (!lazy_->all_made.load(std::memory_order_acquire)) {
    std::lock_guard lock(demangle_mutex_);
    if (!lazy_->all_made.load(std::memory_order_relaxed)) {
      const LazySymbols& src = *lazy_->source;
      lazy_->all.reserve(src.size());
      for (size_t i = 0; i < src.size(); ++i) lazy_->all.push_back(MakeLazy(i));
      lazy_->all_made.store(true, std::memory_order_release);
    }
  }
  return lazy_->all;
}

bool SymbolTable::Shift(int64_t delta) {
  const uint64_t d = static_cast<uint64_t>(delta);
  if (lazy_) {
    // As the loop below: the largest end (delta >= 0) or the smallest start (< 0) wraps
    // first, as adding d is monotonic until it wraps.
    const LazySymbols& src = *lazy_->source;
    if (src.size() == 0 || d == 0) return true;
    const uint64_t max_end = src.max_end() + lazy_->shift, min_start = src.start(0) + lazy_->shift;
    const bool wraps = delta >= 0 ? max_end + d < max_end : min_start + d > min_start;
    if (wraps) return false;
    lazy_->shift += d;
    return true;
  }
  for (const Symbol& s : symbols_) {
    const bool wraps = delta >= 0 ? s.end + d < s.end : s.start + d > s.start;
    if (wraps) return false;
  }
  for (Symbol& s : symbols_) {
    s.start += d;
    s.end += d;
  }
  return true;
}

void SymbolTable::TruncateAt(uint64_t addr) {
  MakeEager();
  for (Symbol& s : symbols_) {
    if (s.start < addr && s.end > addr) s.end = addr;
  }
}

const Symbol* SymbolTable::FindLazy(uint64_t dso_addr) const {
  const LazySymbols& src = *lazy_->source;
  const uint64_t d = lazy_->shift;
  // The first entry that starts after dso_addr (upper_bound, as FindAddr).
  size_t lo = 0, hi = src.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (dso_addr < src.start(mid) + d) hi = mid;
    else lo = mid + 1;
  }
  if (lo == 0) return nullptr;
  const size_t i = lo - 1;
  const uint64_t start = src.start(i) + d, end = src.end(i) + d;
  if (!(dso_addr < end || (dso_addr == start && start == end))) return nullptr;
  std::atomic_ref<const Symbol*> slot(lazy_->slots[i]);
  if (const Symbol* made = slot.load(std::memory_order_acquire)) return made;
  std::lock_guard lock(demangle_mutex_);
  if (const Symbol* made = slot.load(std::memory_order_relaxed)) return made;
  const Symbol* made = &lazy_->made.emplace_back(MakeLazy(i));
  slot.store(made, std::memory_order_release);
  return made;
}

const Symbol* SymbolTable::FindAddr(uint64_t dso_addr) const {
  if (lazy_) return FindLazy(dso_addr);
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), dso_addr,
                             [](uint64_t a, const Symbol& s) { return a < s.start; });
  if (it == symbols_.begin()) return nullptr;
  --it;
  if (dso_addr < it->end || (dso_addr == it->start && it->start == it->end)) return &*it;
  return nullptr;
}

}  // namespace perflens
