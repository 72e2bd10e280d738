// ReadStatsText: every field of a ReadStats as one line, so that two reads of one file
// (ReadRecords and ReadRecordsParallel) are compared whole. No gtest: the fuzz targets
// include it too.
#pragma once

#include <iterator>
#include <string>

#include <fmt/format.h>

#include "perfdata/reader_options.h"

namespace perflens::testutil {

inline std::string ReadStatsText(const ReadStats& s) {
  std::string out = fmt::format(
      "total {} unknown_type {} unknown {} first_unknown {}@{:#x} unordered {} comp {} decomp {} bad {} stop [{}]",
      s.nr_records_total, s.nr_unknown_type, s.nr_unknown_records, s.first_unknown_type, s.first_unknown_offset,
      s.nr_unordered, s.compressed_bytes, s.decompressed_bytes, s.nr_bad_records, s.stopped ? s.stopped->message : "");
  for (const std::string& w : s.warnings) out += " [" + w + "]";
  for (size_t i = 0; i < std::size(s.nr_records); ++i)
    if (s.nr_records[i]) out += fmt::format(" t{}={}", i, s.nr_records[i]);
  return out;
}

}  // namespace perflens::testutil
