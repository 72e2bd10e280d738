// Small helpers shared by the perflens subcommands.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace perflens {

// A repeatable option whose values are appended to *items as given. Not CLI11's
// vector option: that reads "[kernel.kallsyms]" as a bracketed list and strips it.
CLI::Option* AddListOption(CLI::App* cmd, const std::string& name, std::vector<std::string>* items,
                           const std::string& description);

// Splits every "a,b" item into its comma-separated parts ("--comms a,b --comms c").
std::vector<std::string> SplitCommas(const std::vector<std::string>& in);

// Parses comma-separated decimal ids into *out; false on anything that is not a number.
bool ParseIds(const std::vector<std::string>& in, std::vector<uint32_t>* out);

}  // namespace perflens
