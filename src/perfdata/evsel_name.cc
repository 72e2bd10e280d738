#include "perfdata/perf_file.h"

namespace perflens {

std::string SynthesizeEvselName(const EventAttr& attr) {
  return fmt::format("type{}:config{:#x}", attr.type, attr.config);
}

}  // namespace perflens
