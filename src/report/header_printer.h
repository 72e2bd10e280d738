// FormatHeader: the text `perf report --header-only -i FILE` prints for a perf.data file
// (tools/perf/util/header.c perf_header__fprintf_info and the print_* feature
// functions, tools/perf/util/perf_event_attr_fprintf.c), as of perf 6.1.
//
// Known differences from perf 6.1 (deliberate or not worth the code):
//  * BPF_PROG_INFO entries are not decoded: perf's "# bpf_prog_info N: ..." lines become
//    one "# bpf_prog_info: N programs (not decoded)" line.
//  * perf stops decoding features at the first malformed one and then prints defaults
//    ("(null)", "0 kB") for the rest; we print every feature that decoded.
//  * -I CPU_TOPOLOGY: perf 6.1 guesses whether the core/socket id tail is present from
//    64-byte-aligned string sizes, so for writers that pad strings less it prints "Core
//    ID and Socket ID information is not available"; we print the ids that are there.
//  * -I NUMA cpu lists are printed as stored; perf re-formats them through a cpu map.
//  * "# captured on" uses stat() of the path; it is omitted for standard input.
#pragma once

#include <string>

#include "perfdata/perf_file.h"

namespace perflens {

struct HeaderFormatOptions {
  bool full = false;  // perf's -I: print CPU/NUMA/cache/memory/hybrid topology details
};

std::string FormatHeader(const PerfFile& file, const HeaderFormatOptions& options = {});

// One perf_event_attr as perf prints it after "name = X, ": ", type = 1, size = 128, ...".
std::string FormatEventAttrFields(const EventAttr& attr);

}  // namespace perflens
