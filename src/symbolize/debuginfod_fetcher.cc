#include "symbolize/debuginfod_fetcher.h"

#include <elfutils/debuginfod.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <set>

#include "base/shared_library.h"

namespace perflens {

namespace {

// libdebuginfod's entry points, opened on the first Fetch (base/shared_library.h says
// why it is not linked).
struct DebuginfodApi {
  SharedLibrary lib;
  decltype(debuginfod_begin)* begin = nullptr;
  decltype(debuginfod_end)* end = nullptr;
  decltype(debuginfod_get_user_data)* get_user_data = nullptr;
  decltype(debuginfod_set_user_data)* set_user_data = nullptr;
  decltype(debuginfod_set_progressfn)* set_progressfn = nullptr;
  decltype(debuginfod_find_executable)* find_executable = nullptr;
  decltype(debuginfod_find_debuginfo)* find_debuginfo = nullptr;
};

Result<DebuginfodApi> LoadDebuginfodApi() {
  auto lib = SharedLibrary::Open("libdebuginfod.so.1");
  if (!lib.ok()) return lib.error();
  DebuginfodApi api;
  api.lib = std::move(*lib);
  for (Status st : {api.lib.Bind("debuginfod_begin", &api.begin), api.lib.Bind("debuginfod_end", &api.end),
                    api.lib.Bind("debuginfod_get_user_data", &api.get_user_data),
                    api.lib.Bind("debuginfod_set_user_data", &api.set_user_data),
                    api.lib.Bind("debuginfod_set_progressfn", &api.set_progressfn),
                    api.lib.Bind("debuginfod_find_executable", &api.find_executable),
                    api.lib.Bind("debuginfod_find_debuginfo", &api.find_debuginfo)})
    if (!st.ok()) return st.error();
  return api;
}

// Opened once per process, kept to its end (a client may outlive any one fetcher).
const Result<DebuginfodApi>& Api() {
  // Never closed: no dlclose during static destruction while another thread may
  // still be inside the library.
  static const auto* api = new Result<DebuginfodApi>(LoadDebuginfodApi());
  return *api;
}

}  // namespace

const char* DebuginfodFileKindName(DebuginfodFileKind kind) {
  switch (kind) {
    case DebuginfodFileKind::kExecutable: return "executable";
    case DebuginfodFileKind::kDebuginfo: return "debuginfo";
  }
  return "?";
}

// The libdebuginfod client and what its progress callback needs to know about the
// download in flight (set under the fetcher's mutex around each find call).
struct DebuginfodFetcher::Client {
  debuginfod_client* handle = nullptr;
  const DebuginfodProgressFn* progress = nullptr;
  std::string bid;
  DebuginfodFileKind kind = DebuginfodFileKind::kExecutable;
  bool reported = false;
  int64_t last_done = 0, last_total = 0;

  ~Client() {
    if (handle) Api()->end(handle);
  }
  static int OnProgress(debuginfod_client* c, long done, long total) {
    auto* self = static_cast<Client*>(Api()->get_user_data(c));
    if (self && self->progress && *self->progress) {
      self->reported = true;
      self->last_done = done;
      self->last_total = total;
      (*self->progress)(DebuginfodProgress{self->bid, self->kind, done, total, false});
    }
    return 0;  // nonzero would cancel the download
  }
};

DebuginfodFetcher::DebuginfodFetcher(std::string urls, DebuginfodProgressFn progress)
    : urls_(std::move(urls)), progress_(std::move(progress)) {}

DebuginfodFetcher::~DebuginfodFetcher() = default;

Result<std::string> DebuginfodFetcher::Fetch(const BuildId& build_id, DebuginfodFileKind kind) {
  if (build_id.empty()) return Err("debuginfod: no build-id to ask for");
  std::string hex = build_id.ToHex();
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_pair(hex, kind);
  if (auto it = outcomes_.find(key); it != outcomes_.end()) return it->second;
  auto keep = [&](Result<std::string> r) {
    outcomes_.emplace(key, r);
    return r;
  };
  const char* what = DebuginfodFileKindName(kind);
  if (down_) return keep(Err("debuginfod {} {}: not asked ({})", what, hex, *down_));
  if (!client_) {
    const auto& api = Api();
    if (!api.ok()) {
      down_ = api.error().message;
      ++nr_failed_;
      if (first_failure_.empty()) first_failure_ = *down_;
      return keep(Err("debuginfod: {}", *down_));
    }
    auto c = std::make_unique<Client>();
    c->handle = api->begin();
    if (!c->handle) {
      down_ = "the debuginfod client could not be created";
      ++nr_failed_;
      if (first_failure_.empty()) first_failure_ = *down_;
      return keep(Err("debuginfod: {}", *down_));
    }
    c->progress = &progress_;
    api->set_user_data(c->handle, c.get());
    api->set_progressfn(c->handle, &Client::OnProgress);
    client_ = std::move(c);
  }
  client_->bid = hex;
  client_->kind = kind;
  client_->reported = false;
  char* path = nullptr;
  // The hex form (length 0) is what the servers' URLs carry.
  const auto* id = reinterpret_cast<const unsigned char*>(hex.c_str());
  int fd = kind == DebuginfodFileKind::kExecutable ? Api()->find_executable(client_->handle, id, 0, &path)
                                                   : Api()->find_debuginfo(client_->handle, id, 0, &path);
  if (client_->reported && progress_)
    progress_(DebuginfodProgress{hex, kind, client_->last_done, client_->last_total, true});
  if (fd < 0) {
    free(path);
    if (fd == -ENOENT) {
      ++nr_not_found_;
      return keep(Err("debuginfod {} {}: not found on {}", what, hex, urls_));
    }
    std::string why = std::strerror(-fd);
    ++nr_failed_;
    if (first_failure_.empty()) first_failure_ = fmt::format("{} {}: {}", hex, what, why);
    down_ = fmt::format("{} from {}", why, urls_);
    return keep(Err("debuginfod {} {}: {} (server {})", what, hex, why, urls_));
  }
  struct stat st;
  if (fstat(fd, &st) == 0) bytes_fetched_ += static_cast<uint64_t>(st.st_size);
  close(fd);
  if (!path) return keep(Err("debuginfod {} {}: no path returned", what, hex));
  std::string out = path;
  free(path);
  ++nr_fetched_;
  return keep(std::move(out));
}

std::optional<std::string> DebuginfodFetcher::Summary() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (outcomes_.empty()) return std::nullopt;
  // A build-id is "not found" when no file of it was fetched and a server said no.
  std::set<std::string> found, missing;
  for (const auto& [key, result] : outcomes_) {
    if (result.ok()) found.insert(key.first);
  }
  for (const auto& [key, result] : outcomes_) {
    if (!result.ok() && !found.count(key.first) && result.error().message.find("not found") != std::string::npos)
      missing.insert(key.first);
  }
  std::string size = bytes_fetched_ >= 1000000 ? fmt::format("{:.1f} MB", bytes_fetched_ / 1e6)
                                               : fmt::format("{} KB", (bytes_fetched_ + 999) / 1000);
  std::string line = fmt::format("debuginfod: fetched {} file{} ({}) from {}", nr_fetched_, nr_fetched_ == 1 ? "" : "s",
                                 size, urls_);
  if (!missing.empty())
    line += fmt::format("; {} build-id{} not found", missing.size(), missing.size() == 1 ? "" : "s");
  if (nr_failed_) line += fmt::format("; {} failed ({}), not asking again", nr_failed_, first_failure_);
  return line;
}

}  // namespace perflens
