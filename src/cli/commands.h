// Subcommands defined outside main.cc. Each Register* adds its CLI11 subcommand and
// returns a runner that main() calls when that subcommand was chosen.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "perfdata/perf_file.h"

namespace perflens {

using CommandRunner = std::function<int()>;

// `perflens script` (perf script): per-sample listing, -F fields, folded stacks.
// `reader` holds the reader options shared by all subcommands (its -f/--force is added).
CommandRunner RegisterScriptCommand(CLI::App* app, ReaderOptions* reader);
// `perflens annotate` (perf annotate --stdio): per-instruction shares of a symbol.
CommandRunner RegisterAnnotateCommand(CLI::App* app, ReaderOptions* reader);
// `perflens archive` (perf archive): the files the samples need, as a build-id cache.
CommandRunner RegisterArchiveCommand(CLI::App* app, ReaderOptions* reader);
// `perflens export`: the samples as a pprof profile, folded stacks, a speedscope document
// or a Firefox Profiler profile (export/export.h).
CommandRunner RegisterExportCommand(CLI::App* app, ReaderOptions* reader);
// `perflens diff` (perf diff --stdio): rows of two or more recordings paired by name.
CommandRunner RegisterDiffCommand(CLI::App* app, ReaderOptions* reader);

}  // namespace perflens
