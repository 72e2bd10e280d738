// Helpers for the scenario tests: run shell commands, parse `perf report` /
// `perflens report` self-mode text (-F overhead,sample,period,comm,dso,sym -t '|'), and
// measure how far two reports agree. Everything here is plain text in, values out.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace perflens::scenario {

// The report options of issue #3, shared by perf and perflens.
inline constexpr const char* kReportArgs =
    "--stdio --no-children -F overhead,sample,period,comm,dso,sym -g none "
    "--percent-limit 0 -t '|'";

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  std::string out;
  std::string err;
};

// Runs `command` with /bin/sh -c; stdout and stderr are captured through files in
// `scratch_dir`.
CommandResult RunShell(const std::string& command, const std::string& scratch_dir);

// Single-quotes `s` for /bin/sh.
std::string ShellQuote(std::string_view s);

std::string ReadFileOrEmpty(const std::string& path);
void WriteFile(const std::string& path, std::string_view text);

// Empty when `perf record` works here; otherwise why not (for GTEST_SKIP).
std::string PerfUnavailableReason();

// Paths compiled in from CMake.
std::string PerflensBinary();
std::string ScenarioSourceDir();  // tests/scenario

// One row key: event name, comm, dso, sym (the symbol text as printed, "[.] main").
using RowKey = std::tuple<std::string, std::string, std::string, std::string>;

struct ParsedReport {
  std::map<RowKey, long> samples;             // summed per key
  std::map<std::string, long> header_samples;  // "# Samples: N of event 'E'" per event
  long TotalSamples() const;
  // Samples whose key matches every non-empty field given (sym_prefix is a prefix).
  long Count(std::string_view comm, std::string_view dso, std::string_view sym_prefix) const;
};

// Parses report text; rows before any "# Samples:" line get the event "".
ParsedReport ParseReport(std::string_view text);

struct Agreement {
  long perf_samples = 0;
  long perflens_samples = 0;
  long agreeing = 0;      // sum over keys of min(perf, perflens)
  double percent = 0;     // agreeing / perf_samples * 100
  std::string worst;      // the largest differences, one per line
};

Agreement Compare(const ParsedReport& perf, const ParsedReport& perflens);

// The same rows with the dso field emptied (summed), to compare (comm, sym) only.
ParsedReport WithoutDso(const ParsedReport& report);

}  // namespace perflens::scenario
