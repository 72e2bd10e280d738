// What the speedscope and Firefox Profiler exports take from a resolved sample: its
// frames leaf first, as pprof's export picks them (export/pprof.h), and each frame's
// display name, as folded stacks name it (export/folded.h) without folded's
// separator rewriting, and JSON string text for both writers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "session/session.h"

namespace perflens {

// The sample's frames, leaf first: the sample's own location (report's self row)
// unless the callchain starts at the sample ip (as a kernel-recorded one does), then
// the callchain's frames (inline frames included, innermost first). Clears `frames`.
void SampleFrames(const ResolvedSample& s, std::vector<AddrLocation>* frames);

// A frame's name: the symbol's; an unresolved frame is "[basename of the dso name perf
// script prints]" (e.g. "[libc.so.6]") or "[unknown]" outside any map.
std::string FrameName(const AddrLocation& al);

// Appends `s` as a JSON string literal (quotes included): invalid UTF-8 bytes become
// U+FFFD (base/text_escape.h ValidUtf8), '"', '\\' and control bytes are escaped, so
// any name from a recording gives valid JSON.
void AppendJsonString(std::string_view s, std::string* out);

}  // namespace perflens
