#include "symbolize/debug_file_finder.h"

#include <climits>
#include <cstdlib>
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
  const std::string& long_name;  // normalized, absolute
  std::string dir;               // dirname of long_name
  std::string base;              // basename of long_name
  std::string bid;               // hex, "" if none
  const std::string& debuglink;
  const FinderOptions& options;
};

using Emit = void (*)(const Inputs& in, std::vector<std::string>* out);

void EmitDebuglink(const Inputs& in, std::vector<std::string>* out) {
  const std::string& dl = in.debuglink;
  // The debuglink is a file name; refuse anything with a directory part.
  if (dl.empty() || dl.find('/') != std::string::npos || dl == "." || dl == "..") return;
  out->push_back(in.dir + "/" + dl);
  out->push_back(in.dir + "/.debug/" + dl);
  out->push_back("/usr/lib/debug" + in.dir + "/" + dl);
}

void EmitBuildIdCache(const Inputs& in, std::vector<std::string>* out) {
  if (in.bid.size() < 3 || in.options.buildid_dir.empty()) return;
  std::string link = StripTrailingSlash(in.options.buildid_dir) + "/.build-id/" + in.bid.substr(0, 2) + "/" +
                     in.bid.substr(2);
  out->push_back(link + "/" + in.options.cache_basename);  // link to the entry's directory
  out->push_back(link);                                   // old caches: link to the file
  // The entry itself: <dir>/<long_name>/<bid>/<basename>.
  if (auto p = Under(in.options.buildid_dir, in.long_name + "/" + in.bid + "/" + in.options.cache_basename))
    out->push_back(*p);
}

void EmitBuildIdCacheDebug(const Inputs& in, std::vector<std::string>* out) {
  if (in.bid.size() < 3 || in.options.buildid_dir.empty()) return;
  out->push_back(StripTrailingSlash(in.options.buildid_dir) + "/.build-id/" + in.bid.substr(0, 2) + "/" +
                 in.bid.substr(2) + "/debug");
}

void EmitFedora(const Inputs& in, std::vector<std::string>* out) {
  out->push_back("/usr/lib/debug" + in.long_name + ".debug");
}
void EmitUbuntu(const Inputs& in, std::vector<std::string>* out) { out->push_back("/usr/lib/debug" + in.long_name); }
void EmitBuildIdDebuginfo(const Inputs& in, std::vector<std::string>* out) {
  if (in.bid.size() < 3) return;
  out->push_back("/usr/lib/debug/.build-id/" + in.bid.substr(0, 2) + "/" + in.bid.substr(2) + ".debug");
}
void EmitSystemPath(const Inputs& in, std::vector<std::string>* out) { out->push_back(in.long_name); }
void EmitOpenEmbedded(const Inputs& in, std::vector<std::string>* out) {
  out->push_back(in.dir + "/.debug/" + in.base);
}
void EmitMixedupUbuntu(const Inputs& in, std::vector<std::string>* out) {
  if (StartsWith(in.long_name, "/usr/")) out->push_back("/usr/lib/debug" + in.long_name.substr(4));
}

struct KindRow {
  CandidateKind kind;
  Emit emit;
  bool symfs;  // prefixed with --symfs (the build-id cache is local, never prefixed)
};

// perf's binary_type_symtab[] for user DSOs, in order.
constexpr KindRow kKinds[] = {
    {CandidateKind::kDebuglink, EmitDebuglink, true},
    {CandidateKind::kBuildIdCache, EmitBuildIdCache, false},
    {CandidateKind::kBuildIdCacheDebug, EmitBuildIdCacheDebug, false},
    {CandidateKind::kFedoraDebuginfo, EmitFedora, true},
    {CandidateKind::kUbuntuDebuginfo, EmitUbuntu, true},
    {CandidateKind::kBuildIdDebuginfo, EmitBuildIdDebuginfo, true},
    {CandidateKind::kSystemPath, EmitSystemPath, true},
    {CandidateKind::kOpenEmbeddedDebuginfo, EmitOpenEmbedded, true},
    {CandidateKind::kMixedupUbuntuDebuginfo, EmitMixedupUbuntu, true},
};

}  // namespace

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
  }
  return "?";
}

std::vector<Candidate> DebugFileCandidates(const std::string& long_name, const BuildId& build_id,
                                           const std::string& debuglink, const FinderOptions& options) {
  std::vector<Candidate> out;
  // Only absolute file names are files; "[vdso]" etc. get build-id candidates only.
  bool is_path = !long_name.empty() && long_name[0] == '/';
  std::optional<std::string> norm = is_path ? Normalize(long_name) : std::nullopt;
  if (is_path && !norm) return out;  // "/../.." escapes: no candidates at all
  std::string name = norm ? *norm : std::string();
  size_t slash = name.rfind('/');
  Inputs in{name,
            slash == std::string::npos || slash == 0 ? std::string() : name.substr(0, slash),
            slash == std::string::npos ? name : name.substr(slash + 1),
            build_id.ToHex(),
            debuglink,
            options};
  for (const KindRow& row : kKinds) {
    bool needs_path = row.kind != CandidateKind::kBuildIdCache && row.kind != CandidateKind::kBuildIdCacheDebug &&
                      row.kind != CandidateKind::kBuildIdDebuginfo;
    if (needs_path && !is_path) continue;
    if (!is_path && row.kind == CandidateKind::kBuildIdCache) {
      // Special DSOs: only the .build-id link and <dir>/<name>/<bid>/<basename>.
      if (in.bid.size() < 3 || options.buildid_dir.empty()) continue;
      std::string dir = StripTrailingSlash(options.buildid_dir);
      out.push_back({row.kind, dir + "/.build-id/" + in.bid.substr(0, 2) + "/" + in.bid.substr(2) + "/" +
                                   options.cache_basename});
      if (long_name.find('/') == std::string::npos && long_name != "." && long_name != "..")
        out.push_back({row.kind, dir + "/" + long_name + "/" + in.bid + "/" + options.cache_basename});
      continue;
    }
    std::vector<std::string> paths;
    row.emit(in, &paths);
    for (std::string& p : paths) {
      if (row.symfs && !options.symfs.empty()) {
        auto prefixed = Under(options.symfs, p);
        if (!prefixed || EscapesSymfs(options.symfs, *prefixed)) continue;
        p = *prefixed;
      }
      out.push_back({row.kind, std::move(p)});
    }
  }
  return out;
}

std::string DefaultBuildIdDir() {
  if (const char* d = std::getenv("PERF_BUILDID_DIR"); d && *d) return d;
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.debug";
  return "";
}

}  // namespace perflens
