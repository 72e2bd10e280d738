#include "cli/cli_util.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace perflens {

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
  for (const auto& w : (*file)->env().warnings) PrintWarning(w);
  return file;
}

void PrintReadProblems(const ReadStats& rs, const std::vector<std::string>& summary, bool quiet) {
  if (rs.stopped) PrintWarning(rs.stopped->message);
  if (quiet) return;
  if (rs.nr_bad_records) PrintWarning(fmt::format("{} malformed records skipped", rs.nr_bad_records));
  // perf 6.1 stops at such a record ("failed to process type"); perflens reads on.
  if (rs.nr_unknown_records)
    PrintWarning(fmt::format("{} records of a type perflens does not know skipped (first: type {} at offset {:#x})",
                             rs.nr_unknown_records, rs.first_unknown_type, rs.first_unknown_offset));
  for (const auto& w : rs.warnings) PrintWarning(w);
  for (const auto& line : summary) PrintError(line);
}

void AddQuietFlag(CLI::App* cmd, bool* quiet) {
  cmd->add_flag("-q,--quiet", *quiet, "No warnings or summary of what could not be resolved on stderr");
}

void AddSymbolOptions(CLI::App* cmd, SymbolizeOptions* so) {
  cmd->add_option("--symfs", so->symfs, "Look for files relative to this directory");
  cmd->add_option("--buildid-dir", so->buildid_dir, "Build-id cache directory (default ~/.debug or $PERF_BUILDID_DIR)");
  cmd->add_option("--kallsyms", so->kallsyms, "kallsyms file for kernel symbols");
  cmd->add_option("-k,--vmlinux", so->vmlinux, "vmlinux file for kernel symbols");
  cmd->add_option("--vdso", so->vdso_image, "vdso image to use when its build-id matches the recorded one");
  // Callbacks, not CLI11's negated flags, whose --help shows "--no-demangle{false}".
  cmd->add_flag_callback("--no-demangle", [so] { so->demangle = false; }, "Do not demangle C++ symbols");
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
