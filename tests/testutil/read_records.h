// ReadAll: opens perf.data bytes with PerfFile::FromBytes and collects every delivered
// record as an owned copy (records decompressed from COMPRESSED records live only while
// ReadRecords runs), for tests that inspect records after reading.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "perfdata/perf_file.h"
#include "testutil/perf_data_writer.h"

namespace perflens::testutil {

struct OwnedRecord {
  uint32_t type = 0;
  uint16_t misc = 0;
  uint64_t perf_data_offset = 0;
  bool compressed = false;
  std::vector<uint8_t> bytes;  // the whole record, header first

  RecordView view() const {
    RecordView r;
    r.type = type;
    r.misc = misc;
    r.size = static_cast<uint16_t>(bytes.size());
    r.data = bytes.data();
    r.perf_data_offset = perf_data_offset;
    r.compressed = compressed;
    return r;
  }
};

struct ReadResult {
  std::unique_ptr<PerfFile> file;
  std::vector<OwnedRecord> records;
  ReadStats stats;

  // Records of one type, in delivery order.
  std::vector<const OwnedRecord*> OfType(uint32_t type) const {
    std::vector<const OwnedRecord*> out;
    for (const auto& r : records)
      if (r.type == type) out.push_back(&r);
    return out;
  }
};

inline Result<std::unique_ptr<PerfFile>> OpenBytes(std::vector<uint8_t> bytes, const ReaderOptions& opts = {}) {
  return PerfFile::FromBytes(MappedFile::FromBuffer(std::move(bytes), "<test>"), opts);
}

// Opens and reads `bytes`; fails the current test (and returns an empty file) if
// FromBytes or ReadRecords returns an error.
inline ReadResult ReadAll(std::vector<uint8_t> bytes, const ReaderOptions& opts = {}) {
  ReadResult out;
  auto f = OpenBytes(std::move(bytes), opts);
  if (!f.ok()) {
    ADD_FAILURE() << "FromBytes: " << f.error().message;
    return out;
  }
  out.file = std::move(*f);
  Status s = out.file->ReadRecords(
      [&](const RecordView& r) {
        out.records.push_back({r.type, r.misc, r.perf_data_offset, r.compressed,
                               std::vector<uint8_t>(r.data, r.data + r.size)});
      },
      &out.stats);
  if (!s.ok()) ADD_FAILURE() << "ReadRecords: " << s.error().message;
  return out;
}

// The four layouts every reader test runs in: {file, pipe} x {little, big endian}.
struct Layout {
  PerfDataWriter::Mode mode;
  Endian endian;
};

inline std::string LayoutName(const testing::TestParamInfo<Layout>& info) {
  return std::string(info.param.mode == PerfDataWriter::kFile ? "File" : "Pipe") +
         (info.param.endian == Endian::kLittle ? "Little" : "Big");
}

inline auto AllLayouts() {
  return testing::Values(Layout{PerfDataWriter::kFile, Endian::kLittle}, Layout{PerfDataWriter::kFile, Endian::kBig},
                         Layout{PerfDataWriter::kPipe, Endian::kLittle}, Layout{PerfDataWriter::kPipe, Endian::kBig});
}

class LayoutTest : public testing::TestWithParam<Layout> {
 protected:
  PerfDataWriter Writer() const { return PerfDataWriter(GetParam().mode, GetParam().endian); }
  bool big() const { return GetParam().endian == Endian::kBig; }
  bool pipe() const { return GetParam().mode == PerfDataWriter::kPipe; }
};

}  // namespace perflens::testutil
