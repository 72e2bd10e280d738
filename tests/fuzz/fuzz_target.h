// PERFLENS_FUZZ_TARGET(Entry): the libFuzzer entry point for one fuzz_entries.h entry.
// A broken invariant (the entry returned 1) traps, so libFuzzer keeps the input as a
// crash artifact like any sanitizer report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "fuzz/fuzz_entries.h"

#define PERFLENS_FUZZ_TARGET(entry)                                                              \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {                      \
    if (perflens::fuzz::entry(data, size) != 0) {                                                \
      std::fprintf(stderr, "==perflens== invariant broken (%s): %s\n", #entry,                   \
                   perflens::fuzz::LastFailure().c_str());                                       \
      __builtin_trap();                                                                          \
    }                                                                                            \
    return 0;                                                                                    \
  }
