// SymbolTable: the sorted symbols of one DSO, in the address space the DSO's maps hand
// out through Map::MapIp ("dso_addr"): file_offset for user ELF DSOs and the vdso
// (st_value converted through the PT_LOAD that holds it), absolute addresses for the
// kernel, module_offset (address − module load base) for kernel modules, the ip for
// KSYMBOL and JIT maps. dso_module.h has the table per DsoKind.
// Names live in one arena owned by the table; Symbol::name views into it.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perflens {

struct Symbol {
  uint64_t start = 0;  // inclusive, in the table's address space
  uint64_t end = 0;    // exclusive; zero-size symbols are extended by Finish()
  std::string_view name;
  uint8_t binding = 0;  // STB_LOCAL/GLOBAL/WEAK (ELF), 1 for others
  uint8_t type = 0;     // STT_* (ELF), STT_FUNC for others
  // 1 for the symbol of an inlined function (DwarfIndex interns them outside any table;
  // perf prints them with " (inlined)"); 0 for table symbols.
  uint8_t inlined = 0;
  // Position in its table, set by SymbolTable::Finish(): with the table's Dso id it
  // identifies the symbol within a session independently of where it lives in memory
  // (report/sort_key.h). kNoIndex for a symbol outside any finished table.
  static constexpr uint32_t kNoIndex = UINT32_MAX;
  uint32_t index = kNoIndex;
  // Set while `name` is still the mangled form of a symbol added with AddMangled: the
  // table demangles it when Find first returns it (perf demangles every name at load;
  // most are never printed, and demangling them all was a third of a flat report).
  // kPendingPlt: added with AddMangledPlt, `name` is the mangled one then "@plt".
  // Read and cleared atomically (std::atomic_ref); readers go through Find.
  static constexpr uint8_t kPendingPlt = 2;
  uint8_t demangle_pending = 0;
};

// perf 6.1's choose_best_symbol for two symbols at one address (sizes in bytes, ELF
// STB_* bindings): true keeps `a`, the one inserted first. Shared by ELF and kallsyms.
bool ChooseFirstSymbol(uint64_t size_a, uint8_t binding_a, std::string_view name_a, uint64_t size_b,
                       uint8_t binding_b, std::string_view name_b);

// Symbols a table makes when first asked for instead of holding them all (a mapped
// kallsyms index, kallsyms_index.h): entries sorted by start, one per start, ends as
// Finish leaves them. Entry i's Symbol is made once, by Make(i) (start and end in the
// source's space, before any SymbolTable::Shift; index is set by the table).
// Implementations are immutable and safe to read from several threads.
class LazySymbols {
 public:
  virtual ~LazySymbols() = default;
  virtual size_t size() const = 0;
  virtual uint64_t start(size_t i) const = 0;
  virtual uint64_t end(size_t i) const = 0;
  virtual Symbol Make(size_t i) const = 0;
  // The largest end of all entries (0 when empty), for Shift's wrap check.
  virtual uint64_t max_end() const = 0;
};

class SymbolTable {
 public:
  SymbolTable();
  // Moves take the name chunks along (names stay put); the source is left empty.
  SymbolTable(SymbolTable&& other) noexcept;
  SymbolTable& operator=(SymbolTable&& other) noexcept;
  // Copies re-point every name into the copy's own arena.
  SymbolTable(const SymbolTable& other);
  SymbolTable& operator=(const SymbolTable& other);
  ~SymbolTable();

  // Replaces the contents with `source`'s symbols, made when Find first returns them
  // (a 120K-symbol kallsyms then costs what its hits cost, not a parse and 5 MB of
  // fresh pages). The table is finished; Find, Shift, size and symbols() work as for a
  // table holding the same symbols; Add, AddMangled and TruncateAt first make every
  // symbol (the table then holds them). Copies share the source.
  void AdoptLazy(std::shared_ptr<const LazySymbols> source);

  // Replaces the contents with `symbols`, whose names are not copied: they point into
  // memory `name_owner` keeps alive (kallsyms: the mapped text), and must already be
  // escaped as Add would store them. Call Finish afterwards. Copying the table copies
  // the names into the copy's arena; moving it takes the owner along.
  void Adopt(std::vector<Symbol> symbols, std::shared_ptr<const void> name_owner);
  // Adds a symbol; `size` may be 0. The name is copied into the arena.
  void Add(uint64_t start, uint64_t size, std::string_view name, uint8_t binding = 1, uint8_t type = 2);
  // Adds a symbol whose name is a mangled C++ or Rust name (MaybeMangled), demangled as perf prints it
  // (DemangleLikePerf: signature dropped; the raw name when demangling fails) when Find
  // first returns it, or when Finish must compare it with another at its address.
  void AddMangled(uint64_t start, uint64_t size, std::string_view mangled, uint8_t binding = 1, uint8_t type = 2);
  // AddMangled for a synthesized PLT entry: the name printed is `mangled` demangled as
  // AddMangled's, then "@plt" (the raw name then "@plt" when demangling fails).
  void AddMangledPlt(uint64_t start, uint64_t size, std::string_view mangled);
  // AddMangled names demangle with their parameters (DemangleWithParamsLikePerf, perf's
  // -v) instead. Set before Find or Finish first demangles one.
  void set_demangle_params(bool on) { demangle_params_ = on; }
  // Sorts, removes duplicates at one address keeping perf's choice
  // (symbols__fixup_duplicate), and extends zero-size symbols to the next start
  // (symbols__fixup_end), in perf's order (end fix-up first, so the last alias of a
  // zero-size group is the one that gets a size). May be called again after more Adds
  // (perf fixes .symtab, then again after adding .dynsym). Find needs it.
  void Finish();
  // Adds `delta` (mod 2^64) to every start and end, in place, when no start or end wraps
  // around (order and sizes are then kept, as if each had been added at start + delta);
  // false and nothing changed otherwise. After Finish, before any Find (a lazy table:
  // O(1), the shift applies to each symbol as it is made).
  bool Shift(int64_t delta);
  // Cuts every symbol that starts before `addr` and ends after it at `addr` (perf does
  // this to the symbol before .plt, which the end fix-up stretched over it).
  void TruncateAt(uint64_t addr);
  // The symbol covering `dso_addr` (the table's space), or nullptr; its name is the
  // demangled one. O(log n). Safe to call from several threads once Finish has run.
  const Symbol* Find(uint64_t dso_addr) const {
    const Symbol* s = FindAddr(dso_addr);
    if (s && std::atomic_ref<uint8_t>(const_cast<uint8_t&>(s->demangle_pending)).load(std::memory_order_acquire))
        [[unlikely]]
      DemanglePending(s);
    return s;
  }
  size_t size() const;
  bool empty() const { return size() == 0; }
  // Every symbol, in address order. Names of AddMangled symbols not yet returned by
  // Find are still mangled (demangle_pending set). A lazy table makes them all on the
  // first call (equal to, but not the same objects as, those Find returns).
  const std::vector<Symbol>& symbols() const;

 private:
  struct Lazy;
  const Symbol* FindAddr(uint64_t dso_addr) const;
  const Symbol* FindLazy(uint64_t dso_addr) const;
  // Entry i of the lazy source as this table holds it: shifted, indexed.
  Symbol MakeLazy(size_t i) const;
  void MakeEager();
  void DemanglePending(const Symbol* s) const;
  std::string_view Store(std::string_view s);
  std::vector<Symbol> symbols_;
  // Names, packed into chunks that never move (a string per name cost a malloc each:
  // 120K of them for kallsyms).
  std::vector<std::unique_ptr<char[]>> arena_;
  char* arena_next_ = nullptr;  // free space at the end of the last chunk
  size_t arena_left_ = 0;
  std::shared_ptr<const void> name_owner_;  // Adopt's borrowed names
  bool demangle_params_ = false;
  std::unique_ptr<Lazy> lazy_;  // set by AdoptLazy
  // Guards demangling and lazy symbol making after Finish (the name, the flag's clearing, arena growth); never
  // copied or moved with the table.
  mutable std::mutex demangle_mutex_;
};

}  // namespace perflens
