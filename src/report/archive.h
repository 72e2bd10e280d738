// Archive: `perflens archive`, perf archive's job made portable. Reads the recording
// with a session (every sample's ip and, for evsels with callchains, every callchain
// frame, user and kernel, DWARF-unwound ones included), and for each DSO that a sample
// or frame hit takes the files the Symbolizer actually loaded for it (build-id gated
// there): the runtime ELF image, the separate debug file it found, the vdso image,
// and for the kernel (and kernel modules) the recording machine's kallsyms. They are
// written as a build-id cache (perf's layout, the one debug_file_finder.h reads):
//
//   DIR/<long name>/<build-id>/elf     the binary       (DIR/usr/lib/libc.so.6/1a2b…/elf)
//   DIR/<long name>/<build-id>/debug   its debug file, when the symbols came from one
//   DIR/[vdso]/<build-id>/vdso         the vdso image
//   DIR/[kernel.kallsyms]/<build-id>/kallsyms
//   DIR/.build-id/1a/2b… -> ../../usr/lib/libc.so.6/1a2b…   (one link per entry)
//
// so that `perflens report -i perf.data --buildid-dir DIR` on another machine gives the
// same report. What is not archived is listed with the reason: DSOs without a recorded
// build-id (nothing to key them by), files not found now, JIT maps (perflens reads
// /tmp/perf-PID.map only at that path, never from a build-id cache), a kernel whose
// symbols came from --vmlinux.
//
// Safety: names from perf.data are untrusted. Destination paths come from
// BuildIdCacheEntryFor (normalized, never ".."-escaping), and WriteTree creates every
// directory with mkdirat/openat(O_NOFOLLOW) from DIR's descriptor and every file with
// O_EXCL|O_NOFOLLOW, so no symlink (planted in a merged cache or named by the data)
// leads a write outside DIR. The links it creates are relative and stay inside DIR.
//
// Threads: Process runs the session (a reading thread beside the caller); the rest on
// the caller's thread. The Archive must outlive the writes (the local vdso image lives
// in the Symbolizer's memfd).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "perfdata/perf_file.h"
#include "session/session.h"
#include "symbolize/debug_file_finder.h"
#include "symbolize/symbolizer.h"

namespace perflens {

struct ArchiveOptions {
  // Where the recorded files are found now (--symfs, --buildid-dir, --kallsyms, --vdso).
  SymbolizeOptions symbolize;
  bool use_threads = true;
  SessionProgressFn progress;  // Session::Run's progress calls (SessionOptions::progress)
};

// One file to archive.
struct ArchiveFile {
  std::string dso;          // printable long name ("/usr/lib/libc.so.6", "[vdso]")
  std::string build_id;     // hex, as recorded
  std::string basename;     // "elf", "debug", "vdso" or "kallsyms"
  std::string source;       // the file the Symbolizer loaded ("/proc/kallsyms" too)
  BuildIdCacheEntry entry;  // where it goes, relative to the archive root
  std::string RelativePath() const { return entry.entry_dir + "/" + basename; }
};

// A DSO that samples hit and that is not archived.
struct ArchiveSkip {
  std::string dso;     // printable long name
  std::string reason;  // "no build-id recorded: …", the Symbolizer's load message, …
};

struct ArchivePlan {
  std::vector<ArchiveFile> files;    // first-hit order, one per (entry, basename)
  std::vector<ArchiveSkip> skipped;  // first-hit order
  size_t nr_dsos_hit = 0;            // distinct DSOs of samples and frames (no map: not counted)
  // Archived, but read back differently: "prog: its binary has .symtab: from the
  // archive, symbols and line info come from the binary, not from the debug file …".
  std::vector<std::string> notes;
};

// What writing one ArchiveFile did.
struct ArchiveWritten {
  uint64_t bytes = 0;            // the file's size in the archive
  bool already_present = false;  // WriteTree: DIR (a cache merged into) had it already
};

class Archive {
 public:
  ~Archive();
  // Sets up the session for `file` (not owned; must outlive the Archive).
  static Result<std::unique_ptr<Archive>> Create(PerfFile* file, const ArchiveOptions& options);
  // Reads the recording and builds the plan. Errors only when the file cannot be read.
  Status Process();
  const ArchivePlan& plan() const { return plan_; }
  const ReadStats& read_stats() const { return session_->read_stats(); }

  // Writes the plan's files and links under `dir`. `dir` is created when missing (its
  // parent must exist); an existing `dir` must be empty or already a build-id cache (it
  // has a .build-id directory), which is merged into: files present there are kept
  // (counted as already_present), links present are kept. Returns one entry per
  // plan().files. Errors: "DIR: …" (refused, or a write failed; a partly copied file
  // is removed), "SOURCE: …" (a source unreadable now).
  Result<std::vector<ArchiveWritten>> WriteTree(const std::string& dir) const;
  // Writes the same tree into one tar archive at `tar_path` (which must not exist),
  // members relative to the cache root (".build-id/…", "usr/lib/…"), so that
  // `tar xf FILE -C DIR` makes DIR the cache. A failed write removes the file.
  Result<std::vector<ArchiveWritten>> WriteTar(const std::string& tar_path) const;

 private:
  Archive() = default;
  PerfFile* file_ = nullptr;
  ArchiveOptions options_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<SampleConsumer> consumer_;
  ArchivePlan plan_;
};

// The summary `perflens archive` prints: each file with its size and source, the DSOs
// not archived and why, totals, and the command to use on the other machine.
// `destination` is DIR or the tarball; `input` the perf.data path as given.
std::string FormatArchiveSummary(const ArchivePlan& plan, const std::vector<ArchiveWritten>& written,
                                 const std::string& destination, bool tar, const std::string& input);

}  // namespace perflens
