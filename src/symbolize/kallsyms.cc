#include "symbolize/kallsyms.h"

namespace perflens {

// Stub: replaced by the real parser.
Result<KallsymsTables> ParseKallsyms(std::string_view, std::string_view, int64_t) {
  return Err("kallsyms parser not implemented");
}
std::string RunningKernelBuildIdHex() { return ""; }

}  // namespace perflens
