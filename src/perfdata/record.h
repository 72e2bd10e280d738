// RecordView and typed decoders for kernel and user records.
//
// A RecordView points into the mapped file (or into the decompression buffer) and is
// valid for the lifetime of the PerfFile that produced it. Decoders copy scalar fields
// into small structs and keep strings as string_views into the same bytes; nothing is
// allocated. Layouts: include/uapi/linux/perf_event.h (enum perf_event_type comments)
// and tools/lib/perf/include/perf/event.h for user records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/build_id.h"
#include "base/byte_order.h"
#include "perfdata/perf_event.h"

namespace perflens {

struct RecordView {
  uint32_t type = 0;
  uint16_t misc = 0;
  uint16_t size = 0;            // header.size, bytes including the 8-byte header
  const uint8_t* data = nullptr;  // the whole record, header first
  // Byte position of the record in perf.data (for a stream: bytes read before it), not
  // a DSO file offset. Records decompressed from a COMPRESSED record carry its position.
  uint64_t perf_data_offset = 0;
  bool compressed = false;      // came out of a COMPRESSED/COMPRESSED2 record
  // 0: `data` points into the file's bytes and lives as long as the PerfFile. Else the
  // reader owns the bytes (decompressed, or read from a pipe): valid only during the
  // callback that delivers the record.
  uint32_t chunk = 0;

  uint16_t cpumode() const { return misc & kMiscCpumodeMask; }
  const uint8_t* body() const { return data + 8; }
  size_t body_size() const { return size - 8u; }
};

// The sample_id trailer of non-sample records (A7), or the same fields of a sample.
struct SampleId {
  uint32_t pid = UINT32_MAX, tid = UINT32_MAX;
  uint64_t time = UINT64_MAX;
  uint64_t id = UINT64_MAX;
  uint64_t stream_id = UINT64_MAX;
  uint32_t cpu = UINT32_MAX;
};

// PERF_RECORD_MMAP and MMAP2. For MMAP (v1) prot/flags/maj/min/ino are zero and
// `is_mmap2` is false.
struct MmapEvent {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0;  // ip space: first mapped address in the process
  uint64_t len = 0;    // bytes
  uint64_t pgoff = 0;  // file offset of `start` (for the kernel map: the _text anchor)
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0, ino_generation = 0;
  uint32_t prot = 0, flags = 0;
  BuildId build_id;  // MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID
  std::string_view filename;
  bool is_mmap2 = false;
};

struct CommEvent {
  uint32_t pid = 0, tid = 0;
  std::string_view comm;
  bool exec = false;  // PERF_RECORD_MISC_COMM_EXEC
};

// FORK and EXIT share a layout.
struct TaskEvent {
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
};

struct LostEvent {
  uint64_t id = 0, lost = 0;
};

struct KsymbolEvent {
  uint64_t addr = 0;
  uint32_t len = 0;
  uint16_t ksym_type = 0, flags = 0;
  std::string_view name;
};

// PERF_RECORD_HEADER_BUILD_ID (67) and the entries of the BUILD_ID feature section.
struct BuildIdEvent {
  uint16_t misc = 0;
  int32_t pid = -1;  // -1 host, 0 default guest, else guest machine pid
  BuildId build_id;
  std::string_view filename;
};

// One entry of the recorded build-id table (feature BUILD_ID, or HEADER_BUILD_ID
// records in pipe mode), owned: HeaderEnv keeps it after the record bytes are gone.
struct BuildIdEntry {
  uint16_t misc = 0;  // cpumode in the low 3 bits
  int32_t pid = -1;   // -1 host, else guest machine pid
  BuildId build_id;
  std::string filename;
};

// Decoders return false when the record is too short for its fields or a string is not
// terminated inside it. `trailer_size` is the byte size of the sample_id trailer
// (0 without sample_id_all) so that strings are bounded before it.
bool DecodeMmap(const RecordView& r, const Loader& ld, MmapEvent* out);
bool DecodeMmap2(const RecordView& r, const Loader& ld, MmapEvent* out);
bool DecodeComm(const RecordView& r, const Loader& ld, CommEvent* out);
bool DecodeTask(const RecordView& r, const Loader& ld, TaskEvent* out);
bool DecodeLost(const RecordView& r, const Loader& ld, LostEvent* out);
bool DecodeKsymbol(const RecordView& r, const Loader& ld, KsymbolEvent* out);
// Decodes one build-id entry from `bytes` (header included). `size` receives the
// entry's header.size. Handles the build-id size byte (misc bit 15).
bool DecodeBuildIdEntry(const uint8_t* bytes, size_t avail, const Loader& ld, BuildIdEvent* out,
                        size_t* size);

// A string inside [p, p+n): up to the first NUL; false if there is no NUL.
bool BoundedString(const uint8_t* p, size_t n, std::string_view* out);

}  // namespace perflens
