// report -v's columns (VerboseSortKey): the DSO's long name, and the Symbol column as
// perf 6.1's _hist_entry__sym_snprintf prints it with verbose > 0 ("%-#*llx %c " of the
// row's address and symtab origin, 18 wide, before "[.] name"), with perf's widths.
#include <string>

#include <gtest/gtest.h>

#include "report/sort_key.h"

namespace perflens {
namespace {

std::string Cell(const SortKey* key, const HistEntry& e) {
  std::string out;
  key->print(e, &out);
  return out;
}

TEST(VerboseSortKeyTest, SymbolColumnHasAddressAndOrigin) {
  const SortKey* sym = VerboseSortKey(FindSortKey("sym"));
  ASSERT_NE(sym, FindSortKey("sym"));
  EXPECT_EQ(sym->name, "sym");  // -F, elision and widths still find it by name
  Symbol s{0x1260, 0x12a0, "StatPaths"};
  HistEntry e;
  e.sym = &s;
  e.ip = 0x1270;
  e.symtab_origin = 'B';
  // From fixtures/syscalls/expected-perf-opt-verbose.txt.
  EXPECT_EQ(Cell(sym, e), "0x1270             B [.] StatPaths");
  // Kernel rows: the absolute address fills the 18 columns.
  Symbol k{0xffffffff82256400, 0xffffffff82256500, "rep_stos_alternative"};
  e.sym = &k;
  e.level = 'k';
  e.ip = 0xffffffff82256413;
  e.symtab_origin = 'k';
  EXPECT_EQ(Cell(sym, e), "0xffffffff82256413 k [k] rep_stos_alternative");
  // Unresolved: the address twice (perf's he->ip, then "%-#.*llx"); C's '#' gives a
  // zero no "0x".
  e.sym = nullptr;
  e.level = '.';
  e.ip = e.key_addr = 0xe3aa;
  e.symtab_origin = 'B';
  EXPECT_EQ(Cell(sym, e), "0xe3aa             B [.] 0x000000000000e3aa");
  e.ip = e.key_addr = 0;
  e.symtab_origin = '!';
  EXPECT_EQ(Cell(sym, e), "0                  ! [.] 0000000000000000");
}

TEST(VerboseSortKeyTest, WidthsArePerfs) {
  const SortKey* sym = VerboseSortKey(FindSortKey("sym"));
  ASSERT_NE(sym->col_len, nullptr);
  Symbol s{0x10, 0x20, "main"};
  HistEntry e;
  e.sym = &s;
  // hists__calc_col_len: namelen + 4 + BITS_PER_LONG / 4 + 2 + 3.
  EXPECT_EQ(sym->col_len(e), 4u + 4u + 21u);
  // Unresolved rows keep the 22 of a raw address: perf does not widen for them.
  e.sym = nullptr;
  EXPECT_EQ(sym->col_len(e), 22u);
}

TEST(VerboseSortKeyTest, DsoColumnIsTheLongNameAndOrdersByIt) {
  const SortKey* dso = VerboseSortKey(FindSortKey("dso"));
  ASSERT_NE(dso, FindSortKey("dso"));
  Dso libc(1, "/usr/lib/x86_64-linux-gnu/libc.so.6", DsoKind::kUser);
  libc.set_short_name("libc.so.6");
  Dso kernel(2, "[kernel.kallsyms]", DsoKind::kKernel);
  kernel.set_short_name("[kernel.kallsyms]");
  HistEntry a, b, none;
  a.dso = &libc;
  b.dso = &kernel;
  EXPECT_EQ(Cell(dso, a), "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(Cell(dso, b), "[kernel.kallsyms]");
  EXPECT_EQ(Cell(dso, none), "[unknown]");
  // perf's _sort__dso_cmp on long names: "/usr/…" before "[kernel.kallsyms]", where the
  // short names order the other way.
  EXPECT_LT(dso->order(a, b), 0);
  EXPECT_GT(FindSortKey("dso")->order(a, b), 0);
}

TEST(VerboseSortKeyTest, OtherKeysAreUnchanged) {
  for (const char* name : {"comm", "pid", "cpu", "srcline", "parent"})
    EXPECT_EQ(VerboseSortKey(FindSortKey(name)), FindSortKey(name)) << name;
  for (const char* name : {"dso_from", "dso_to", "symbol_from", "symbol_to"})
    EXPECT_NE(VerboseSortKey(FindSortKey(name)), FindSortKey(name)) << name;
}

}  // namespace
}  // namespace perflens
