// `perflens dump` (like `perf report -D` without the hex dump) and `perflens stats`
// (like `perf report --stats`).
#pragma once

#include <string>

#include "perfdata/perf_file.h"

namespace perflens {

// One line per record in delivery order: "<time> 0x<offset> [0x<size>]: PERF_RECORD_<TYPE> fields".
// Appends to *out in chunks through `flush` so that huge files stream.
Status DumpRecords(PerfFile& file, std::string* out, void (*flush)(std::string*));

// Record counts by type and per-evsel sample counts, laid out as perf report --stats.
Status PrintStats(PerfFile& file, std::string* out);

}  // namespace perflens
