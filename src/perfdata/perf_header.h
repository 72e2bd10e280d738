// PerfHeader: what perf.data says before its records: the byte order (magic), the file
// header (PERFILE2, legacy PERFFILE) or pipe header, the attrs with their sample ids
// (the Evlist), the feature sections (HeaderEnv), and the in-band header records of
// pipe mode (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID, EVENT_UPDATE). Sources:
// tools/perf/util/header.c (perf_file_header, perf_header__read, try_all_file_abis,
// perf_event__process_attr / _feature / _event_update), spec A1–A6, A9–A11. All offsets
// are positions in perf.data.
//
// Owned by PerfFile. Parsing takes bytes, not a file: ParseBytes for a whole file in
// memory; ReadMagic + ParsePipeHeaderStart + ApplyHeaderRecord for a stream.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "base/result.h"
#include "perfdata/evlist.h"
#include "perfdata/features.h"
#include "perfdata/record.h"

namespace perflens {

class PerfHeader {
 public:
  // Bytes of the pipe header (magic, size): also where a pipe's records start.
  static constexpr uint64_t kPipeHeaderSize = 16;

  // Parses the header of the perf.data in `bytes[0, size)`, named `name` in messages:
  // the magic, then the file header with its attrs, ids and features, or the pipe
  // header and a pre-scan of the in-band header records. Errors (each naming the
  // offset): shorter than 16 bytes, bad magic, a bad header or attr size, sections
  // outside the file, too many attrs, a pipe file without HEADER_ATTR. Problems in
  // feature sections are warnings in env().warnings. Finish() is called.
  Status ParseBytes(const uint8_t* bytes, uint64_t size, const std::string& name);

  // A stream's first 8 bytes: sets the byte order. Error: bad magic.
  Status ReadMagic(const uint8_t* first8, const std::string& name);
  // A stream's first 16 bytes (after ReadMagic): a pipe-mode header. Error: a file-mode
  // header size.
  Status ParsePipeHeaderStart(const uint8_t* first16, const std::string& name);

  // Applies one pipe-mode header record (HEADER_ATTR, FEATURE, BUILD_ID, EVENT_UPDATE;
  // others are ignored). After a stream's first kernel record (`after_header`) a new
  // attr is refused with a warning in `warnings` (consumers size their tables by the
  // evsels). Malformed records are skipped (attrs and features warn in env()).
  void ApplyHeaderRecord(const RecordView& r, bool after_header, std::vector<std::string>* warnings);
  // The tracing data at perf.data offset `file_offset` (the TRACING_DATA feature, or
  // what follows a HEADER_TRACING_DATA record): kept in env().tracing_data, or a
  // warning naming the offset when it does not parse. The first one read is kept.
  void ApplyTracingData(std::span<const uint8_t> bytes, uint64_t file_offset);
  // After the last header record: evsel names and sample id positions.
  void Finish() { evlist_.Finish(env_.event_desc, env_.group_desc, env_.tracing_data.get()); }

  const Loader& loader() const { return loader_; }
  bool pipe_mode() const { return pipe_mode_; }
  bool legacy_v1() const { return legacy_v1_; }
  bool unfinished() const { return unfinished_; }
  uint64_t header_size() const { return header_size_; }
  uint64_t attr_size() const { return attr_size_; }
  // The data section: perf.data offset and bytes (a pipe: from 16 to the end).
  uint64_t data_offset() const { return data_offset_; }
  uint64_t data_size() const { return data_size_; }
  const Evlist& evlist() const { return evlist_; }
  const HeaderEnv& env() const { return env_; }

 private:
  Status ParseFileHeader();
  Status ParsePipeHeader();
  Status ParseFeatures(const std::vector<uint8_t>& bits_present);
  // Whether `nr` feature index entries at offset `at` all name sections after the
  // index and inside the file (tells a finished empty recording from an unfinished one).
  bool IsFeatureIndexAt(uint64_t at, size_t nr) const;
  void AddHeaderAttr(const RecordView& r);
  void ApplyEventUpdate(const RecordView& r);
  void ApplyIdIndex(const RecordView& r);

  // The bytes ParseBytes reads (not kept after it returns).
  const uint8_t* bytes_ = nullptr;
  uint64_t size_ = 0;
  std::string name_;

  Loader loader_;
  bool pipe_mode_ = false;
  bool legacy_v1_ = false;
  bool unfinished_ = false;
  bool too_many_attrs_ = false;
  uint64_t header_size_ = 0;
  uint64_t attr_size_ = 0;
  uint64_t data_offset_ = 0;
  uint64_t data_size_ = 0;
  // Where the header says the feature index is (data offset + the recorded data size,
  // before a truncated file's data size is cut to what is there).
  uint64_t feature_index_offset_ = 0;
  Evlist evlist_;
  HeaderEnv env_;
};

}  // namespace perflens
