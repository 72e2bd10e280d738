// Fuzz entry points shared by the libFuzzer targets (tests/fuzz/*_fuzzer.cc) and the
// regression replay test (tests/hardening/fuzz_regression_test.cc), so that a crash
// input found by a fuzzer is replayed through exactly the same code in a normal build.
// Header-only: the normal build has no library for tests/fuzz.
//
// Every entry takes untrusted bytes and must return without crashing, hanging or
// allocating more than a small multiple of the input (plus fixed caps). None of them
// reads a real file: the report entry points symbolization at an empty --symfs.
// Each returns 0 when the invariants it checks held (fuzz_invariants.h) and 1 with
// LastFailure() set otherwise: the fuzzers trap on 1, the regression replay asserts 0.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "base/worker_pool.h"
#include "base/text_escape.h"
#include "fuzz/fuzz_invariants.h"
#include "testutil/read_stats_text.h"
#include "perfdata/features.h"
#include "perfdata/perf_event.h"
#include "perfdata/perf_file.h"
#include "perfdata/record.h"
#include "perfdata/sample.h"
#include "perfdata/sample_read.h"
#include "report/diff.h"
#include "report/dump_printer.h"
#include "report/header_printer.h"
#include "report/report.h"
#include "report/script_printer.h"
#include "report/json_printer.h"
#include "report/stdio_printer.h"
#include "report/tracepoint_formatter.h"
#include "perfdata/tracing_data.h"
#include "symbolize/dwarf_index.h"
#include "symbolize/jitdump.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_index.h"
#include "symbolize/perf_map.h"
#include "unwind/unwinder.h"

namespace perflens::fuzz {

// Cap on COMPRESSED output in the fuzzers: small, so that zip bombs stop quickly.
inline constexpr uint64_t kFuzzDecompressCap = 4 << 20;

// Folds values into a sink so that the compiler keeps every load (ASan checks them).
inline void Sink(uint64_t v) {
  static volatile uint64_t sink;
  sink = sink + v;
}

inline void TouchArray(const U64Array& a) {
  for (uint64_t i = 0; i < a.size; ++i) Sink(a[i]);
}

inline void TouchBytes(const uint8_t* p, uint64_t n) {
  uint64_t s = 0;
  for (uint64_t i = 0; i < n; ++i) s += p[i];
  Sink(s);
}

inline void TouchSample(const Sample& s) {
  TouchArray(s.read_values);
  TouchArray(s.callchain);
  TouchArray(s.branch_entries);
  TouchArray(s.branch_counters);
  TouchArray(s.user_regs);
  TouchArray(s.intr_regs);
  if (s.raw_data) TouchBytes(s.raw_data, s.raw_size);
  if (s.user_stack) TouchBytes(s.user_stack, s.user_stack_size);
  if (s.aux_data) TouchBytes(s.aux_data, s.aux_size);
  Sink(s.ip + s.pid + s.time + s.period + s.branch_nr);
}

// Decodes one record with every decoder that applies to its type.
inline void TouchRecord(const PerfFile& f, const RecordView& r) {
  const Loader& ld = f.loader();
  TouchBytes(r.data, r.size);
  Sink(f.RecordTime(r));
  switch (r.type) {
    case kRecordSample: {
      Sample s;
      const Evsel* ev = nullptr;
      if (f.ParseSample(r, &s, &ev) == SampleError::kNone && ev) TouchSample(s);
      break;
    }
    case kRecordMmap:
    case kRecordMmap2: {
      MmapEvent m;
      if ((r.type == kRecordMmap ? DecodeMmap(r, ld, &m) : DecodeMmap2(r, ld, &m))) Sink(m.filename.size());
      break;
    }
    case kRecordComm: {
      CommEvent c;
      if (DecodeComm(r, ld, &c)) Sink(c.comm.size());
      break;
    }
    case kRecordFork:
    case kRecordExit: {
      TaskEvent t;
      if (DecodeTask(r, ld, &t)) Sink(t.pid);
      break;
    }
    case kRecordLost: {
      LostEvent l;
      if (DecodeLost(r, ld, &l)) Sink(l.lost);
      break;
    }
    case kRecordKsymbol: {
      KsymbolEvent k;
      if (DecodeKsymbol(r, ld, &k)) Sink(k.name.size());
      break;
    }
    default: break;
  }
}

// What one ReadRecords pass delivered, checked view by view: size >= 8 and equal to
// the header's, and a view with chunk 0 lies inside the file's bytes at its
// perf_data_offset (a decompressed one is never chunk 0).
struct Delivered {
  uint64_t by_type[128] = {};
  uint64_t unknown_type = 0, total = 0;
};

inline void CheckView(const PerfFile& f, const uint8_t* begin, size_t size, const RecordView& r, Delivered* d,
                      Invariants* inv) {
  ++d->total;
  if (r.type < 128) ++d->by_type[r.type];
  else ++d->unknown_type;
  if (!inv->ok()) return;
  if (!inv->Expect(r.size >= 8 && r.data != nullptr, "record at {:#x} delivered with size {}", r.perf_data_offset, r.size))
    return;
  if (r.chunk == 0) {
    const bool inside = r.data >= begin && r.data <= begin + size && r.size <= static_cast<size_t>(begin + size - r.data);
    if (!inv->Expect(inside, "record at {:#x} (chunk 0, size {}) lies outside the {}-byte buffer", r.perf_data_offset,
                     r.size, size))
      return;
    inv->Expect(!r.compressed, "decompressed record at {:#x} has chunk 0", r.perf_data_offset);
    inv->Expect(static_cast<uint64_t>(r.data - begin) == r.perf_data_offset, "record at buffer offset {:#x} says perf_data_offset {:#x}",
                r.data - begin, r.perf_data_offset);
  }
  const Loader& ld = f.loader();
  inv->Expect(ld.U16(r.data + 6) == r.size && ld.U32(r.data) == r.type,
              "record at {:#x}: view type {} size {}, its header says type {} size {}", r.perf_data_offset, r.type, r.size,
              ld.U32(r.data), ld.U16(r.data + 6));
}

// The records delivered are the ones ReadStats counts, type by type.
inline void CheckCounts(const Delivered& d, const ReadStats& stats, Invariants* inv) {
  inv->Expect(d.total == stats.nr_records_total, "{} records delivered, ReadStats counts {}", d.total,
              stats.nr_records_total);
  inv->Expect(d.unknown_type == stats.nr_unknown_type, "{} records of types >= 128 delivered, ReadStats counts {}",
              d.unknown_type, stats.nr_unknown_type);
  for (int t = 0; t < 128; ++t)
    if (!inv->Expect(d.by_type[t] == stats.nr_records[t], "{} records of type {} delivered, ReadStats counts {}",
                     d.by_type[t], t, stats.nr_records[t]))
      return;
}

// ReadRecordsParallel against ReadRecords on one file (the ordered read's records and
// stats): the same records in the same order, the same stats, each decoded sample
// decoded from its own record. Windows and ranges of 64 bytes and more cut the input
// at every FINISHED_ROUND-looking 8 bytes, so wrong guesses are the common case.
inline void CheckParallelRead(const uint8_t* data, size_t size, uint64_t cap,
                              const std::vector<std::pair<uint64_t, uint32_t>>& want, const ReadStats& want_stats,
                              Invariants* inv) {
  static WorkerPool pool(1);
  for (uint64_t window : {uint64_t{64}, uint64_t{4096}}) {
    ReaderOptions o;
    o.max_decompressed_bytes = cap;
    auto f = PerfFile::FromBytes(MappedFile::FromBuffer(std::vector<uint8_t>(data, data + size)), o);
    if (!f.ok() || !(*f)->CanReadInParallel()) return;
    PerfFile& file = **f;
    PerfFile::ParallelRead pr;
    pr.pool = &pool;
    pr.window_bytes = window;
    pr.range_bytes = 64;
    Sample scratch[2];
    pr.decode = [&file, &scratch](size_t worker, const RecordView& r, PerfFile::DecodedSample* out) {
      SampleBasics b;
      const Evsel* ev = nullptr;
      if (file.ParseSampleBasics(r, &b, &ev, &scratch[worker]) != SampleError::kNone || !ev) return false;
      std::memcpy(out->bytes, &r.perf_data_offset, 8);
      std::memcpy(out->bytes + 8, &b.ip, 8);
      return true;
    };
    std::vector<std::pair<uint64_t, uint32_t>> got;
    got.reserve(want.size());
    ReadStats stats;
    Sample check;
    Status s = file.ReadRecordsParallel(
        [&](const RecordView& r, const PerfFile::DecodedSample* d) {
          got.push_back({r.perf_data_offset, r.type});
          if (!d) return;
          uint64_t offset, ip;
          std::memcpy(&offset, d->bytes, 8);
          std::memcpy(&ip, d->bytes + 8, 8);
          SampleBasics b;
          const Evsel* ev = nullptr;
          inv->Expect(offset == r.perf_data_offset && r.type == kRecordSample &&
                          file.ParseSampleBasics(r, &b, &ev, &check) == SampleError::kNone && b.ip == ip,
                      "a decoding delivered with the record at {:#x} is not that record's", r.perf_data_offset);
        },
        pr, &stats);
    if (!inv->Expect(s.ok(), "parallel read failed: {}", s.ok() ? "" : s.error().message)) return;
    inv->Expect(testutil::ReadStatsText(stats) == testutil::ReadStatsText(want_stats), "parallel read (window {}): {}; one thread: {}",
                window, testutil::ReadStatsText(stats), testutil::ReadStatsText(want_stats));
    if (!inv->Expect(got == want, "parallel read (window {}): {} records; one thread: {}", window, got.size(),
                     want.size()))
      return;
  }
}

// The whole reader: header, attrs, features, then every record, ordered and unordered,
// and ordered on every core (CheckParallelRead).
// `cap`: ReaderOptions::max_decompressed_bytes (0: the reader's default).
inline int FuzzReaderWithCap(const uint8_t* data, size_t size, uint64_t cap) {
  Invariants inv;
  std::optional<ReadStats> first;
  for (bool ordered : {true, false}) {
    ReaderOptions o;
    o.ordered = ordered;
    o.max_decompressed_bytes = cap;
    MappedFile bytes = MappedFile::FromBuffer(std::vector<uint8_t>(data, data + size));
    const uint8_t* begin = bytes.data();  // the vector's buffer moves with it
    auto f = PerfFile::FromBytes(std::move(bytes), o);
    if (!f.ok()) return inv.Finish();
    PerfFile& file = **f;
    for (const Evsel& ev : file.evsels()) Sink(ev.ids.size() + ev.name.size());
    ReadStats stats;
    Delivered d;
    std::vector<std::pair<uint64_t, uint32_t>> order;  // (offset, type) as delivered
    Status s = file.ReadRecords(
        [&](const RecordView& r) {
          CheckView(file, begin, size, r, &d, &inv);
          TouchRecord(file, r);
          order.push_back({r.perf_data_offset, r.type});
        },
        &stats);
    Sink(s.ok() + stats.nr_records_total);
    if (!s.ok()) continue;
    CheckCounts(d, stats, &inv);
    // Not for the decompression bombs (cap 0): they would run to the cap twice more in
    // the same Decompressor code, on the thread that orders.
    if (ordered && cap != 0) CheckParallelRead(data, size, cap, order, stats, &inv);
    const uint64_t limit = cap ? cap : std::max<uint64_t>(256ULL << 20, 100 * stats.compressed_bytes);
    // The cap is checked after each 1 MiB window.
    inv.Expect(stats.decompressed_bytes <= limit + (1 << 20), "{} bytes decompressed, cap {}",
               stats.decompressed_bytes, limit);
    if (!first) {
      first = std::move(stats);
      continue;
    }
    // Ordering changes when records come, not which.
    inv.Expect(first->nr_records_total == stats.nr_records_total && first->nr_bad_records == stats.nr_bad_records &&
                   first->decompressed_bytes == stats.decompressed_bytes,
               "ordered read: {} records ({} bad, {} bytes decompressed), unordered: {} ({} bad, {})",
               first->nr_records_total, first->nr_bad_records, first->decompressed_bytes, stats.nr_records_total,
               stats.nr_bad_records, stats.decompressed_bytes);
  }
  return inv.Finish();
}

inline int FuzzReader(const uint8_t* data, size_t size) { return FuzzReaderWithCap(data, size, kFuzzDecompressCap); }

// The reader with its default decompression cap (max(256 MiB, 100x the compressed
// bytes)): zip bombs run to the cap, in 1 MiB windows whose chunks are freed as their
// records are delivered, so memory stays bounded (libFuzzer's -rss_limit_mb checks).
inline int FuzzDecompress(const uint8_t* data, size_t size) { return FuzzReaderWithCap(data, size, 0); }

// DecodeSample with the attr taken from the input:
//   [0] flags: bit 0 = cross-endian loader, bit 1 = sample_id_all
//   [1..8] sample_type, [9..16] read_format, [17..24] branch_sample_type,
//   [25..32] sample_regs_user, [33..40] sample_regs_intr, [41..42] misc,
//   rest: the record body after the 8-byte header (header.size = 8 + body, capped).
inline constexpr size_t kSamplePrefix = 43;
// CFI rows made of the fuzz input, for driving the unwinder with arbitrary rules: the
// row for a pc is read from a window of `bytes` chosen by the pc (a pc whose window
// starts with 0 has no row).
class FuzzRows : public RowFinder {
 public:
  FuzzRows(const uint8_t* bytes, size_t size) : bytes_(bytes), size_(size) {}
  const CfiRow* Find(uint64_t pc, int nregs, UnwindStop* why) override {
    constexpr size_t kWindow = 96;
    if (size_ < kWindow || nregs <= 0) {
      *why = UnwindStop::kNoCfi;
      return nullptr;
    }
    const uint8_t* w = bytes_ + (pc * 0x9E3779B97F4A7C15ULL >> 32) % (size_ - kWindow + 1);
    if (w[0] == 0) {
      *why = UnwindStop::kNoCfi;
      return nullptr;
    }
    row_ = CfiRow{};
    row_.signal_frame = w[0] & 1;
    row_.ra_reg = static_cast<uint8_t>(w[1] % (nregs + 1));  // sometimes past the arch's registers
    row_.cfa_reg = static_cast<uint8_t>(w[2] % kMaxDwarfRegs);
    row_.cfa_offset = static_cast<int8_t>(w[3]);
    // Ops: atoms from the window (any value: unsupported ones must fail cleanly).
    row_.nops = static_cast<uint8_t>(w[4] % 12);
    for (uint8_t i = 0; i < row_.nops; ++i) {
      CfiOp& op = row_.ops[i];
      op.atom = w[8 + i];
      op.reg = static_cast<uint8_t>(w[20 + i] % 40);
      op.number = static_cast<uint64_t>(static_cast<int8_t>(w[32 + i]));
      op.byte_offset = static_cast<uint16_t>(i * 2);
    }
    row_.cfa_is_expr = w[5] & 1;
    row_.cfa_op_begin = 0;
    row_.cfa_op_count = row_.nops;
    for (int r = 0; r < nregs && r < kMaxDwarfRegs; ++r) {
      const uint8_t b = w[44 + r % 48];
      CfiRule& rule = row_.regs[r];
      rule.kind = static_cast<CfiRuleKind>(b % 8);
      rule.reg = static_cast<uint8_t>((b >> 3) % kMaxDwarfRegs);
      rule.offset = static_cast<int8_t>(w[44 + (r + 7) % 48]) * 8;
      rule.push_cfa = b & 0x80;
      rule.op_begin = static_cast<uint8_t>(b % (row_.nops + 1));
      rule.op_count = static_cast<uint8_t>(row_.nops - rule.op_begin);
    }
    return &row_;
  }

 private:
  const uint8_t* bytes_;
  size_t size_;
  CfiRow row_;
};

// The unwinder over a decoded sample's user registers and stack, with rows from the
// input, for each arch: bounded frames, a valid stop, no read outside the record.
inline void UnwindFuzzSample(const Sample& s, const EventAttr& attr, const Loader& ld, const uint8_t* bytes,
                             size_t size, Invariants* inv) {
  if (!(attr.sample_type & (kSampleRegsUser | kSampleStackUser))) return;
  FuzzRows rows(bytes, size);
  std::vector<uint64_t> ips;
  for (UnwindArch arch : {UnwindArch::kX86_64, UnwindArch::kI386, UnwindArch::kAarch64}) {
    UnwindInput in;
    in.arch = arch;
    in.regs_abi = s.user_regs_abi;
    in.regs_mask = attr.sample_regs_user;
    in.regs = s.user_regs;
    in.stack = s.user_stack;
    in.stack_size = s.user_stack_size;
    in.stack_dyn_size = s.user_stack_dyn_size;
    in.swap = ld.swap;
    for (int max_frames : {1, 127, kMaxUnwindFrames + 1}) {
      ips.clear();
      UnwindOptions options;
      options.perf_stack_end = max_frames != 127;
      const UnwindStop stop = UnwindWith(in, max_frames, rows, &ips, options);
      inv->Expect(stop < UnwindStop::kCount, "unwind stop {} out of range", static_cast<int>(stop));
      inv->Expect(ips.size() <= static_cast<size_t>(std::min(max_frames, kMaxUnwindFrames)),
                  "{} frames unwound with max {}", ips.size(), max_frames);
      for (uint64_t ip : ips) Sink(ip);
    }
  }
}

inline int FuzzSample(const uint8_t* data, size_t size) {
  if (size < kSamplePrefix) return 0;
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, data + at, 8);
    return v;
  };
  Loader ld{(data[0] & 1) != 0};
  EventAttr attr;
  attr.size = 136;
  attr.sample_type = u64(1);
  attr.read_format = u64(9);
  attr.branch_sample_type = u64(17);
  attr.sample_regs_user = u64(25);
  attr.sample_regs_intr = u64(33);
  attr.sample_period = 4000;
  if (data[0] & 2) attr.flags |= 1ULL << 18;
  size_t body = std::min<size_t>(size - kSamplePrefix, 0xffff - 8);
  std::vector<uint8_t> rec(8 + body);  // exact size so ASan sees any over-read
  std::memcpy(rec.data() + 8, data + kSamplePrefix, body);
  RecordView r;
  r.type = kRecordSample;
  r.misc = static_cast<uint16_t>(data[41] | data[42] << 8);
  r.size = static_cast<uint16_t>(rec.size());
  r.data = rec.data();
  Sample s;
  Invariants inv;
  if (DecodeSample(r, attr, ld, &s) == SampleError::kNone) {
    TouchSample(s);
    // Every array and pointer a decoded sample holds lies inside its record.
    const uint8_t* b = rec.data();
    const uint64_t n = rec.size();
    auto inside = [&](const char* what, const uint8_t* p, uint64_t bytes) {
      if (bytes == 0) return;
      inv.Expect(p >= b && p <= b + n && bytes <= static_cast<uint64_t>(b + n - p),
                 "sample {} ({} bytes) outside the {}-byte record", what, bytes, n);
    };
    auto array = [&](const char* what, const U64Array& a) {
      inv.Expect(a.size <= n / 8, "sample {} has {} elements in a {}-byte record", what, a.size, n);
      if (a.size <= n / 8) inside(what, a.data, a.size * 8);
    };
    array("read_values", s.read_values);
    array("callchain", s.callchain);
    array("branch_entries", s.branch_entries);
    array("branch_counters", s.branch_counters);
    array("user_regs", s.user_regs);
    array("intr_regs", s.intr_regs);
    if (s.raw_data) inside("raw data", s.raw_data, s.raw_size);
    if (s.user_stack) inside("user stack", s.user_stack, s.user_stack_size);
    if (s.aux_data) inside("aux data", s.aux_data, s.aux_size);
    // The read_format block as the PERF_SAMPLE_READ split reads it (SampleRead): GROUP's
    // nr values (DecodeSample checked they fit), or one.
    if (attr.sample_type & kSampleRead) {
      const SampleRead read(s.read_values, attr.read_format);
      if (read.group())
        inv.Expect(!s.read_values.empty() && read.size() == s.read_values[0], "read_format GROUP: {} of nr values",
                   read.size());
      else
        inv.Expect(read.size() == 1, "read_format without GROUP: {} values", read.size());
      for (uint64_t i = 0; i < read.size() && i < 4096; ++i) Sink(read.at(i).value + read.at(i).id);
    }
    UnwindFuzzSample(s, attr, ld, data, size, &inv);
  }
  SampleId sid;
  r.type = kRecordMmap;
  if (DecodeSampleIdTrailer(r, attr.sample_type, ld, &sid)) Sink(sid.time);
  return inv.Finish();
}

// ParseFeature: [0] feature number, [1] bit 0 = cross-endian, rest = the section payload.
inline int FuzzFeature(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Loader ld{(data[1] & 1) != 0};
  std::vector<uint8_t> payload(data + 2, data + size);
  HeaderEnv env;
  Status s = ParseFeature(data[0], payload, ld, &env);
  Sink(s.ok() + env.build_ids.size() + env.event_desc.size() + env.cmdline.size());
  return 0;  // ParseFeature's result has no cross-check of its own; sanitizers only
}

// Byte 0 even: the rest is a tracing-data container (perfdata/tracing_data.h); what
// parses holds no more text than the input had. Odd: the rest is the payload of a
// fixed event with a __data_loc string, formatted through libtraceevent after
// TracepointFormatter's size checks (hostile format files are not fed to libtraceevent
// here: that would fuzz libtraceevent's parser, not perflens).
inline int FuzzTracingData(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  Invariants inv;
  if ((data[0] & 1) == 0) {
    auto td = ParseTracingData(rest, 0x40);
    if (!td.ok()) {
      inv.Expect(td.error().message.rfind("tracing data at 0x", 0) == 0, "error names no offset: {}",
                 td.error().message);
      return inv.Finish();
    }
    size_t text = td->header_page.size() + td->header_event.size() + td->kallsyms.size() +
                  td->printk_formats.size() + td->saved_cmdlines.size() + td->version.size();
    // A system's name is in the input once and in each of its events' formats.
    std::set<std::string> systems;
    for (const auto* list : {&td->ftrace_formats, &td->event_formats})
      for (const TracingEventFormat& f : *list) {
        text += f.text.size();
        if (systems.insert(std::string(f.system)).second) text += f.system.size();
      }
    inv.Expect(td->size <= rest.size(), "container size {} past the input's {}", td->size, rest.size());
    inv.Expect(text <= rest.size(), "{} bytes of text from {} bytes of input", text, rest.size());
    for (const TracingEventFormat& f : td->event_formats)
      if (f.id) Sink(td->EventName(*f.id).size());
    return inv.Finish();
  }
  static TracepointFormatter* formatter = [] {
    TracingData td;
    td.version = "0.6";
    TracingEventFormat f;
    f.system = "demo";
    f.text =
        "name: demo\nID: 7\nformat:\n"
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
        "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
        "\tfield:__data_loc char[] label;\toffset:12;\tsize:4;\tsigned:0;\n\n"
        "print fmt: \"value=%d label=%s\", REC->value, __get_str(label)\n";
    td.event_formats.push_back(f);
    return new TracepointFormatter(td);
  }();
  std::string out;
  const bool ok = formatter->Format(7, 0, rest, &out);
  inv.Expect(ok || out.empty(), "a refused payload printed {:?}", out);
  inv.Expect(!ok || rest.size() >= 16, "a {}-byte payload was formatted", rest.size());
  Sink(out.size());
  return inv.Finish();
}

inline int FuzzPerfMap(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t bad = 0;
  SymbolTable t = ParsePerfMap(text, &bad);
  Invariants inv;
  for (uint64_t addr : {uint64_t{0}, uint64_t{0x1000}, uint64_t{0x7f0000001000}, ~uint64_t{0}})
    if (const Symbol* sym = t.Find(addr)) {
      Sink(sym->name.size());
      inv.Expect(sym->start <= addr, "Find({:#x}) gave a symbol starting at {:#x}", addr, sym->start);
    }
  Sink(bad);
  return inv.Finish();
}

inline int FuzzJitdump(const uint8_t* data, size_t size) {
  auto d = ParseJitdump(std::span<const uint8_t>(data, size));
  Invariants inv;
  if (d.ok()) {
    inv.Expect(d->bad_records + d->code_loads + d->code_moves <= size / 16, "{} records counted in {} bytes",
               d->bad_records + d->code_loads + d->code_moves, size);
    for (uint64_t addr : {uint64_t{0}, uint64_t{0x1000}, uint64_t{0x7f0000001000}, ~uint64_t{0}})
      if (const Symbol* sym = d->symbols.Find(addr)) {
        Sink(sym->name.size());
        inv.Expect(sym->start <= addr, "Find({:#x}) gave a symbol starting at {:#x}", addr, sym->start);
      }
  }
  return inv.Finish();
}

// The key an index's header names (KallsymsIndexKey's fields at their header offsets),
// so that fuzzed index bytes get past the key check to the tables and entries.
inline KallsymsIndexKey IndexKeyFromHeader(std::span<const uint8_t> b) {
  KallsymsIndexKey k;
  if (b.size() < 128) return k;
  std::memcpy(&k.dev, b.data() + 16, 8);
  std::memcpy(&k.ino, b.data() + 24, 8);
  std::memcpy(&k.size, b.data() + 32, 8);
  std::memcpy(&k.mtime_ns, b.data() + 40, 8);
  uint32_t ref_len;
  std::memcpy(&ref_len, b.data() + 60, 4);
  k.ref_symbol.assign(reinterpret_cast<const char*>(b.data()) + 96, std::min<uint32_t>(ref_len, 32));
  return k;
}

// Input: kallsyms text, parsed with and without a shift; its index (kallsyms_index.h)
// must answer lookups as the parse. The same bytes are then opened as an index (with
// the key its header names, the bytes themselves as the text): refused or in bounds.
inline int FuzzKallsyms(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Invariants inv;
  for (int64_t delta : {int64_t{0}, int64_t{0x1000}}) {
    auto t = ParseKallsyms(text, "_text", delta);
    if (!t.ok()) continue;
    if (const Symbol* sym = t->kernel.Find(0xffffffff81000000ULL)) {
      Sink(sym->name.size());
      inv.Expect(sym->start <= 0xffffffff81000000ULL, "Find(0xffffffff81000000) gave a symbol at {:#x}", sym->start);
    }
    Sink(t->modules.size() + t->ref_addr);
  }
  auto owned = std::make_shared<KallsymsText>();
  owned->read = text;
  const KallsymsIndexKey key{1, 2, size, 3, "_text"};
  if (auto parsed = ParseKallsyms(owned, "_text", 0); parsed.ok()) {
    auto bytes = SerializeKallsymsIndex(*parsed, owned->read, key);
    inv.Expect(bytes.ok(), "a parse could not be indexed: {}", bytes.ok() ? "" : bytes.error().message);
    if (bytes.ok()) {
      auto index = std::make_shared<const MappedFile>(
          MappedFile::FromBuffer(std::vector<uint8_t>(bytes->begin(), bytes->end())));
      auto lazy = KallsymsTablesFromIndex(index, owned, key);
      inv.Expect(lazy.ok(), "its own index was refused: {}", lazy.ok() ? "" : lazy.error().message);
      if (lazy.ok()) {
        inv.Expect(lazy->kernel.size() == parsed->kernel.size() && lazy->modules.size() == parsed->modules.size(),
                   "index tables differ in size");
        for (const Symbol& s : parsed->kernel.symbols()) {
          for (uint64_t a : {s.start, s.end - 1}) {
            const Symbol* want = parsed->kernel.Find(a);
            const Symbol* got = lazy->kernel.Find(a);
            inv.Expect((want == nullptr) == (got == nullptr) &&
                           (!want || (want->start == got->start && want->end == got->end && want->name == got->name &&
                                      want->index == got->index)),
                       "index lookup at {:#x} differs from the parse", a);
          }
        }
      }
    }
  }
  auto raw = std::make_shared<const MappedFile>(MappedFile::FromBuffer(std::vector<uint8_t>(data, data + size)));
  if (auto t = KallsymsTablesFromIndex(raw, owned, IndexKeyFromHeader(raw->bytes())); t.ok()) {
    for (const Symbol& s : t->kernel.symbols()) Sink(s.name.size());
    for (const auto& [name, table] : t->modules)
      if (const Symbol* s = table.Find(0xffffffffc0000000ULL)) Sink(s->name.size());
    Sink(t->kernel.Find(0xffffffff81000000ULL) != nullptr);
  }
  return inv.Finish();
}

// A file for FuzzDwarf's input (DwarfIndex::Open reads a path), created once per process.
inline const std::string& DwarfInputPath() {
  static const std::string path = [] {
    const char* tmp = getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/perflens-fuzz-dwarf-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    int fd = mkstemp(buf.data());
    if (fd < 0) return std::string("/nonexistent-perflens-dwarf");
    close(fd);
    atexit([] { unlink(DwarfInputPath().c_str()); });
    return std::string(buf.data());
  }();
  return path;
}

// The ELF symbols FuzzDwarf's index sees: one of four per 256-byte block from 0x400
// up (so inline frames get interned under several ELF symbols), none below.
inline const Symbol* DwarfFuzzSymbolAt(uint64_t dso_vaddr) {
  static const std::array<Symbol, 4> syms = [] {
    std::array<Symbol, 4> s;
    static const char* const kNames[] = {"main", "f1", "_Z3mixj", "step"};
    for (size_t i = 0; i < s.size(); ++i) {
      s[i].name = kNames[i];
      s[i].start = 0x400 + 0x100 * i;
      s[i].end = s[i].start + 0x100;
      s[i].type = 2;  // STT_FUNC
      s[i].index = static_cast<uint32_t>(i);
    }
    return s;
  }();
  if (dso_vaddr < 0x400) return nullptr;
  return &syms[(dso_vaddr >> 8) & 3];
}

inline bool DwarfTextOk(std::string_view what, std::string_view s, Invariants* inv) {
  TouchBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  if (!inv->Expect(s.find('\0') == std::string_view::npos, "{} {:?} holds a NUL byte", what, std::string(s)))
    return false;
  return CheckNoControlBytes(what, EscapeControl(s), false, inv);
}

// DwarfIndex (line tables and inline trees) on an ELF file with DWARF: Open, then
// FindLine and AppendFrames at the start, middle, last byte and end of every compile
// unit range (the first 64), at 0 and ~0, and at the last sixteen u64 values of the
// input. Checks: an Open error and the skipped parts (problem()) name the file; every
// lookup returns; 1 to kMaxFrames frames, inline_depth counting down to 0, each with a
// symbol (the ELF one, or an interned inline one numbered from first_symbol_index); the
// innermost frame's line is FindLine's; names and files hold no NUL and print without
// control bytes.
inline int FuzzDwarf(const uint8_t* data, size_t size) {
  if (size < 52) return 0;  // smaller than an ELF header
  const std::string& path = DwarfInputPath();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  Invariants inv;
  constexpr uint32_t kFirstIndex = 100;
  auto index = DwarfIndex::Open(path, DwarfFuzzSymbolAt, {.demangle = (size & 1) == 0, .first_symbol_index = kFirstIndex});
  if (!index.ok()) {
    const std::string& m = index.error().message;
    inv.Expect(m.starts_with(path + ": "), "Open error does not name the file: {:?}", m);
    return inv.Finish();
  }
  const DwarfIndex& dw = **index;
  std::vector<uint64_t> addrs = {0, ~uint64_t{0}};
  size_t nranges = 0;
  for (const DwarfIndex::CuRange& r : dw.compile_unit_ranges()) {
    if (nranges++ == 64) break;
    inv.Expect(r.lo < r.hi && r.cu < dw.compile_unit_count(), "CU range [{:#x}, {:#x}) of CU {} of {}", r.lo, r.hi,
               r.cu, dw.compile_unit_count());
    addrs.insert(addrs.end(), {r.lo, r.lo + (r.hi - r.lo) / 2, r.hi - 1, r.hi});
  }
  for (size_t i = 0; i < 16 && (i + 1) * 8 <= size; ++i) {
    uint64_t v;
    std::memcpy(&v, data + size - (i + 1) * 8, 8);
    addrs.push_back(v);
  }
  static const Symbol kBase = [] {
    Symbol s;
    s.name = "base";
    s.index = 99;
    return s;
  }();
  for (uint64_t a : addrs) {
    SourceLine line = dw.FindLine(a);
    if (line.known() && !DwarfTextOk("file", line.file, &inv)) break;
    const Symbol* base = DwarfFuzzSymbolAt(a);
    if (!base) base = &kBase;
    SymbolFrames frames;
    dw.AppendFrames(a, base, &frames);
    const size_t n = frames.size();
    if (!inv.Expect(n >= 1 && n <= DwarfIndex::kMaxFrames, "{} frames at {:#x}", n, a)) break;
    const SourceLine& inner = frames[0].line;
    inv.Expect(inner.file == line.file && inner.line == line.line && inner.column == line.column,
               "innermost frame at {:#x} has {}:{}:{}, FindLine {}:{}:{}", a, std::string(inner.file), inner.line,
               inner.column, std::string(line.file), line.line, line.column);
    for (size_t i = 0; i < n; ++i) {
      const SymbolFrame& f = frames[i];
      if (!inv.Expect(f.sym != nullptr, "frame {} at {:#x} has no symbol", i, a)) break;
      inv.Expect(f.inline_depth == n - 1 - i, "frame {} of {} at {:#x} has inline_depth {}", i, n, a, f.inline_depth);
      if (f.sym->inlined)
        inv.Expect(f.sym->index >= kFirstIndex && f.sym->index < kFirstIndex + dw.inline_symbol_count(),
                   "inline symbol {:?} has index {} ({} interned)", std::string(f.sym->name), f.sym->index,
                   dw.inline_symbol_count());
      else
        inv.Expect(f.sym == base || f.sym == DwarfFuzzSymbolAt(f.sym->start), "frame {} at {:#x}: foreign symbol {:?}",
                   i, a, std::string(f.sym->name));
      DwarfTextOk("name", f.sym->name, &inv);
      if (f.line.known()) DwarfTextOk("file", f.line.file, &inv);
    }
    if (!inv.ok()) break;
  }
  const std::string problem = dw.problem();
  inv.Expect(problem.empty() || problem.starts_with(path + ": "), "problem does not name the file: {:?}", problem);
  return inv.Finish();
}

// An empty directory for --symfs / --buildid-dir, created once per process.
inline const std::string& EmptySymfs() {
  static const std::string dir = [] {
    const char* tmp = getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/perflens-fuzz-symfs-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    const char* made = mkdtemp(buf.data());
    std::string d = made ? made : "/nonexistent-perflens-symfs";
    if (made) atexit([] { rmdir(EmptySymfs().c_str()); });
    return d;
  }();
  return dir;
}

inline ReportOptions FuzzReportOptions() {
  ReportOptions o;
  const std::string& symfs = EmptySymfs();
  o.symbolize.symfs = symfs;
  o.symbolize.buildid_dir = symfs + "/buildid";
  o.symbolize.kallsyms = symfs + "/kallsyms";
  o.symbolize.vdso_image = symfs + "/vdso";
  o.show_nr_samples = true;
  return o;
}

inline std::unique_ptr<PerfFile> FuzzOpen(const uint8_t* data, size_t size) {
  ReaderOptions ro;
  ro.max_decompressed_bytes = kFuzzDecompressCap;
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(std::vector<uint8_t>(data, data + size)), ro);
  return f.ok() ? std::move(*f) : nullptr;
}

// The hists' own sums: without filters every sample lands in one row's self stats, so
// the rows' sample counts add up to nr_samples and their periods to total_period (both
// sums wrap alike); Children (acc) covers at least the row's own samples. Returns the
// nr_samples of each hists that has samples (the printed sections, in order).
inline std::vector<uint64_t> CheckHists(const Report& report, Invariants* inv) {
  std::vector<uint64_t> sections;
  for (size_t i = 0; i < report.hists().size(); ++i) {
    const Hists& h = report.hists()[i];
    uint64_t samples = 0, period = 0;
    for (const HistEntry& e : h.entries()) {
      samples += e.self.nr_samples;
      period += e.self.period;
      if (report.children())
        inv->Expect(e.acc.nr_samples >= e.self.nr_samples, "hists {}: a row with {} self samples has {} children samples",
                    i, e.self.nr_samples, e.acc.nr_samples);
    }
    inv->Expect(samples == h.nr_samples, "hists {}: rows add up to {} samples, nr_samples {}", i, samples, h.nr_samples);
    inv->Expect(period == h.total_period, "hists {}: rows add up to period {}, total_period {}", i, period,
                h.total_period);
    if (h.nr_samples) sections.push_back(h.nr_samples);
  }
  return sections;
}

// Runs Report::Create / Process with `o` on the input; nullptr when the input or the
// options are refused (not an invariant).
inline std::unique_ptr<Report> FuzzRunReport(PerfFile* file, const ReportOptions& options) {
  ReportOptions o = options;
  // The text checks read one value per numeric column: a file with event groups is
  // printed without the group view (--no-group, which forces nothing on a file that has
  // groups; ../scenario/group_fixture_test.cc checks the view against perf).
  for (const Evsel& ev : file->evsels())
    if (ev.nr_members > 1) o.group = false;
  auto report = Report::Create(file, o);
  if (!report.ok()) return nullptr;
  if (!(*report)->Process().ok()) return nullptr;
  return std::move(*report);
}

// The perf report pipeline on in-memory data, symbolizing against an empty --symfs:
// self rows (`-g none`, Children for odd sizes), printed with `-t '|' -n`; checks the
// hists' sums and the printed rows (finite percentages, samples adding up per
// section, no control bytes).
inline int FuzzReport(const uint8_t* data, size_t size) {
  Invariants inv;
  auto f = FuzzOpen(data, size);
  if (!f) return 0;
  ReportOptions o = FuzzReportOptions();
  o.call_graph = "none";
  o.field_separator = "|";
  if (size & 1) o.sort = "pid,dso,sym";
  if (size & 2) o.children = true;
  auto report = FuzzRunReport(f.get(), o);
  if (!report) return 0;
  std::vector<uint64_t> sections = CheckHists(*report, &inv);
  std::string out;
  if (PrintReportStdio(*report, &out).ok())
    // No evsels: no hists, no sections, and any row line is an error (0 fields).
    CheckSeparatedReport(out, report->children() ? 2 : 1,
                         report->hists().empty() ? 0 : (report->children() ? 3 : 2) + report->hists()[0].keys().size(),
                         sections, &inv);
  // SummaryLines hold names raw: the CLI escapes them when it prints (PrintError).
  Sink(report->SummaryLines().size());
  // perf diff of the file against itself (for half the sizes; ratio and -p by size).
  if (size & 4) {
    DiffOptions d;
    d.symbolize = o.symbolize;
    if (size & 8) d.compute = DiffCompute::kRatio;
    d.show_period = (size & 16) != 0;
    auto f2 = FuzzOpen(data, size);
    std::unique_ptr<Report> base = f2 ? FuzzRunReport(f2.get(), DiffReportOptions(d)) : nullptr;
    std::string text;
    if (base && PrintDiffStdio({{base.get(), "a"}, {base.get(), "b"}}, d, &text).ok())
      CheckNoControlBytes("diff --stdio", text, false, &inv);
  }
  return inv.Finish();
}

// PrintReportJson on the report of the input (Children for odd sizes, -g none or graph):
// the output parses, the rows add up to each event's samples and period, every
// percentage is a finite number.
inline int FuzzJson(const uint8_t* data, size_t size) {
  Invariants inv;
  auto f = FuzzOpen(data, size);
  if (!f) return 0;
  ReportOptions o = FuzzReportOptions();
  o.format = "json";
  if (size & 1) o.children = true;
  if (size & 2) o.call_graph = "none";
  if (size & 4) o.sort = "pid,tid,cpu,dso,sym";
  auto report = FuzzRunReport(f.get(), o);
  if (!report) return 0;
  std::vector<uint64_t> sections = CheckHists(*report, &inv);
  std::string out;
  if (PrintReportJson(*report, &out).ok()) CheckReportJson(out, report->children(), sections, &inv);
  return inv.Finish();
}

// Call-graph printing, Children on: -g graph (caller), folded, fractal (callee) by the
// input's size; checks the hists' sums, the entry lines (finite percentages, samples
// adding up), every branch value, no control bytes; and the JSON of the same report.
inline int FuzzCallGraph(const uint8_t* data, size_t size) {
  Invariants inv;
  auto f = FuzzOpen(data, size);
  if (!f) return 0;
  ReportOptions o = FuzzReportOptions();
  static const char* const kModes[] = {"graph,0.5,caller", "folded,0,callee", "fractal,0.5,callee",
                                       "graph,0,callee,function,count", "fractal,0,caller,function,period",
                                       "folded,0.5,caller"};
  o.call_graph = kModes[size % 6];
  o.children = true;
  // A third of the sizes add the branch stack to the chains (--branch-history: refused
  // without branch stacks or callchains).
  o.branch_history = size % 3 == 1;
  auto report = FuzzRunReport(f.get(), o);
  if (!report) return 0;
  std::vector<uint64_t> sections = CheckHists(*report, &inv);
  std::string out;
  if (PrintReportStdio(*report, &out).ok())
    CheckCallGraphReport(out, report->children() ? 2 : 1, sections, &inv);
  std::string json;
  if (PrintReportJson(*report, &json).ok()) CheckReportJson(json, report->children(), sections, &inv);
  return inv.Finish();
}

// `perflens script`: the default text (no control bytes but '\n' and '\t', at most one
// sample line per usable sample and group member), the same with every --show-*-events and +addr,+weight,
// +flags, and `-F folded` (sorted unique stacks whose weights add
// up to the samples).
inline int FuzzScript(const uint8_t* data, size_t size) {
  Invariants inv;
  for (int pass : {0, 1, 2}) {
    const bool folded = pass == 1;
    auto f = FuzzOpen(data, size);
    if (!f) return 0;
    ScriptOptions o;
    o.symbolize = FuzzReportOptions().symbolize;
    if (folded) o.fields = {"folded"};
    else if (size & 1) o.fields = {"comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period"};
    // The side-band lines and the sample's addr/weight/flags columns.
    const bool side_band = pass == 2;
    if (side_band) {
      o.fields.push_back("+addr,+weight,+flags");
      o.show_task_events = o.show_mmap_events = o.show_switch_events = o.show_lost_events = true;
      o.show_round_events = o.show_namespace_events = o.show_cgroup_events = o.show_bpf_events = true;
    }
    auto script = Script::Create(f.get(), o);
    if (!script.ok()) continue;
    std::string out;
    Status st = (*script)->Run([&](std::string_view text) { out.append(text); });
    if (!st.ok()) continue;
    const ScriptCounters& c = (*script)->counters();
    // A PERF_SAMPLE_READ group sample is delivered once per member (perf's
    // deliver_sample_group): up to one line and one folded weight per evsel.
    bool group_read = false;
    for (const Evsel& ev : f->evsels())
      group_read |= (ev.attr.sample_type & kSampleRead) && (ev.attr.read_format & kReadGroup);
    const uint64_t per_sample = group_read ? f->evsels().size() : 1;
    if (folded) {
      const uint64_t w = (*script)->folded().total_weight();
      CheckFolded(out, (*script)->folded().size(), w, &inv);
      if (group_read)
        // (a member whose id the read block does not name gets nothing)
        inv.Expect(w <= c.nr_samples * per_sample, "folded weights {} for {} samples of {} evsels", w, c.nr_samples,
                   per_sample);
      else
        inv.Expect(w == c.nr_samples, "folded weights {} for {} samples", w, c.nr_samples);
    } else if (CheckNoControlBytes("script", out, true, &inv)) {
      uint64_t sample_lines = 0;
      for (std::string_view l : Lines(out))
        if (!l.empty() && l[0] != '\t' && l.find("PERF_RECORD_") == std::string_view::npos) ++sample_lines;
      inv.Expect(sample_lines <= c.nr_samples * per_sample, "{} sample lines for {} samples ({} per sample at most)",
                 sample_lines, c.nr_samples, per_sample);
    }
    Sink((*script)->SummaryLines().size());  // raw; escaped by the CLI
  }
  return inv.Finish();
}

// `perflens dump` and `perflens stats`: one well-formed line per delivered record (as
// many as ReadStats counts on a separate read), no control bytes.
inline int FuzzDump(const uint8_t* data, size_t size) {
  Invariants inv;
  auto counted = FuzzOpen(data, size);
  if (!counted) return 0;
  ReadStats stats;
  if (!counted->ReadRecords([](const RecordView&) {}, &stats).ok()) return 0;
  auto f = FuzzOpen(data, size);
  static thread_local DumpTextChecker* checker = nullptr;
  DumpTextChecker c(&inv);
  checker = &c;
  std::string out;
  Status st = DumpRecords(*f, &out, [](std::string* chunk) {
    checker->Feed(*chunk);
    chunk->clear();
  });
  checker = nullptr;
  if (st.ok()) {
    c.Feed(out);
    inv.Expect(c.records() == stats.nr_records_total, "dump printed {} record lines, ReadStats counts {}", c.records(),
               stats.nr_records_total);
  }
  auto g = FuzzOpen(data, size);
  std::string text;
  if (PrintStats(*g, &text).ok()) CheckNoControlBytes("stats", text, false, &inv);
  return inv.Finish();
}

// FormatHeader (perf report --header-only, with and without -I): every line a "#"
// comment, no control bytes.
inline int FuzzHeader(const uint8_t* data, size_t size) {
  Invariants inv;
  auto f = FuzzOpen(data, size);
  if (!f) return 0;
  for (bool full : {false, true}) {
    std::string text = FormatHeader(*f, {.full = full});
    if (!CheckNoControlBytes("header", text, false, &inv)) break;
    for (std::string_view l : Lines(text))
      if (!inv.Expect(!l.empty() && l[0] == '#', "header line not a '#' comment: {:?}", std::string(l))) break;
  }
  return inv.Finish();
}

}  // namespace perflens::fuzz
