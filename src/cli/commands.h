// Subcommands defined outside main.cc. Each Register* adds its CLI11 subcommand and
// returns a runner that main() calls when that subcommand was chosen.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace perflens {

using CommandRunner = std::function<int()>;

// `perflens script` (perf script): per-sample listing, -F fields, folded stacks.
CommandRunner RegisterScriptCommand(CLI::App* app);

}  // namespace perflens
