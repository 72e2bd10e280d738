#include "symbolize/debug_file_finder.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

namespace perflens {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Lexically normalizes an absolute-or-relative path into "/a/b"; nullopt when ".."
// would climb above the root (data-supplied names must not escape --symfs or the cache).
std::optional<std::string> Normalize(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (std::string_view p : parts) {
    out += '/';
    out += p;
  }
  return out.empty() ? std::string("/") : out;
}

std::string StripTrailingSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// root + normalized path; nullopt if the path escapes root.
std::optional<std::string> Under(const std::string& root, std::string_view path) {
  auto n = Normalize(path);
  if (!n) return std::nullopt;
  if (root.empty()) return *n;
  return StripTrailingSlash(root) + (*n == "/" ? "" : *n);
}

// With --symfs, a path whose real location (symlinks resolved) leaves the symfs root.
bool EscapesSymfs(const std::string& symfs, const std::string& path) {
  if (symfs.empty()) return false;
  char root[PATH_MAX], real[PATH_MAX];
  if (!realpath(symfs.c_str(), root)) return false;
  if (!realpath(path.c_str(), real)) return false;  // missing: harmless, open fails later
  std::string r = root;
  if (r == "/") return false;
  return !(StartsWith(real, r) && (real[r.size()] == '/' || real[r.size()] == '\0'));
}

struct Inputs {
  bool is_path;                  // long_name is an absolute file name
  const std::string& long_name;  // normalized when is_path, else as recorded
  std::string dir;               // dirname of long_name
  std::string base;              // basename of long_name
  std::string bid;               // hex, "" if none
  const DebugFileQuery& query;
  const FinderOptions& options;
};

using Emit = void (*)(const Inputs& in, std::vector<std::string>* out);

void EmitDebuglink(const Inputs& in, std::vector<std::string>* out) {
  const std::string& dl = in.query.debuglink;
  // The debuglink is a file name; refuse anything with a directory part.
  if (!in.is_path || dl.empty() || dl.find('/') != std::string::npos || dl == "." || dl == "..") return;
  out->push_back(in.dir + "/" + dl);
  out->push_back(in.dir + "/.debug/" + dl);
  out->push_back("/usr/lib/debug" + in.dir + "/" + dl);
}

void EmitBuildIdCache(const Inputs& in, std::vector<std::string>* out) {
  if (in.bid.size() < 3 || in.options.buildid_dir.empty()) return;
  std::string dir = StripTrailingSlash(in.options.buildid_dir);
  std::string link = dir + "/.build-id/" + in.bid.substr(0, 2) + "/" + in.bid.substr(2);
  const std::string& basename = in.options.cache_basename;
  if (!in.is_path) {
    // Special DSOs: only the .build-id link and <dir>/<name>/<bid>/<basename>.
    out->push_back(link + "/" + basename);
    const std::string& n = in.long_name;
    if (n.find('/') == std::string::npos && n != "." && n != "..")
      out->push_back(dir + "/" + n + "/" + in.bid + "/" + basename);
    return;
  }
  out->push_back(link + "/" + basename);  // link to the entry's directory
  out->push_back(link);                   // old caches: link to the file
  // The entry itself: <dir>/<long_name>/<bid>/<basename>.
  if (auto p = Under(in.options.buildid_dir, in.long_name + "/" + in.bid + "/" + basename)) out->push_back(*p);
}

void EmitBuildIdCacheDebug(const Inputs& in, std::vector<std::string>* out) {
  if (in.bid.size() < 3 || in.options.buildid_dir.empty()) return;
  out->push_back(StripTrailingSlash(in.options.buildid_dir) + "/.build-id/" + in.bid.substr(0, 2) + "/" +
                 in.bid.substr(2) + "/debug");
}

void EmitFedora(const Inputs& in, std::vector<std::string>* out) {
  if (in.is_path) out->push_back("/usr/lib/debug" + in.long_name + ".debug");
}
void EmitUbuntu(const Inputs& in, std::vector<std::string>* out) {
  if (in.is_path) out->push_back("/usr/lib/debug" + in.long_name);
}
void EmitBuildIdDebuginfo(const Inputs& in, std::vector<std::string>* out) {
  if (in.bid.size() < 3) return;
  out->push_back("/usr/lib/debug/.build-id/" + in.bid.substr(0, 2) + "/" + in.bid.substr(2) + ".debug");
}
void EmitSystemPath(const Inputs& in, std::vector<std::string>* out) {
  if (in.is_path) out->push_back(in.long_name);
}
void EmitOpenEmbedded(const Inputs& in, std::vector<std::string>* out) {
  if (in.is_path) out->push_back(in.dir + "/.debug/" + in.base);
}
void EmitMixedupUbuntu(const Inputs& in, std::vector<std::string>* out) {
  if (in.is_path && StartsWith(in.long_name, "/usr/")) out->push_back("/usr/lib/debug" + in.long_name.substr(4));
}
void EmitUserFile(const Inputs& in, std::vector<std::string>* out) {
  if (!in.query.user_file.empty()) out->push_back(in.query.user_file);
}
// The kallsyms cache rows keep the paths perf record writes, byte for byte (no
// trailing-slash stripping: the "tried:" summary quotes them).
void EmitKallsymsCacheEntry(const Inputs& in, std::vector<std::string>* out) {
  if (!in.bid.empty() && !in.options.buildid_dir.empty())
    out->push_back(in.options.buildid_dir + "/[kernel.kallsyms]/" + in.bid + "/kallsyms");
}
void EmitKallsymsBuildIdLink(const Inputs& in, std::vector<std::string>* out) {
  if (!in.bid.empty() && !in.options.buildid_dir.empty())
    out->push_back(in.options.buildid_dir + "/.build-id/" + in.bid.substr(0, 2) + "/" + in.bid.substr(2) + "/kallsyms");
}
void EmitKallsymsCacheOld(const Inputs& in, std::vector<std::string>* out) {
  if (!in.bid.empty() && !in.options.buildid_dir.empty())
    out->push_back(in.options.buildid_dir + "/[kernel.kallsyms]/" + in.bid);
}
void EmitLocalImage(const Inputs& in, std::vector<std::string>* out) {
  if (!in.query.local_image.empty()) out->push_back(in.query.local_image);
}
void EmitDebuginfodExecutable(const Inputs& in, std::vector<std::string>* out) {
  if (in.options.debuginfod && !in.bid.empty()) out->push_back("debuginfod executable " + in.bid);
}
void EmitDebuginfodDebuginfo(const Inputs& in, std::vector<std::string>* out) {
  if (in.options.debuginfod && !in.bid.empty()) out->push_back("debuginfod debuginfo " + in.bid);
}

// The path shapes, indexed by CandidateKind.
constexpr Emit kEmit[] = {
    EmitDebuglink,    EmitBuildIdCache, EmitBuildIdCacheDebug,  EmitFedora,
    EmitUbuntu,       EmitBuildIdDebuginfo, EmitSystemPath,     EmitOpenEmbedded,
    EmitMixedupUbuntu, EmitUserFile,    EmitKallsymsCacheEntry, EmitKallsymsBuildIdLink,
    EmitKallsymsCacheOld, EmitLocalImage,   EmitDebuginfodExecutable, EmitDebuginfodDebuginfo,
};
static_assert(std::size(kEmit) == static_cast<size_t>(CandidateKind::kDebuginfodDebuginfo) + 1);

constexpr DebugSource kElfSources[] = {
    {CandidateKind::kDebuglink, true},
    {CandidateKind::kBuildIdCache, false},
    {CandidateKind::kBuildIdCacheDebug, false},
    {CandidateKind::kFedoraDebuginfo, true},
    {CandidateKind::kUbuntuDebuginfo, true},
    {CandidateKind::kBuildIdDebuginfo, true},
    {CandidateKind::kSystemPath, true},
    {CandidateKind::kOpenEmbeddedDebuginfo, true},
    {CandidateKind::kMixedupUbuntuDebuginfo, true},
    {CandidateKind::kDebuginfodExecutable, false},
    {CandidateKind::kDebuginfodDebuginfo, false},
};
constexpr DebugSource kSystemPathSource[] = {{CandidateKind::kSystemPath, true}};
constexpr DebugSource kVdsoSources[] = {
    {CandidateKind::kUserFile, false},
    {CandidateKind::kBuildIdCache, false},
    {CandidateKind::kBuildIdCacheDebug, false},
    {CandidateKind::kBuildIdDebuginfo, true},
    {CandidateKind::kLocalImage, false},
    {CandidateKind::kDebuginfodExecutable, false},
};
constexpr DebugSource kKallsymsSources[] = {
    {CandidateKind::kKallsymsCacheEntry, false},
    {CandidateKind::kKallsymsBuildIdLink, false},
    {CandidateKind::kKallsymsCacheOld, false},
    {CandidateKind::kLocalImage, false},
};
constexpr DebugSource kUserFileSource[] = {{CandidateKind::kUserFile, false}};

}  // namespace

std::optional<std::string> PathUnderSymfs(const std::string& symfs, std::string_view path) {
  if (symfs.empty()) return std::string(path);
  auto under = Under(symfs, path);
  if (!under || EscapesSymfs(symfs, *under)) return std::nullopt;
  return under;
}

std::span<const DebugSource> ElfDebugSources() { return kElfSources; }
std::span<const DebugSource> SystemPathSource() { return kSystemPathSource; }
std::span<const DebugSource> VdsoDebugSources() { return kVdsoSources; }
std::span<const DebugSource> KallsymsDebugSources() { return kKallsymsSources; }
std::span<const DebugSource> UserFileSource() { return kUserFileSource; }

const char* CandidateKindName(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::kDebuglink: return "debuglink";
    case CandidateKind::kBuildIdCache: return "build-id cache";
    case CandidateKind::kBuildIdCacheDebug: return "build-id cache debug";
    case CandidateKind::kFedoraDebuginfo: return "fedora debuginfo";
    case CandidateKind::kUbuntuDebuginfo: return "ubuntu debuginfo";
    case CandidateKind::kBuildIdDebuginfo: return "build-id debuginfo";
    case CandidateKind::kSystemPath: return "system path";
    case CandidateKind::kOpenEmbeddedDebuginfo: return "openembedded debuginfo";
    case CandidateKind::kMixedupUbuntuDebuginfo: return "mixedup ubuntu debuginfo";
    case CandidateKind::kUserFile: return "user file";
    case CandidateKind::kKallsymsCacheEntry: return "kallsyms cache";
    case CandidateKind::kKallsymsBuildIdLink: return "kallsyms build-id link";
    case CandidateKind::kKallsymsCacheOld: return "kallsyms old cache";
    case CandidateKind::kLocalImage: return "local image";
    case CandidateKind::kDebuginfodExecutable: return "debuginfod executable";
    case CandidateKind::kDebuginfodDebuginfo: return "debuginfod debuginfo";
  }
  return "?";
}

char SymtabOrigin(CandidateKind kind, bool kernel) {
  if (kernel) return 'k';  // perf's DSO_BINARY_TYPE__KALLSYMS, wherever the file was
  switch (kind) {
    case CandidateKind::kDebuglink: return 'l';
    case CandidateKind::kBuildIdCache: return 'B';
    case CandidateKind::kBuildIdCacheDebug: return 'D';
    case CandidateKind::kFedoraDebuginfo: return 'f';
    case CandidateKind::kUbuntuDebuginfo: return 'u';
    case CandidateKind::kBuildIdDebuginfo: return 'b';
    case CandidateKind::kSystemPath: return 'd';
    case CandidateKind::kOpenEmbeddedDebuginfo: return 'o';
    case CandidateKind::kMixedupUbuntuDebuginfo: return 'x';
    case CandidateKind::kUserFile: return 'd';
    case CandidateKind::kKallsymsCacheEntry:
    case CandidateKind::kKallsymsBuildIdLink:
    case CandidateKind::kKallsymsCacheOld: return 'k';
    case CandidateKind::kLocalImage: return 'd';
    case CandidateKind::kDebuginfodExecutable: return 'B';
    case CandidateKind::kDebuginfodDebuginfo: return 'D';
  }
  return '!';
}

bool IsRemoteCandidate(CandidateKind kind) {
  return kind == CandidateKind::kDebuginfodExecutable || kind == CandidateKind::kDebuginfodDebuginfo;
}

std::vector<Candidate> DebugFileCandidates(std::span<const DebugSource> sources, const DebugFileQuery& query,
                                           const FinderOptions& options) {
  std::vector<Candidate> out;
  const std::string& long_name = query.long_name;
  bool is_path = !long_name.empty() && long_name[0] == '/';
  std::optional<std::string> norm = is_path ? Normalize(long_name) : std::nullopt;
  if (is_path && !norm) return out;  // "/../.." escapes: no candidates at all
  const std::string& name = norm ? *norm : long_name;
  size_t slash = is_path ? name.rfind('/') : std::string::npos;
  Inputs in{is_path,
            name,
            slash == std::string::npos || slash == 0 ? std::string() : name.substr(0, slash),
            slash == std::string::npos ? name : name.substr(slash + 1),
            query.build_id.ToHex(),
            query,
            options};
  // A zero-padded 20-byte id (BuildId::Unpadded): perf's cache names the entry by the
  // padded hex, /usr/lib/debug and a cache filled from the file's own note by the real
  // one; each build-id source gives both, padded first.
  const std::string unpadded = query.build_id.Unpadded().ToHex();
  std::vector<std::string> paths;
  for (const DebugSource& source : sources) {
    // Under --symfs nothing of this machine is read: not its own vdso or kallsyms.
    if (source.kind == CandidateKind::kLocalImage && !options.symfs.empty()) continue;
    paths.clear();
    in.bid = query.build_id.ToHex();
    kEmit[static_cast<size_t>(source.kind)](in, &paths);
    if (unpadded != in.bid) {
      const size_t padded_paths = paths.size();
      in.bid = unpadded;
      kEmit[static_cast<size_t>(source.kind)](in, &paths);
      // Sources that do not use the id give the same paths again.
      for (size_t i = padded_paths; i < paths.size();) {
        if (std::find(paths.begin(), paths.begin() + static_cast<long>(padded_paths), paths[i]) !=
            paths.begin() + static_cast<long>(padded_paths))
          paths.erase(paths.begin() + static_cast<long>(i));
        else
          ++i;
      }
    }
    for (std::string& p : paths) {
      if (source.symfs && !options.symfs.empty()) {
        auto prefixed = Under(options.symfs, p);
        if (!prefixed || EscapesSymfs(options.symfs, *prefixed)) continue;
        p = *prefixed;
      }
      out.push_back({source.kind, std::move(p)});
    }
  }
  return out;
}

std::vector<Candidate> DebugFileCandidates(const std::string& long_name, const BuildId& build_id,
                                           const std::string& debuglink, const FinderOptions& options) {
  return DebugFileCandidates(kElfSources, DebugFileQuery{long_name, build_id, debuglink, "", ""}, options);
}

std::optional<BuildIdCacheEntry> BuildIdCacheEntryFor(const std::string& long_name, const BuildId& build_id) {
  const std::string bid = build_id.ToHex();
  if (bid.size() < 3 || long_name.empty()) return std::nullopt;
  std::string name;
  if (long_name[0] == '/') {
    auto n = Normalize(long_name);
    if (!n || *n == "/") return std::nullopt;
    name = n->substr(1);
  } else {
    // "[vdso]", "[kernel.kallsyms]": one component, read under that name.
    if (long_name.find('/') != std::string::npos || long_name == "." || long_name == "..") return std::nullopt;
    name = long_name;
  }
  if (name == ".build-id" || StartsWith(name, ".build-id/")) return std::nullopt;
  BuildIdCacheEntry e;
  e.entry_dir = name + "/" + bid;
  e.link = ".build-id/" + bid.substr(0, 2) + "/" + bid.substr(2);
  e.link_target = "../../" + e.entry_dir;
  return e;
}

std::string DefaultBuildIdDir() {
  if (const char* d = std::getenv("PERF_BUILDID_DIR"); d && *d) return d;
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.debug";
  return "";
}

}  // namespace perflens
