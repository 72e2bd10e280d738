#include "cli/cli_util.h"

#include "cli/pager.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <optional>

#include "base/progress_line.h"
#include "session/time_cpu_filter.h"

namespace perflens {

std::optional<int> CheckTimeArg(const PerfFile& file, std::string_view time, bool reltime) {
  if (time.empty()) return std::nullopt;
  std::vector<TimeRange> ranges;
  std::vector<bool> cpus;
  Status st = ParseTimeCpuFilters(file, time, "", reltime, &ranges, &cpus);
  if (st) return std::nullopt;
  PrintError(st.error().message);
  return kExitBadTime;
}

CLI::Option* AddListOption(CLI::App* cmd, const std::string& name, std::vector<std::string>* items,
                           const std::string& description) {
  return cmd
      ->add_option(
          name,
          [items](const CLI::results_t& values) {
            items->insert(items->end(), values.begin(), values.end());
            return true;
          },
          description)
      ->type_name("LIST")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::vector<std::string> SplitCommas(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& item : in) {
    size_t start = 0;
    while (start <= item.size()) {
      size_t comma = item.find(',', start);
      if (comma == std::string::npos) comma = item.size();
      if (comma > start) out.push_back(item.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

bool ParseIds(const std::vector<std::string>& in, std::vector<uint32_t>* out) {
  for (const auto& s : SplitCommas(in)) {
    char* end = nullptr;
    unsigned long v = strtoul(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0') return false;
    out->push_back(static_cast<uint32_t>(v));
  }
  return true;
}

Result<std::unique_ptr<PerfFile>> OpenInput(const std::string& path, const ReaderOptions& options) {
  auto file = PerfFile::Open(path, options);
  if (!file) return file.error();
  StartPagerIfWanted();  // as perf: once the input opened, before the warnings
  for (const auto& w : (*file)->env().warnings) PrintWarning(w);
  return file;
}

void PrintReadProblems(const ReadStats& rs, const std::vector<std::string>& summary, bool quiet) {
  if (rs.stopped) PrintWarning(rs.stopped->message);
  if (quiet) return;
  auto records = [](uint64_t n, std::string_view kind) {
    return fmt::format("{} {}record{}", n, kind, n == 1 ? "" : "s");
  };
  if (rs.nr_bad_records) PrintWarning(records(rs.nr_bad_records, "malformed ") + " skipped");
  // perf 6.1 stops at such a record ("failed to process type"); perflens reads on.
  if (rs.nr_unknown_records)
    PrintWarning(fmt::format("{} of a type perflens does not know skipped (first: type {} at offset {:#x})",
                             records(rs.nr_unknown_records, ""), rs.first_unknown_type, rs.first_unknown_offset));
  for (const auto& w : rs.warnings) PrintWarning(w);
  for (const auto& line : summary) PrintError(line);
}

SessionProgressFn StderrProgress(bool quiet) {
  if (quiet) return {};
  struct State {
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    int tty = -1;  // unknown until the first call
    ProgressLine line{[](std::string_view s) {
      std::fwrite(s.data(), 1, s.size(), stderr);
      std::fflush(stderr);
    }};
  };
  auto state = std::make_shared<State>();
  return [state](const SessionProgress& p) {
    if (state->tty < 0) state->tty = isatty(STDERR_FILENO) ? 1 : 0;
    if (!state->tty) return;
    if (p.finished) {
      state->line.Finish();
      return;
    }
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - state->start).count();
    state->line.Update(p.bytes_done, p.bytes_total, p.nr_samples, now);
  };
}

void AddQuietFlag(CLI::App* cmd, bool* quiet) {
  cmd->add_flag("-q,--quiet", *quiet, "No warnings or summary of what could not be resolved on stderr");
}

void AddParallelReadOption(CLI::App* cmd, SessionOptions::ParallelRead* mode) {
  cmd->add_option_function<std::string>(
         "--parallel-read",
         [mode](const std::string& value) {
           *mode = value == "on"    ? SessionOptions::ParallelRead::kOn
                   : value == "off" ? SessionOptions::ParallelRead::kOff
                                    : SessionOptions::ParallelRead::kAuto;
         },
         "Frame and decode the perf.data on every core when only summed samples are needed: auto "
         "(default: when its records are large), on, off. The same output either way")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->type_name("MODE");
}

CLI::Validator ReadableFile() {
  // perf refuses an unreadable --kallsyms or --vmlinux ("Invalid file: PATH") before
  // reading anything; perflens said nothing and reported the kernel unresolved.
  return CLI::Validator(
      [](const std::string& path) -> std::string {
        if (access(path.c_str(), R_OK) != 0) return fmt::format("{}: {}", path, std::strerror(errno));
        return "";
      },
      "FILE");
}

void AddSymbolOptions(CLI::App* cmd, SymbolizeOptions* so) {
  cmd->add_option("--symfs", so->symfs, "Look for files relative to this directory");
  cmd->add_option("--buildid-dir", so->buildid_dir, "Build-id cache directory (default ~/.debug or $PERF_BUILDID_DIR)");
  cmd->add_option("--kallsyms", so->kallsyms, "kallsyms file for kernel symbols")->check(ReadableFile());
  cmd->add_option("-k,--vmlinux", so->vmlinux, "vmlinux file for kernel symbols")->check(ReadableFile());
  cmd->add_option("--vdso", so->vdso_image, "vdso image to use when its build-id matches the recorded one")
      ->check(ReadableFile());
  // Callbacks, not CLI11's negated flags, whose --help shows "--no-demangle{false}".
  cmd->add_flag_callback("--no-demangle", [so] { so->demangle = false; }, "Do not demangle C++ symbols");
  cmd->add_option("--debuginfod", so->debuginfod_urls,
                  "Fetch missing binaries and debug files by build-id from this debuginfod server URL "
                  "(default $DEBUGINFOD_URLS; none: nothing is fetched)")
      ->type_name("URL");
  cmd->parse_complete_callback([so] {
    ConfigureDebuginfod(so);
    so->cache_dir = DefaultCacheDir();
  });
}

std::string DefaultCacheDir() {
  if (const char* dir = std::getenv("PERFLENS_CACHE_DIR")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/perflens";
  if (const char* home = std::getenv("HOME"); home && *home == '/') return std::string(home) + "/.cache/perflens";
  return "";
}

void ConfigureDebuginfod(SymbolizeOptions* so) {
  if (!so->debuginfod_urls.empty()) {
    setenv("DEBUGINFOD_URLS", so->debuginfod_urls.c_str(), 1);
  } else if (const char* env = std::getenv("DEBUGINFOD_URLS")) {
    so->debuginfod_urls = env;
  }
  // Only blanks: no server.
  if (so->debuginfod_urls.find_first_not_of(" \t") == std::string::npos) {
    so->debuginfod_urls.clear();
    return;
  }
  if (const char* t = std::getenv("DEBUGINFOD_TIMEOUT"); !t || !*t)
    setenv("DEBUGINFOD_TIMEOUT", kDebuginfodTimeoutSeconds, 1);
  struct State {
    bool tty = isatty(STDERR_FILENO) == 1;
    bool shown = false;  // a line was printed for the download in flight
    int64_t last_kb = -1;
  };
  auto state = std::make_shared<State>();
  constexpr int64_t kLarge = 1 << 20;
  so->debuginfod_progress = [state](const DebuginfodProgress& p) {
    State& s = *state;
    const char* what = DebuginfodFileKindName(p.kind);
    if (p.finished) {
      if (s.tty && s.shown) fmt::print(stderr, "\r\033[K");
      s.shown = false;
      s.last_kb = -1;
      return;
    }
    if (s.tty) {
      int64_t kb = p.bytes_done >> 10;
      if (kb == s.last_kb) return;  // at most one line per KB
      s.last_kb = kb;
      s.shown = true;
      if (p.bytes_total > 0)
        fmt::print(stderr, "\rperflens: debuginfod: {} {}: {} of {} KB\033[K", what, p.build_id_hex, kb,
                   p.bytes_total >> 10);
      else
        fmt::print(stderr, "\rperflens: debuginfod: {} {}: {} KB\033[K", what, p.build_id_hex, kb);
    } else if (!s.shown && p.bytes_total > kLarge) {
      s.shown = true;
      fmt::print(stderr, "perflens: debuginfod: downloading {} {} ({:.1f} MB)\n", what, p.build_id_hex,
                 p.bytes_total / 1e6);
    }
  };
}

void AddInlineFlags(CLI::App* cmd, bool* inline_frames) {
  cmd->add_flag_callback("--inline", [inline_frames] { *inline_frames = true; },
                         "Show inlined functions in DWARF-unwound callchains (the default, as perf's)");
  cmd->add_flag_callback("--no-inline", [inline_frames] { *inline_frames = false; },
                         "One frame per DWARF-unwound callchain entry, without inlined functions");
}

void AddReturnAddressFlags(CLI::App* cmd, bool* adjust) {
  cmd->add_flag_callback("--return-address-adjust", [adjust] { *adjust = true; },
                         "Look callers up at return address - 1 (the default)");
  cmd->add_flag_callback("--no-return-address-adjust", [adjust] { *adjust = false; },
                         "Look callers up at the return address itself, as perf 6.1 does (a call "
                         "ending a function is then charged to the next one)");
}

namespace {

void AppendRaw(char* buf, size_t cap, size_t* len, const char* s) {
  while (*s && *len + 1 < cap) buf[(*len)++] = *s++;
}

void OnSigbus(int sig, siginfo_t* info, void*) {
  char name[256];
  uint64_t offset = 0;
  if (!LookupMappedAddress(info->si_addr, name, sizeof(name), &offset)) {
    // Not an input: the default action (core dump) when the fault repeats on return.
    signal(sig, SIG_DFL);
    return;
  }
  char msg[512];
  size_t len = 0;
  AppendRaw(msg, sizeof(msg), &len, "perflens: ");
  AppendRaw(msg, sizeof(msg), &len, name);
  AppendRaw(msg, sizeof(msg), &len, ": the file shrank while it was read (no data at offset 0x");
  char hex[17];
  int n = 0;
  do {
    hex[n++] = "0123456789abcdef"[offset & 15];
    offset >>= 4;
  } while (offset && n < 16);
  while (n > 0 && len + 1 < sizeof(msg)) msg[len++] = hex[--n];
  AppendRaw(msg, sizeof(msg), &len, "); was it truncated by another process?\n");
  ssize_t ignored = write(STDERR_FILENO, msg, len);
  (void)ignored;
  _exit(1);
}

}  // namespace

void InstallSigbusHandler() {
  struct sigaction sa = {};
  sa.sa_sigaction = OnSigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, nullptr);
}

void AddForceOption(CLI::App* cmd, ReaderOptions* options) {
  cmd->add_flag("-f,--force", options->force, "Read a file not owned by the current user or root");
}

}  // namespace perflens
