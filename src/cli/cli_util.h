// Small helpers shared by the perflens subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/text_escape.h"
#include "perfdata/perf_file.h"
#include "session/session.h"
#include "symbolize/symbolizer.h"

namespace perflens {

// A repeatable option whose values are appended to *items as given. Not CLI11's
// vector option: that reads "[kernel.kallsyms]" as a bracketed list and strips it.
CLI::Option* AddListOption(CLI::App* cmd, const std::string& name, std::vector<std::string>* items,
                           const std::string& description);

// Splits every "a,b" item into its comma-separated parts ("--comms a,b --comms c").
std::vector<std::string> SplitCommas(const std::vector<std::string>& in);

// Parses comma-separated decimal ids into *out; false on anything that is not a number.
bool ParseIds(const std::vector<std::string>& in, std::vector<uint32_t>* out);

// One diagnostic line on stderr, "perflens: <message>" or "perflens: warning: <message>".
// Messages quote names from the recording, so control bytes are escaped.
inline void PrintError(std::string_view message) {
  fmt::print(stderr, "perflens: {}\n", EscapeControl(message));
}
inline void PrintWarning(std::string_view message) {
  fmt::print(stderr, "perflens: warning: {}\n", EscapeControl(message));
}

// perf's exit status when the input cannot be opened or read as a perf.data file
// (missing, unreadable, not owned, bad magic, empty): cmd_report's -1.
inline constexpr int kExitInputError = 255;

// perf's status for a --time argument it cannot parse for the file: its -EINVAL (234).
inline constexpr int kExitBadTime = 234;
// Checks report's/script's --time for `file` as perf does after opening it: prints the
// error and returns kExitBadTime, or nullopt when the argument is fine (or empty).
std::optional<int> CheckTimeArg(const PerfFile& file, std::string_view time, bool reltime);

// Opens the input for a subcommand and prints its header warnings; starts the pager
// (StartPagerIfWanted) once it opened.
Result<std::unique_ptr<PerfFile>> OpenInput(const std::string& path, const ReaderOptions& options);

// The end-of-read diagnostics every command prints: where reading stopped, malformed
// record counts, the reader's warnings, then the command's own summary lines.
// With `quiet` (-q) only a read that stopped early is said.
void PrintReadProblems(const ReadStats& rs, const std::vector<std::string>& summary, bool quiet = false);
// -q/--quiet (perf's): no warnings or end-of-run summary on stderr.
void AddQuietFlag(CLI::App* cmd, bool* quiet);

// --parallel-read auto|on|off (SessionOptions::ParallelRead), for the commands whose
// session sums samples: report, annotate, diff.
void AddParallelReadOption(CLI::App* cmd, SessionOptions::ParallelRead* mode);

// The progress line of a long read (base/progress_line.h) on stderr, for
// SessionOptions::progress: nothing with `quiet` (-q) or when stderr is not a terminal
// (checked at the first call, after the pager took stderr when it pages), nothing in
// the first second; the line is erased when the read finishes.
SessionProgressFn StderrProgress(bool quiet);

// CLI11 check of an option naming a file perflens will read: refused (usage status)
// with "PATH: <strerror>" when it cannot be read.
CLI::Validator ReadableFile();
// --symfs, --buildid-dir, --kallsyms, -k/--vmlinux, --vdso, --no-demangle,
// --debuginfod URL. Once `cmd` is parsed, ConfigureDebuginfod(so) runs and
// so->cache_dir is set to DefaultCacheDir().
void AddSymbolOptions(CLI::App* cmd, SymbolizeOptions* so);
// perflens's cache directory (SymbolizeOptions::cache_dir): $PERFLENS_CACHE_DIR when set
// (empty: no cache), else $XDG_CACHE_HOME/perflens, else $HOME/.cache/perflens ("" when
// neither is an absolute path).
std::string DefaultCacheDir();
// The process-global part of debuginfod (only cli/ touches the environment): with
// --debuginfod URL (so->debuginfod_urls already set), DEBUGINFOD_URLS is set to it;
// without, so->debuginfod_urls takes DEBUGINFOD_URLS's value ("" when unset: nothing is
// fetched). When a URL is known and DEBUGINFOD_TIMEOUT is unset, it is set to
// kDebuginfodTimeoutSeconds (libdebuginfod's own default is 90 s per server), and
// so->debuginfod_progress prints downloads on stderr: on a terminal one line
// rewritten in place, otherwise one line per download over 1 MB.
inline constexpr const char* kDebuginfodTimeoutSeconds = "30";
void ConfigureDebuginfod(SymbolizeOptions* so);
// --inline / --no-inline (perf's), setting *inline_frames.
void AddInlineFlags(CLI::App* cmd, bool* inline_frames);
// --return-address-adjust (the default) / --no-return-address-adjust, setting *adjust.
void AddReturnAddressFlags(CLI::App* cmd, bool* adjust);

// Turns SIGBUS on a mapped input (the file shrank while perflens read it: truncated
// by another process) into "perflens: FILE: the file shrank while it was read (no data
// at offset 0x...)" and exit status 1. Other SIGBUS faults keep the default action.
void InstallSigbusHandler();

// Adds -f/--force (perf's: read a file that another user owns) to `cmd`.
void AddForceOption(CLI::App* cmd, ReaderOptions* options);

}  // namespace perflens
