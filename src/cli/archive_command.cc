// `perflens archive`: perf archive's job, portable. Copies the files the samples'
// DSOs were symbolized from into a build-id cache directory (or one tarball of it).
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "perfdata/perf_file.h"
#include "report/archive.h"

namespace perflens {
namespace {

struct ArchiveArgs {
  std::string input = "perf.data";
  std::string output;  // DIR, or the tarball with --tar
  bool tar = false;
  ArchiveOptions options;
  ReaderOptions* reader = nullptr;
};

int RunArchive(ArchiveArgs& a) {
  std::string output = a.output;
  // `-o FILE.tar` asks for the tarball as --tar does.
  if (output.size() > 4 && output.compare(output.size() - 4, 4, ".tar") == 0) a.tar = true;
  if (output.empty()) {
    if (a.input == "-") {
      PrintError("archive: -o is needed when the input is standard input");
      return 1;
    }
    output = a.input + (a.tar ? ".tar" : ".archive");
  }
  auto file = OpenInput(a.input, *a.reader);
  if (!file) {
    PrintError(file.error().message);
    return kExitInputError;
  }
  a.options.progress = StderrProgress(false);
  auto archive = Archive::Create(file->get(), a.options);
  if (!archive) {
    PrintError(archive.error().message);
    return 1;
  }
  Status st = (*archive)->Process();
  if (!st) {
    PrintError(st.error().message);
    return 1;
  }
  auto written = a.tar ? (*archive)->WriteTar(output) : (*archive)->WriteTree(output);
  if (!written) {
    PrintError(written.error().message);
    return 1;
  }
  const std::string summary = FormatArchiveSummary((*archive)->plan(), *written, output, a.tar, a.input);
  fwrite(summary.data(), 1, summary.size(), stdout);
  fflush(stdout);
  PrintReadProblems((*archive)->read_stats(), {});
  return 0;
}

}  // namespace

CommandRunner RegisterArchiveCommand(CLI::App* app, ReaderOptions* reader) {
  auto args = std::make_shared<ArchiveArgs>();
  args->reader = reader;
  CLI::App* cmd = app->add_subcommand(
      "archive",
      "Copy the binaries, debug files, vdso and kallsyms the samples need into a build-id cache "
      "(perf archive); read it elsewhere with report --buildid-dir DIR");
  cmd->add_option("-i,--input", args->input, "Input file (default ./perf.data; - for stdin)");
  cmd->add_option("-o,--output", args->output,
                  "Output directory (default INPUT.archive; created, or an existing build-id cache merged "
                  "into), or with --tar (or a name ending in .tar) the tarball (default INPUT.tar; must not "
                  "exist)");
  cmd->add_flag("--tar", args->tar, "Write one tar archive of the cache instead of a directory");
  SymbolizeOptions& so = args->options.symbolize;
  cmd->add_option("--symfs", so.symfs, "Look for files relative to this directory");
  cmd->add_option("--buildid-dir", so.buildid_dir,
                  "Build-id cache to take files from (default ~/.debug or $PERF_BUILDID_DIR)");
  cmd->add_option("--kallsyms", so.kallsyms, "kallsyms file of the recording kernel")->check(ReadableFile());
  cmd->add_option("--vdso", so.vdso_image, "vdso image to use when its build-id matches the recorded one")
      ->check(ReadableFile());
  AddForceOption(cmd, reader);
  return [args]() { return RunArchive(*args); };
}

}  // namespace perflens
