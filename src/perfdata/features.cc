#include "perfdata/features.h"

namespace perflens {

Status ParseFeature(int feature, std::span<const uint8_t> payload, const Loader& ld, HeaderEnv* env) {
  return Status::Ok();
}

}  // namespace perflens
