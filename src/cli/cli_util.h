// Small helpers shared by the perflens subcommands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perflens {

// Splits every "a,b" item into its comma-separated parts ("--comms a,b --comms c").
std::vector<std::string> SplitCommas(const std::vector<std::string>& in);

// Parses comma-separated decimal ids into *out; false on anything that is not a number.
bool ParseIds(const std::vector<std::string>& in, std::vector<uint32_t>* out);

}  // namespace perflens
