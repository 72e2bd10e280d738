#include "symbolize/source_line.h"

#include <fmt/format.h>

namespace perflens {

std::string FormatSrcline(const SourceLine& line, bool full_path) {
  if (!line.known()) return "??:0";
  std::string_view file = line.file;
  if (!full_path) {
    size_t slash = file.rfind('/');
    if (slash != std::string_view::npos) file.remove_prefix(slash + 1);
  }
  return fmt::format("{}:{}", file, line.line);
}

}  // namespace perflens
