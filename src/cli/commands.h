// Subcommands defined outside main.cc. Each Register* adds its CLI11 subcommand and
// returns a runner that main() calls when that subcommand was chosen.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "export/export.h"
#include "perfdata/perf_file.h"
#include "report/report_options.h"

namespace perflens {

using CommandRunner = std::function<int()>;

// `perflens script` (perf script): per-sample listing, -F fields, folded stacks.
// `reader` holds the reader options shared by all subcommands (its -f/--force is added).
CommandRunner RegisterScriptCommand(CLI::App* app, ReaderOptions* reader);
// `perflens annotate` (perf annotate --stdio): per-instruction shares of a symbol.
CommandRunner RegisterAnnotateCommand(CLI::App* app, ReaderOptions* reader);
// `perflens archive` (perf archive): the files the samples need, as a build-id cache.
CommandRunner RegisterArchiveCommand(CLI::App* app, ReaderOptions* reader);
// `perflens export`: the samples as a pprof profile, folded stacks, a speedscope document,
// a Firefox Profiler profile or an HTML viewer (export/export.h).
CommandRunner RegisterExportCommand(CLI::App* app, ReaderOptions* reader);
// The export's run after its options are checked: reads `input`, writes `output`
// ("-": stdout) and returns the exit status. `perflens report --html FILE` runs it too,
// with report's filters in `options`. The HTML format prints the file's size on stderr
// unless `quiet`.
int RunExportToFile(const std::string& input, const ReaderOptions& reader, ExportOptions& options,
                    const std::string& output, bool quiet);
// The export options of report's filters (comms, dsos, symbols, pids, tids, --time, -C,
// -U, --max-stack, inline frames, return-address adjustment, symbols, threads) in
// `format`: `report --html`, `diff --html`.
ExportOptions ExportOptionsFromReport(const ReportOptions& report, ExportFormat format);
// Writes `bytes` to `path` ("-": stdout). Errors name the path and errno's text.
Status WriteOutputFile(const std::string& path, const std::string& bytes);
// Refuses an output that is one of the inputs (the same file by device and inode, by
// whatever path): writing it would destroy the recording before or while it is read.
// "-" (stdout, stdin) and an output that does not exist yet are never an input.
Status CheckOutputIsNoInput(const std::string& output, const std::vector<std::string>& inputs);
// `perflens diff` (perf diff --stdio): rows of two or more recordings paired by name;
// --html FILE: the differential flame graph of two (export/export.h ExportHtmlDiff).
CommandRunner RegisterDiffCommand(CLI::App* app, ReaderOptions* reader);

}  // namespace perflens
