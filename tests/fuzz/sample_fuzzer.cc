// libFuzzer target: FuzzSample (see fuzz_entries.h for the input layout).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return perflens::fuzz::FuzzSample(data, size);
}
