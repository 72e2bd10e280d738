// Where a DSO's binary or debug file is looked for: an ordered list of candidate kinds
// (data, not ifs), after perf's binary_type_symtab[] (spec B5.2).
#pragma once

#include <string>
#include <vector>

#include "base/build_id.h"

namespace perflens {

// Declared in perf's order (binary_type_symtab[]); DebugFileCandidates keeps it.
enum class CandidateKind {
  kDebuglink,              // .gnu_debuglink next to the binary, in .debug/, /usr/lib/debug
  kBuildIdCache,           // <buildid_dir>/.build-id/xx/yyyy/elf (or /vdso, /kallsyms), and
                           // <buildid_dir>/<long_name>/<bid>/elf
  kBuildIdCacheDebug,      // <buildid_dir>/.build-id/xx/yyyy/debug
  kFedoraDebuginfo,        // /usr/lib/debug<path>.debug
  kUbuntuDebuginfo,        // /usr/lib/debug<path>
  kBuildIdDebuginfo,       // /usr/lib/debug/.build-id/xx/yyyy.debug
  kSystemPath,             // <path> itself
  kOpenEmbeddedDebuginfo,  // <dir>/.debug/<file>
  kMixedupUbuntuDebuginfo, // /usr/lib/debug<path without /usr>
};

const char* CandidateKindName(CandidateKind kind);

struct Candidate {
  CandidateKind kind;
  std::string path;  // already prefixed with --symfs
};

struct FinderOptions {
  std::string symfs;        // --symfs root, "" for none
  std::string buildid_dir;  // ~/.debug, PERF_BUILDID_DIR or --buildid-dir
  // Basename inside a build-id cache entry: "elf" for files, "vdso" for [vdso*].
  std::string cache_basename = "elf";
};

// The candidate paths for a DSO recorded as `long_name` with `build_id` (may be empty),
// in the order perf tries them. `debuglink` is the .gnu_debuglink name read from the
// binary (empty if unknown). Paths are not checked for existence here. With --symfs,
// data-supplied paths never escape the symfs root ("..", absolute symlinks).
std::vector<Candidate> DebugFileCandidates(const std::string& long_name, const BuildId& build_id,
                                           const std::string& debuglink, const FinderOptions& options);

// The default build-id cache directory: $PERF_BUILDID_DIR, else $HOME/.debug.
std::string DefaultBuildIdDir();

}  // namespace perflens
