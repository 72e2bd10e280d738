// A kallsyms file's parsed tables, saved once as a compact sorted index in perflens's
// cache and mapped by later runs instead of parsing the text again: a 121K-line,
// 5.4 MB kallsyms took most of a small recording's report (the parse and the 5 MB of
// fresh table pages). The tables made from an index are lazy (SymbolTable::AdoptLazy):
// a symbol is made when a sample first hits it; its name points into the mapped
// kallsyms text, as a parsed table's does.
//
// Layout (perflens's own, host byte order, version 1; all offsets in bytes from the
// start of the index file):
//   header (128 bytes): "PLKSYMIX", 0x01020304 (byte order), version, the key
//     (st_dev, st_ino, size, mtime ns and anchor symbol of the kallsyms file it was
//     made from), ref_addr, all_zero, nr_tables, nr_entries, names_size, file_size
//   tables[nr_tables] (32 bytes): first entry, count, name offset and length (in
//     names; table 0 is the kernel, unnamed; then the modules, "[xfs]", in name order)
//   entries[nr_entries] (24 bytes): start, end (as ParseKallsyms leaves them, no
//     KASLR shift), name offset (u32), name length (bits 0-23) | binding (24-26) |
//     type (27-30) | bit 31: the name is in `names` (an escaped copy), else in the text
//   names[names_size]: module names and escaped symbol names
// Every offset, count and name range is checked when an index is opened; entries must
// be sorted by start within their table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/mapped_file.h"
#include "base/result.h"
#include "symbolize/kallsyms.h"

namespace perflens {

// What an index was made from: the kallsyms file (stat's st_dev, st_ino, st_size,
// st_mtim in ns) and the KASLR anchor symbol (ParseKallsyms's ref_symbol).
struct KallsymsIndexKey {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
  std::string ref_symbol;
  bool operator==(const KallsymsIndexKey&) const = default;
};

// The key of `path`. Errors: it cannot be stat'ed ("PATH: strerror"), is not a regular
// file, or the anchor name is longer than 32 bytes.
Result<KallsymsIndexKey> KallsymsIndexKeyOf(const std::string& path, std::string_view ref_symbol);

// The same from a descriptor (fstat), e.g. the one a file was mapped from; `name` is
// the file's name in messages.
Result<KallsymsIndexKey> KallsymsIndexKeyOfFd(int fd, const std::string& name, std::string_view ref_symbol);

// Where the index for `key` lives: CACHE_DIR/kallsyms/<16 hex digits of a hash of the
// key>.idx (the header holds the key itself, checked on open).
std::string KallsymsIndexPath(const std::string& cache_dir, const KallsymsIndexKey& key);

// The index bytes of `tables`, ParseKallsyms(`text`, key.ref_symbol, delta 0) not
// shifted since. Errors: a name longer than 16 MiB or outside both the text and the
// escaped copies (tables not parsed from `text`), text over 4 GiB.
Result<std::string> SerializeKallsymsIndex(const KallsymsTables& tables, std::string_view text,
                                           const KallsymsIndexKey& key);

// Tables equal to the ParseKallsyms(text, key.ref_symbol, 0) the index was made from:
// the same symbols (start, end, name, binding, type, index) from Find, symbols() and
// size(), the same module keys, ref_addr and all_zero. They keep `index` and `text`
// alive. Errors (the index is not used; parse instead): bad magic, byte order or
// version ("kallsyms index: ..."), made from another key (a changed file), sizes that
// disagree with the file, a table, entry or name out of bounds, entries out of order.
Result<KallsymsTables> KallsymsTablesFromIndex(std::shared_ptr<const MappedFile> index,
                                               std::shared_ptr<const KallsymsText> text,
                                               const KallsymsIndexKey& key);

// KallsymsTablesFromIndex of the file at `path`, mapped. Errors: those, and the file's
// open/map errors.
Result<KallsymsTables> OpenKallsymsIndex(const std::string& path, std::shared_ptr<const KallsymsText> text,
                                         const KallsymsIndexKey& key);

// Writes `bytes` to `path` atomically (PATH.tmp.PID.N in its directory, renamed over it),
// creating the missing directories (mode 0700). First removes what earlier writers
// left in that directory: temporaries of processes that no longer run (killed while
// writing), and index files (*.idx) not modified for 30 days, or beyond the 16 newest
// (each distinct kallsyms file leaves one; a used index is rebuilt by one parse).
// Errors: "PATH: strerror" of the step that failed (nothing is left behind).
Status WriteKallsymsIndex(const std::string& path, std::string_view bytes);

}  // namespace perflens
