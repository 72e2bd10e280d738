// Symbolizer: the facade that builds one DsoModule per Dso, lazily, once (LLVM
// Symbolize's shape): ELF files through the debug-file sources (debug_file_finder.h)
// with the build-id gate, the kernel through kallsyms (KASLR-relocated with the
// recorded anchor) or --vmlinux, JIT maps through /tmp/perf-PID.map, KSYMBOL symbols
// from the data, and the vdso as vdso.h describes. Each load failure is recorded once
// per Dso and summarized, never reported per sample.
//
// The address `Find` and the module take is dso_addr = Map::MapIp(ip), whose space
// depends on the DsoKind (dso_module.h has the table): file_offset for kUser and kVdso*, the absolute
// address for kKernel, module_offset (ip - (map start - pgoff)) for kKernelModule, the
// ip for kJitMap and kKsymbol. Example: libfoo.so mapped at start 0x7f3a00001000 pgoff
// 0x1000, ip 0x7f3a00001548 → Find(libfoo, file_offset 0x1548).
//
// Threads: Module/Find/Info may be called from several threads at once. A module is
// built under a per-Dso once (two threads asking for one Dso wait for one load; loads
// of different Dsos may run side by side), then published; lookups on a published
// module take no lock. Loading reads the Machine (kernel maps, KASLR anchor) and the
// Dso (build-id, KSYMBOL symbols): the caller must not change those while another
// thread may load. PrefetchKernelSymbols belongs to set-up, before concurrent use.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/dso.h"
#include "symbolize/debuginfod_fetcher.h"
#include "model/machine.h"
#include "symbolize/dso_module.h"
#include "symbolize/symbol_table.h"

namespace perflens {

struct SymbolizeOptions {
  std::string symfs;        // --symfs
  std::string buildid_dir;  // --buildid-dir; "" → DefaultBuildIdDir()
  std::string kallsyms;     // --kallsyms FILE
  std::string vmlinux;      // --vmlinux FILE
  std::string vdso_image;   // --vdso FILE
  bool demangle = true;
  // C++ names with their parameters, as perf's -v demangles them (DMGL_PARAMS).
  bool demangle_params = false;
  // Recording's kernel release and arch (HEADER_OSRELEASE/ARCH) for the kernel and the
  // "no recorded vdso build-id" rule.
  std::string recorded_osrelease;
  std::string recorded_arch;
  // Open each user module's line tables and inline scopes (DsoModule::dwarf_index) on a
  // helper thread as soon as the module is built, for callers that will ask for the
  // inline frames of most modules they load (DWARF-unwound chains): inflating a
  // distribution debug file (~0.1 s for libc's) then overlaps the caller's other work.
  bool prefetch_line_info = false;
  // debuginfod (debuginfod_fetcher.h): the server URLs in effect, space-separated as in
  // DEBUGINFOD_URLS, which cli/ has set in the environment to this value (libdebuginfod
  // reads nothing else). "" (no --debuginfod, DEBUGINFOD_URLS unset or empty): nothing
  // is fetched and libdebuginfod is never called. Otherwise a DSO with a recorded
  // build-id that no local source resolves (or whose local binary has no .symtab) gets
  // its executable and debug file fetched, once per build-id, into debuginfod's client
  // cache; the fetched file passes the same build-id gate as local ones. A symbols file
  // without DWARF gets the debug file when line info is first asked for. Problems()
  // ends with one summary line of what was fetched.
  std::string debuginfod_urls;
  DebuginfodProgressFn debuginfod_progress;  // may be empty: no progress reports
  // perflens's own cache (cli/: $PERFLENS_CACHE_DIR, else $XDG_CACHE_HOME/perflens or
  // ~/.cache/perflens); "" uses none. A kallsyms file read from disk is parsed once and
  // its tables kept there as an index (kallsyms_index.h) that later runs map instead.
  std::string cache_dir;
};

class Symbolizer {
 public:
  Symbolizer(SymbolizeOptions options, const Machine* machine);
  ~Symbolizer();

  // Starts looking up and parsing the kernel's kallsyms on a helper thread (for the
  // kernel build-id the machine knows now, usually from the header's build-id table),
  // so that it is ready when the first kernel sample needs it. Without effect when
  // --vmlinux is given or the kernel was already loaded; a prefetch for another
  // build-id or anchor than the one finally needed is discarded.
  void PrefetchKernelSymbols();
  // True while that prefetch is still running: Find on the kernel Dso would wait for
  // it. Callers that can resolve kernel symbols later (Report) keep going instead.
  bool KernelSymbolsPending() const;

  // The module of `dso`, built on first use; never nullptr (a module that failed to
  // load has info().status != kLoaded and answers nothing). Valid as long as the
  // Symbolizer. Once built, this is two atomic loads.
  const DsoModule* Module(const Dso& dso);
  // The symbol covering `dso_addr` in `dso` (the Map::MapIp space of its kind, see
  // above), loading the module on first use; nullptr when the DSO has no symbol there
  // or failed to load (Info says why). The report's hot path: once loaded, no lock
  // and no allocation.
  const Symbol* Find(const Dso& dso, uint64_t dso_addr) { return Module(dso)->FindSymbol(dso_addr); }
  // The load outcome for `dso` (loads it if needed).
  const DsoLoadInfo& Info(const Dso& dso) { return Module(dso)->info(); }
  // The module of `dso` if it was already built, else nullptr (never loads).
  const DsoModule* FindLoaded(const Dso& dso) const;
  // One line per problem class for the end-of-report summary, sorted by class: the
  // reason ("no file", "build-id mismatch", "stripped", "foreign kernel", "unidentified
  // kernel", "vdso image unavailable", ...), the DSOs (the first four) and the first
  // one's message, e.g. "build-id mismatch (2 DSOs: /bin/ls, /bin/cat), e.g. /bin/ls:
  // no file with build-id 62db.. (/bin/ls has 15df..)"; a class of one DSO is its
  // message. Notes that lose nothing (malformed JIT map lines, an unverified vdso) are
  // lines too.
  // Then debuginfod's summary line when it was asked for anything ("debuginfod:
  // fetched 1 file (21 KB) from http://…; 2 build-ids not found"). Safe beside loads
  // on other threads (a snapshot).
  std::vector<std::string> Problems() const;
  // After Problems(): what would resolve the DSOs it lists as missing (perflens archive
  // on the recording machine, debuginfod, --symfs; debug files for stripped ones), one
  // line each, none when nothing is missing.
  std::vector<std::string> FixHints() const;
  // One line for the DSOs whose line info was asked for (DsoModule::dwarf_index, through
  // FramesAt/FindSourceLine) and is missing, for a srcline or inline report to print
  // once at the end: "2 DSOs without line info (srclines print as ??:0): libc.so.6:
  // no DWARF (...); ...", and one for the DSOs whose DWARF was partly unreadable and
  // skipped (DsoModule::line_info_problem): "1 DSO with unreadable DWARF skipped
  // (srclines there print as ??:0): prog: compile unit at 0xb: line table unreadable
  // (...)". Empty when there is none. Safe beside loads (a snapshot).
  std::vector<std::string> LineInfoProblems() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflens
