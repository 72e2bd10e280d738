// SrcLines: the "srcline" and "srcfile" sort keys' values (perf's sort__srcline / map__srcline): the
// source line of a row's address, "file:line" with the file's base name (its whole
// path with full_path, perf's --full-source-path), from the DSO's DWARF line table
// (DsoModule::FindSourceLine: the innermost location, as addr2line without -i gives
// it). An address without a line in an ELF file of a user DSO is "??:0" (what perf's
// addr2line answers there); in a DSO without such a file (kernel, vdso, JIT maps) it
// prints as perf's get_srcline falls back: "sym+offset" (offset in bytes, decimal) when
// a symbol holds it, else "dso[vaddr]" (hex); outside every map "??:0".
//
// Rows with the same text are one row: each distinct text is interned once and
// numbered in first-seen order, so HistEntry::srcline_id identifies it within a
// session (sort_key.h's id contract). Addresses without a line stay apart by (dso,
// address), as their fallback texts differ.
//
// One per report, used from the thread that adds samples to the histograms; the lookups
// are cached per (dso, dso_addr).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

#include "report/hist_entry.h"
#include "symbolize/source_line.h"
#include "symbolize/symbolizer.h"

namespace perflens {

// The text perf's addr2line gives for `dso_addr` (Map::MapIp space) in `dso`:
// "file:line" (base name unless `full_path`), "??:0" where addr2line would find no line
// but name a function from the ELF symbols, or "" where perf falls back (no ELF file to
// run addr2line on: kernel, vdso, JIT maps; no function there, e.g. a PLT stub). `vaddr`, when not null, gets dso_addr
// as a dso_vaddr (the fallback's "dso[vaddr]").
std::string Addr2lineText(Symbolizer* symbolizer, const Dso& dso, uint64_t dso_addr, bool full_path,
                          uint64_t* vaddr = nullptr);

// perf's fallback without a line or a symbol name: "dso[vaddr]" (hex; the kernel's ip).
std::string DsoAddrText(Symbolizer* symbolizer, const Dso& dso, uint64_t dso_addr);

class SrcLines {
 public:
  // `inline_frames`: callchains carry inline frames (report --inline, perf's default).
  SrcLines(Symbolizer* symbolizer, bool full_path, bool inline_frames = true)
      : symbolizer_(symbolizer), full_path_(full_path), inline_frames_(inline_frames) {}

  // The text perf prints after a call-graph frame's name with the address key
  // (callchain_srcline, show_addr): the line at `dso_addr` (Map::MapIp space) — for a
  // frame of an inline expansion (`expanded`: the chain holds the entry's inline frames)
  // its own line (the innermost one's row, an outer one's call site of the next inner
  // call), else the innermost row as addr2line without -i gives it — "??:0" where addr2line finds none, and "+offset" (decimal bytes from
  // `sym`'s start) where perf has no file to run addr2line on (kernel, vdso) or no
  // function there (a PLT stub). nullptr without a dso or a symbol (perf prints the
  // bare ip). Interned: the pointer lives as long as this object. Cached per (sym,
  // dso_addr, expanded).
  const std::string* ChainText(const Dso* dso, uint64_t dso_addr, const Symbol* sym, bool expanded);

  // Sets e->srcline, srcline_id and srcline_vaddr from e->dso, e->sym and `dso_addr`,
  // the Map::MapIp address of the row's frame (a callchain row of an unresolved frame
  // keys by the raw ip: its key_addr is not this address).
  void Fill(HistEntry* e, uint64_t dso_addr);

  // Sets end->srcline and srcline_id: perf's map__srcline of a branch end (its
  // al_addr), printed as the srcline key prints a row ("file:line", "sym+offset",
  // "dso[vaddr]", "??:0" outside every map). Interned with the other texts.
  void FillBranchEnd(BranchEnd* end);

  // The column text of a row Fill has seen (perf's formats above).
  static void Print(const HistEntry& e, std::string* out);
  // The "srcfile" key's text: the file part of a line ("" without one, as perf's
  // no_srcfile).
  static void PrintFile(const HistEntry& e, std::string* out) {
    if (e.srcfile) out->append(*e.srcfile);
  }

 private:
  struct Cached {
    const std::string* text = nullptr;
    uint32_t id = 0;
    uint64_t vaddr = 0;
    const std::string* file = nullptr;
    uint32_t file_id = 0;
  };
  // `text`'s one copy and its number (file names and "file:line" texts share the table).
  std::pair<const std::string*, uint32_t> Intern(std::string text);
  struct KeyHash {
    size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
      return static_cast<size_t>(k.second * 0x9E3779B97F4A7C15ULL ^ k.first);
    }
  };
  struct ChainKey {
    const Symbol* sym;
    uint64_t dso_addr;
    bool expanded;
    bool operator==(const ChainKey&) const = default;
  };
  struct ChainKeyHash {
    size_t operator()(const ChainKey& k) const {
      return static_cast<size_t>(k.dso_addr * 0x9E3779B97F4A7C15ULL ^ reinterpret_cast<uintptr_t>(k.sym) ^ k.expanded);
    }
  };
  Symbolizer* symbolizer_;
  bool full_path_;
  bool inline_frames_;
  // (symbol, dso_addr, expanded) → ChainText; a symbol belongs to one dso.
  std::unordered_map<ChainKey, const std::string*, ChainKeyHash> chain_texts_;
  std::unordered_map<std::pair<uint32_t, uint64_t>, Cached, KeyHash> by_addr_;  // (dso id, dso_addr)
  std::unordered_map<std::string, uint32_t> ids_;
  std::deque<const std::string*> texts_;  // by id; the keys of ids_ (node-stable)
};

}  // namespace perflens
