// The options of the perf 6.1 commands that perflens mirrors, by name, so that an option
// perf has and perflens lacks is named as such ("perf report's --tui is not supported by
// perflens") and only a name perf does not know gets perf's "unknown option" error.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perflens {

// One perf option: its short letter (0 when it has none) and long name ("" when none).
struct PerfOption {
  char short_name;
  std::string_view long_name;
};

// perf 6.1's options of `command` ("report", "script", "annotate"), as its `-h` lists
// them; empty for a command without a list here.
std::span<const PerfOption> PerfCommandOptions(std::string_view command);

// The perf option that `arg` names for `command`, as perf's parser reads it: "-T",
// "--threads", "--threads=x", "--no-threads" (perf accepts the negation of every long
// option), or an unambiguous prefix of a long name ("--thre"). nullptr when perf does not
// know it.
const PerfOption* FindPerfOption(std::string_view command, std::string_view arg);

// The long names of `command` that start with `prefix` (for perf's "Ambiguous option"
// message when there are several).
std::vector<std::string_view> PerfLongNamesWithPrefix(std::string_view command, std::string_view prefix);

// How an option is written in messages: "--tui", "-T (--threads)", "-x".
std::string PerfOptionSpelling(const PerfOption& option);

}  // namespace perflens
