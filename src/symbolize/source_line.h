// SourceLine: one source location (file, line, column) read from DWARF, and perf's text
// for it. The file is the path the line table names, joined with its include directory
// and the CU's DW_AT_comp_dir the way libdw (and binutils addr2line) join them:
// "/tmp/inl/prog.cc", "/usr/include/c++/12/bits/invoke.h". The text lives in the
// DwarfIndex that produced it (as long as its DsoModule).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perflens {

struct SourceLine {
  std::string_view file;  // "" when unknown
  uint32_t line = 0;      // 1-based; 0 when unknown or compiler-generated (DWARF line 0)
  uint32_t column = 0;    // 1-based; 0 when the producer gave none
  bool known() const { return !file.empty(); }
};

// perf 6.1's srcline text (srcline_from_fileline): "prog.cc:9", with the whole path
// when `full_path` (--full-source-path), "??:0" for an unknown location. Line 0 prints
// as "prog.cc:0", as perf does with addr2line's "prog.cc:?".
std::string FormatSrcline(const SourceLine& line, bool full_path);

}  // namespace perflens
