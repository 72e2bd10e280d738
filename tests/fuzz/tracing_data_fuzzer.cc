// libFuzzer target: FuzzTracingData (see fuzz_entries.h for the input and its invariants).
#include "fuzz/fuzz_target.h"

PERFLENS_FUZZ_TARGET(FuzzTracingData)
