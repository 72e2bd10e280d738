// DebuginfodFetcher: fetches a DSO's executable or debug file by build-id from the
// debuginfod servers named in DEBUGINFOD_URLS, through elfutils' libdebuginfod, into
// libdebuginfod's own client cache ($DEBUGINFOD_CACHE_PATH, else
// $XDG_CACHE_HOME/debuginfod_client or ~/.cache/debuginfod_client). It is the last
// source the Symbolizer tries (debug_file_finder.h's kDebuginfod* rows), after every
// local one; what it returns is a path the caller still checks like any candidate
// (ReadElfInfo, the build-id gate).
//
// libdebuginfod reads its server list, timeout (DEBUGINFOD_TIMEOUT) and cache path from
// the environment only. This class never changes the environment: cli/ sets
// DEBUGINFOD_URLS (from --debuginfod) before the Symbolizer starts, and the URLs given
// here are for the summary line only. Construct one only when a URL is known: a
// fetcher whose Fetch is never called never calls libdebuginfod (the client is created
// on the first Fetch), so no cache directory is created.
//
// Threads: Fetch may be called from several threads at once. One debuginfod_client
// (not thread-safe) is used under one mutex, so downloads are serialized; each
// (build-id, file kind) is asked for once per fetcher and its outcome (path or error)
// is kept, failures included. After a failure other than "not found" (connection
// refused, timeout, ...), no server is asked again during this fetcher's life: a fleet
// of DSOs must not each wait a timeout for a server that is down.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/build_id.h"
#include "base/result.h"

namespace perflens {

enum class DebuginfodFileKind : uint8_t {
  kExecutable,  // the binary as loaded (debuginfod_find_executable)
  kDebuginfo,   // the separate debug file with .symtab and DWARF (debuginfod_find_debuginfo)
};

const char* DebuginfodFileKindName(DebuginfodFileKind kind);  // "executable", "debuginfo"

// One progress report of a download in flight (libdebuginfod's progress callback),
// then one with `finished` set when it ends (only if progress was reported).
struct DebuginfodProgress {
  std::string_view build_id_hex;
  DebuginfodFileKind kind;
  int64_t bytes_done = 0;
  int64_t bytes_total = 0;  // 0 while unknown
  bool finished = false;
};
// Called on the fetching thread, under the fetcher's mutex (reports never interleave).
// Provided by cli/, which owns stderr.
using DebuginfodProgressFn = std::function<void(const DebuginfodProgress&)>;

class DebuginfodFetcher {
 public:
  // `urls`: the DEBUGINFOD_URLS value in effect (for the summary); `progress` may be
  // empty.
  DebuginfodFetcher(std::string urls, DebuginfodProgressFn progress);
  ~DebuginfodFetcher();
  DebuginfodFetcher(const DebuginfodFetcher&) = delete;
  DebuginfodFetcher& operator=(const DebuginfodFetcher&) = delete;

  // The path in the client cache of `kind` for `build_id` (asked for at most once;
  // later calls return the kept outcome). Errors: an empty build-id; "not found" on
  // any server; a network failure (libdebuginfod's errno text, e.g. "Connection
  // refused" or "Timer expired"), after which every later call fails at once; the
  // client could not be created; libdebuginfod.so.1 is not installed (it is opened
  // on the first Fetch, not linked: base/shared_library.h).
  Result<std::string> Fetch(const BuildId& build_id, DebuginfodFileKind kind);

  // One line for the end of the report, nullopt when nothing was asked for:
  // "debuginfod: fetched 2 files (1.3 MB) from http://h:8002; 1 build-id not found;
  // 1 failed (abcd… executable: Connection refused), not asking again" (sizes under
  // 1 MB in KB, 1000 bytes each). Files already in the client cache count as fetched.
  // Safe beside Fetch on other threads.
  std::optional<std::string> Summary() const;

 private:
  struct Client;
  std::string urls_;
  DebuginfodProgressFn progress_;
  mutable std::mutex mu_;                  // guards everything below and the client
  std::unique_ptr<Client> client_;         // created on the first Fetch
  std::map<std::pair<std::string, DebuginfodFileKind>, Result<std::string>> outcomes_;
  std::optional<std::string> down_;        // the network failure that stopped fetching
  size_t nr_fetched_ = 0, nr_not_found_ = 0, nr_failed_ = 0;
  uint64_t bytes_fetched_ = 0;
  std::string first_failure_;
};

}  // namespace perflens
