// perflens's command line parsed with CLI11, its errors reported as perf 6.1 reports
// them: perf's other commands and options are named as not supported by perflens, and
// only what perf does not know either gets perf's own error and exit status.
#pragma once

#include <optional>
#include <string_view>

#include <CLI/CLI.hpp>

namespace perflens {

// perf's exit status for a command line it cannot parse (usage_with_options: 129) and
// for a command it does not have (1).
inline constexpr int kExitUsage = 129;
inline constexpr int kExitUnknownCommand = 1;

// The perf command whose options a perflens subcommand mirrors: header, dump and stats
// are `perf report --header-only`, `-D`, `--stats`; the others are perf's namesakes.
std::string_view PerfCommandOf(std::string_view perflens_command);

// Parses argv into `app` (whose subcommands are registered). nullopt when it parsed;
// otherwise what was printed, as an exit status:
// - `perflens stat` (a perf command perflens lacks): "perf's 'stat' is not supported by
//   perflens (it has: …)", 1; a word neither has: "'x' is not a perflens command", 1.
// - an option perf's command has and perflens's lacks, also negated (--no-X) or
//   abbreviated: "perf report's --tui is not supported by perflens", 129.
// - an abbreviation of an option perflens has ("--std"): perflens takes whole names, 129.
// - an option perf does not know either: perf's "  Error: unknown option `xyz'" (or
//   "unknown switch `x'") and the usage line, 129; before the command: perf's
//   "Unknown option: --xyz" and its usage line, 129.
// - any other CLI11 error (a missing or bad value): "  Error: <what>" and the usage
//   line, 129. --help and --version print and return 0.
std::optional<int> ParseCommandLine(CLI::App* app, int argc, char** argv);

}  // namespace perflens
