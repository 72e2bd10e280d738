// Where a DSO's binary or debug file is looked for: ordered lists of sources (data, not
// ifs), after perf's binary_type_symtab[] (spec B5.2), expanded into candidate paths
// that the symbolizer walks in order with its build-id gate.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/build_id.h"

namespace perflens {

// One kind of place to look. The user-DSO kinds are declared in perf's order
// (binary_type_symtab[] in util/symbol.c, spec B5.2); the rest serve the vdso and the
// kernel's kallsyms.
enum class CandidateKind {
  kDebuglink,              // .gnu_debuglink next to the binary, in .debug/, /usr/lib/debug
  kBuildIdCache,           // <buildid_dir>/.build-id/xx/yyyy/elf (or /vdso), and
                           // <buildid_dir>/<long_name>/<bid>/elf
  kBuildIdCacheDebug,      // <buildid_dir>/.build-id/xx/yyyy/debug
  kFedoraDebuginfo,        // /usr/lib/debug<path>.debug
  kUbuntuDebuginfo,        // /usr/lib/debug<path>
  kBuildIdDebuginfo,       // /usr/lib/debug/.build-id/xx/yyyy.debug
  kSystemPath,             // <path> itself
  kOpenEmbeddedDebuginfo,  // <dir>/.debug/<file>
  kMixedupUbuntuDebuginfo, // /usr/lib/debug<path without /usr>
  kUserFile,               // a file the user named (--vdso FILE, --kallsyms FILE)
  kKallsymsCacheEntry,     // <buildid_dir>/[kernel.kallsyms]/<bid>/kallsyms
  kKallsymsBuildIdLink,    // <buildid_dir>/.build-id/xx/yyyy/kallsyms
  kKallsymsCacheOld,       // <buildid_dir>/[kernel.kallsyms]/<bid> (old cache layout)
  kLocalImage,             // this machine's own copy: the local vdso, /proc/kallsyms
  // Remote: fetched by build-id from the debuginfod servers (debuginfod_fetcher.h) into
  // their client cache, last of all and only with FinderOptions::debuginfod. The
  // candidate's path is a description ("debuginfod executable <bid>"), not a file: the
  // Symbolizer fetches it when the walk reaches the row and checks the fetched file
  // like any other.
  kDebuginfodExecutable,   // the binary (debuginfod_find_executable)
  kDebuginfodDebuginfo,    // its debug file (debuginfod_find_debuginfo)
};

const char* CandidateKindName(CandidateKind kind);

// perf's dso__symtab_origin (util/dso.c) letter for symbols read from a candidate of
// `kind`: 'l' debuglink, 'B' build-id cache, 'D' its debug file, 'f' Fedora, 'u' Ubuntu,
// 'x' mixed-up Ubuntu, 'o' OpenEmbedded, 'b' /usr/lib/debug/.build-id, 'd' the system
// path; 'k' for every kallsyms source. perflens's own sources get the letter of what
// perf would have read: debuginfod's executable 'B' and debug file 'D' (perf keeps what
// it fetches in its build-id cache), the vdso's --vdso FILE and this machine's vdso 'd'
// (perf reads that from a file at a path). `kernel`: the candidate was for kallsyms.
char SymtabOrigin(CandidateKind kind, bool kernel);
// True for the kDebuginfod* kinds, whose path must be fetched before it is opened.
bool IsRemoteCandidate(CandidateKind kind);

struct Candidate {
  CandidateKind kind;
  std::string path;  // already prefixed with --symfs where the source says so
};

// A row of a source list: where to look and whether --symfs applies. The lists below
// are the policy; a new place (debuginfod) is a new kind and a row, not another if.
struct DebugSource {
  CandidateKind kind;
  bool symfs;  // prefixed with --symfs (the build-id cache and local copies never are)
};

// perf's binary_type_symtab[] for user ELF DSOs, in order, then debuginfod's
// executable and debug file (emitted only with FinderOptions::debuginfod and a
// build-id).
std::span<const DebugSource> ElfDebugSources();
// The binary at its recorded path only: where its debuglink and build-id are read.
std::span<const DebugSource> SystemPathSource();
// [vdso*] (spec C): --vdso FILE, the build-id cache (entry, debug), /usr/lib/debug
// .build-id (under --symfs), the local vdso (not under --symfs), then debuginfod's
// executable (as for ELF DSOs).
std::span<const DebugSource> VdsoDebugSources();
// The kernel without --kallsyms: the build-id cache (new, link, old layout), then
// /proc/kallsyms (DebugFileQuery::local_image, set only for the running kernel).
std::span<const DebugSource> KallsymsDebugSources();
// --kallsyms FILE: that file alone.
std::span<const DebugSource> UserFileSource();

struct FinderOptions {
  std::string symfs;        // --symfs root, "" for none
  std::string buildid_dir;  // ~/.debug, PERF_BUILDID_DIR or --buildid-dir
  // Basename inside a build-id cache entry: "elf" for files, "vdso" for [vdso*].
  std::string cache_basename = "elf";
  // Emit the kDebuginfod* rows (a debuginfod URL is known and the DSO has a recorded
  // build-id). Off: those rows give nothing.
  bool debuginfod = false;
};

// The DSO looked for. Empty fields make the sources that need them emit nothing.
struct DebugFileQuery {
  std::string long_name;    // as recorded: "/usr/lib/libc.so.6", "[vdso]"
  BuildId build_id;         // recorded, or read from the binary
  std::string debuglink;    // .gnu_debuglink file name read from the binary
  std::string user_file;    // kUserFile's path
  std::string local_image;  // kLocalImage's path ("/proc/self/fd/N", "/proc/kallsyms")
};

// The candidate paths of `sources` for `query`, in list order (each source may give
// several paths, or none). Paths are not checked for existence here. Only absolute
// long names get file-name sources; "[vdso]" etc. get build-id and explicit ones. With
// --symfs, data-supplied paths never escape the symfs root ("..", absolute symlinks),
// and kLocalImage rows give nothing (this machine's own vdso and kallsyms are not the
// symfs's); a long name whose ".." climbs above "/" gets no file-name candidates at all.
std::vector<Candidate> DebugFileCandidates(std::span<const DebugSource> sources, const DebugFileQuery& query,
                                           const FinderOptions& options);

// ElfDebugSources() for a DSO recorded as `long_name` with `build_id` (may be empty)
// and the binary's `debuglink` (empty if unknown).
std::vector<Candidate> DebugFileCandidates(const std::string& long_name, const BuildId& build_id,
                                           const std::string& debuglink, const FinderOptions& options);

// Where a build-id cache holds the files of one DSO, as perf's build-id cache (and
// `perflens archive`) lays it out and as the kBuildIdCache / kKallsyms* sources above
// read it. Paths are relative to the cache directory, without "." or ".." parts:
//   entry_dir    "<long_name without its leading '/'>/<bid>" for a file
//                ("usr/lib/libc.so.6/1a2b…"), "<long_name>/<bid>" for a bracketed name
//                ("[vdso]/fee1…", "[kernel.kallsyms]/c0ff…"); the DSO's files go in it
//                as "elf", "debug", "vdso" or "kallsyms".
//   link         ".build-id/1a/2b…": a symlink to the entry directory,
//   link_target  "../../usr/lib/libc.so.6/1a2b…" (relative, so it stays in the cache).
// nullopt for names that cannot be stored safely: an empty build-id, a long name
// that is neither absolute nor a single bracketed/plain component, one whose ".." climbs
// above "/", that normalizes to "/" or whose first component is ".build-id".
struct BuildIdCacheEntry {
  std::string entry_dir;
  std::string link;
  std::string link_target;
};
std::optional<BuildIdCacheEntry> BuildIdCacheEntryFor(const std::string& long_name, const BuildId& build_id);

// The default build-id cache directory: $PERF_BUILDID_DIR, else $HOME/.debug.
std::string DefaultBuildIdDir();

// Where a recorded absolute path is read: `path` itself without --symfs (`symfs` empty),
// else symfs + the lexically normalized path, nullopt when ".." would climb out of the
// root or symlinks lead out of the symfs. "/tmp/jit-7.dump" under "/sysroot" →
// "/sysroot/tmp/jit-7.dump".
std::optional<std::string> PathUnderSymfs(const std::string& symfs, std::string_view path);

}  // namespace perflens
