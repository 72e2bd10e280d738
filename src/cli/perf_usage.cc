#include "cli/perf_usage.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/perf_options.h"

namespace perflens {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// perf's commands that perflens does not have (perf 6.1's `perf --list-cmds`, less
// those perflens has).
constexpr std::string_view kPerfCommands[] = {
    "bench", "buildid-cache", "c2c", "config", "daemon", "data", "diff", "evlist", "ftrace", "inject",
    "iostat", "kallsyms", "kmem", "kvm", "kwork", "list", "lock", "mem", "probe", "record", "sched",
    "stat", "test", "timechart", "top", "trace", "version"};

// perf's top-level options that perflens takes before the command.
bool IsTopLevelFlag(std::string_view arg) {
  return arg == "-P" || arg == "--no-pager" || arg == "-p" || arg == "--paginate";
}

void PrintUsage(std::string_view command) {
  if (command.empty())
    std::fprintf(stderr, "\n Usage: perflens [--version] [--help] [OPTIONS] COMMAND [ARGS]\n");
  else
    std::fprintf(stderr, "\n Usage: perflens %.*s [<options>]\n\n    ('perflens %.*s --help' lists them)\n\n",
                 static_cast<int>(command.size()), command.data(), static_cast<int>(command.size()),
                 command.data());
}

// The perflens subcommand the user chose, by name ("" before it).
std::string ChosenCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return sub->get_name();
  return "";
}

// The first argument CLI11 did not take, and whether it came before the command word.
int ReportExtra(const CLI::App& app, int argc, char** argv) {
  const std::vector<std::string> extras = app.remaining(true);
  const std::string command = ChosenCommand(app);
  if (extras.empty()) {
    std::fprintf(stderr, "  Error: unexpected arguments\n");
    PrintUsage(command);
    return kExitUsage;
  }
  const std::string& extra = extras.front();
  // Where the argument is: before the command word it is a top-level one.
  int command_at = argc, extra_at = argc;
  for (int i = 1; i < argc; ++i) {
    if (command_at == argc && argv[i] == command) command_at = i;
    if (extra_at == argc && (argv[i] == extra || StartsWith(argv[i], extra + "="))) extra_at = i;
  }
  if (command.empty() || extra_at < command_at) {
    std::fprintf(stderr, "Unknown option: %s\n", extra.c_str());
    PrintUsage("");
    return kExitUsage;
  }
  if (!StartsWith(extra, "-") || extra == "-") {
    std::fprintf(stderr, "  Error: unexpected argument '%s'\n", extra.c_str());
    PrintUsage(command);
    return kExitUsage;
  }
  const CLI::App* sub = app.get_subcommand_ptr(command).get();
  const std::string_view perf_command = PerfCommandOf(command);
  const std::string typed = extra.substr(0, extra.find('='));
  if (const PerfOption* perf_option = FindPerfOption(perf_command, typed)) {
    // An abbreviation of an option perflens has: perflens wants the whole name.
    const std::string whole = perf_option->long_name.empty() ? "" : "--" + std::string(perf_option->long_name);
    const bool abbreviated = StartsWith(typed, "--") && typed != whole && typed != "--no-" + whole.substr(2);
    if (abbreviated && sub->get_option_no_throw(whole) != nullptr) {
      std::fprintf(stderr, "perflens: %s: perflens takes whole option names: %s\n", typed.c_str(), whole.c_str());
      return kExitUsage;
    }
    // "-T (--threads)", "--thre (--threads)", else as typed ("--tui", "--no-source").
    std::string spelling = typed;
    if (typed.size() == 2) spelling = PerfOptionSpelling(*perf_option);
    else if (abbreviated) spelling += " (" + whole + ")";
    std::fprintf(stderr, "perflens: perf %.*s's %s is not supported by perflens\n",
                 static_cast<int>(perf_command.size()), perf_command.data(), spelling.c_str());
    return kExitUsage;
  }
  const std::vector<std::string_view> candidates =
      StartsWith(typed, "--") ? PerfLongNamesWithPrefix(perf_command, typed.substr(2)) : std::vector<std::string_view>{};
  if (candidates.size() >= 2)  // perf 6.1: " Error: Ambiguous option: std (could be --stdio or --stdio-color)"
    std::fprintf(stderr, "  Error: Ambiguous option: %s (could be --%.*s or --%.*s)\n", typed.c_str() + 2,
                 static_cast<int>(candidates[0].size()), candidates[0].data(), static_cast<int>(candidates[1].size()),
                 candidates[1].data());
  else if (StartsWith(typed, "--"))
    std::fprintf(stderr, "  Error: unknown option `%s'\n", typed.c_str() + 2);
  else
    std::fprintf(stderr, "  Error: unknown switch `%c'\n", typed.size() > 1 ? typed[1] : '-');
  PrintUsage(command);
  return kExitUsage;
}

// perf's other commands by name, and typos: perf's wording and exit status 1 (CLI11
// would say only "A subcommand is required").
std::optional<int> CheckCommandWord(CLI::App& app, int argc, char** argv) {
  int at = 1;
  while (at < argc && IsTopLevelFlag(argv[at])) ++at;
  if (at >= argc || argv[at][0] == '-') return std::nullopt;
  const std::string_view cmd = argv[at];
  bool known = false;
  std::string commands;  // the registered ones, in registration order
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    known |= sub->check_name(argv[at]);
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
  }
  if (known) return std::nullopt;
  if (std::find(std::begin(kPerfCommands), std::end(kPerfCommands), cmd) != std::end(kPerfCommands))
    std::fprintf(stderr, "perflens: perf's '%s' is not supported by perflens (it has: %s)\n", argv[at],
                 commands.c_str());
  else
    std::fprintf(stderr, "perflens: '%s' is not a perflens command (%s; see 'perflens --help')\n", argv[at],
                 commands.c_str());
  return kExitUnknownCommand;
}

}  // namespace

std::string_view PerfCommandOf(std::string_view perflens_command) {
  if (perflens_command == "header" || perflens_command == "dump" || perflens_command == "stats") return "report";
  return perflens_command;
}

std::optional<int> ParseCommandLine(CLI::App* app, int argc, char** argv) {
  if (std::optional<int> status = CheckCommandWord(*app, argc, argv)) return status;
  try {
    app->parse(argc, argv);
  } catch (const CLI::ExtrasError&) {
    return ReportExtra(*app, argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app->exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app->exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app->exit(e);
  } catch (const CLI::RequiredError& e) {
    // No command at all: CLI11's message and perf's status for it.
    if (ChosenCommand(*app).empty()) {
      app->exit(e);
      return kExitUnknownCommand;
    }
    std::fprintf(stderr, "  Error: %s\n", e.what());
    PrintUsage(ChosenCommand(*app));
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "  Error: %s\n", e.what());
    PrintUsage(ChosenCommand(*app));
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace perflens
