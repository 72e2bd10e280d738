// Symbolizer: the facade that gives a Dso its symbols, lazily, once per Dso (LLVM
// Symbolize's shape): ELF files through the candidate list with the build-id gate, the
// kernel through kallsyms (KASLR-relocated with the recorded anchor), JIT maps through
// /tmp/perf-PID.map, KSYMBOL symbols from the data, and the vdso as vdso.h describes.
// Each load failure is recorded once per Dso and summarized, never reported per sample.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/dso.h"
#include "model/machine.h"
#include "symbolize/symbol_table.h"

namespace perflens {

struct SymbolizeOptions {
  std::string symfs;        // --symfs
  std::string buildid_dir;  // --buildid-dir; "" → DefaultBuildIdDir()
  std::string kallsyms;     // --kallsyms FILE
  std::string vmlinux;      // --vmlinux FILE
  std::string vdso_image;   // --vdso FILE
  bool demangle = true;
  // Recording's kernel release and arch (HEADER_OSRELEASE/ARCH) for the kernel and the
  // "no recorded vdso build-id" rule.
  std::string recorded_osrelease;
  std::string recorded_arch;
};

enum class LoadStatus {
  kNotLoaded,
  kLoaded,            // symbols found (possibly zero of them)
  kNotFound,          // no candidate file exists
  kBuildIdMismatch,   // candidates exist but none has the recorded build-id
  kNoSymbols,         // found, but without .symtab/.dynsym
  kError,             // malformed file etc.
};

struct DsoLoadInfo {
  LoadStatus status = LoadStatus::kNotLoaded;
  std::string path;     // file the symbols came from
  std::string message;  // why not, naming the build-id needed and the places looked in
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

  // The symbol covering `addr` (the Map::MapIp of the sample ip) in `dso`, loading the
  // DSO's symbols on first use. nullptr when the DSO has no symbol there.
  const Symbol* Find(const Dso& dso, uint64_t addr);
  // The load outcome for `dso` (loads it if needed).
  const DsoLoadInfo& Info(const Dso& dso);
  // One line per problem class for the end-of-report summary (e.g. "[vdso]: build-id
  // 1a2b.. not found in ~/.debug/[vdso]/1a2b../vdso; local vdso has 3c4d..").
  std::vector<std::string> Problems() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflens
