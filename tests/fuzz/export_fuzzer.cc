// libFuzzer target: FuzzExport (see fuzz_export.h for the input and its invariants).
#include "fuzz/fuzz_export.h"
#include "fuzz/fuzz_target.h"

PERFLENS_FUZZ_TARGET(FuzzExport)
