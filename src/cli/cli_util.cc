#include "cli/cli_util.h"

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

}  // namespace perflens
