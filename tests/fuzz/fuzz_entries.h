// Fuzz entry points shared by the libFuzzer targets (tests/fuzz/*_fuzzer.cc) and the
// regression replay test (tests/hardening/fuzz_regression_test.cc), so that a crash
// input found by a fuzzer is replayed through exactly the same code in a normal build.
// Header-only: the normal build has no library for tests/fuzz.
//
// Every entry takes untrusted bytes and must return without crashing, hanging or
// allocating more than a small multiple of the input (plus fixed caps). None of them
// reads a real file: the report entry points symbolization at an empty --symfs.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "perfdata/features.h"
#include "perfdata/perf_event.h"
#include "perfdata/perf_file.h"
#include "perfdata/record.h"
#include "perfdata/sample.h"
#include "report/report.h"
#include "report/stdio_printer.h"
#include "symbolize/kallsyms.h"
#include "symbolize/perf_map.h"

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

// The whole reader: header, attrs, features, then every record, ordered and unordered.
inline int FuzzReader(const uint8_t* data, size_t size) {
  for (bool ordered : {true, false}) {
    ReaderOptions o;
    o.ordered = ordered;
    o.max_decompressed_bytes = kFuzzDecompressCap;
    auto f = PerfFile::FromBytes(MappedFile::FromBuffer(std::vector<uint8_t>(data, data + size)), o);
    if (!f.ok()) return 0;
    PerfFile& file = **f;
    for (const Evsel& ev : file.evsels()) Sink(ev.ids.size() + ev.name.size());
    ReadStats stats;
    Status s = file.ReadRecords([&](const RecordView& r) { TouchRecord(file, r); }, &stats);
    Sink(s.ok() + stats.nr_records_total);
  }
  return 0;
}

// DecodeSample with the attr taken from the input:
//   [0] flags: bit 0 = cross-endian loader, bit 1 = sample_id_all
//   [1..8] sample_type, [9..16] read_format, [17..24] branch_sample_type,
//   [25..32] sample_regs_user, [33..40] sample_regs_intr, [41..42] misc,
//   rest: the record body after the 8-byte header (header.size = 8 + body, capped).
inline constexpr size_t kSamplePrefix = 43;
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
  if (DecodeSample(r, attr, ld, &s) == SampleError::kNone) TouchSample(s);
  SampleId sid;
  r.type = kRecordMmap;
  if (DecodeSampleIdTrailer(r, attr.sample_type, ld, &sid)) Sink(sid.time);
  return 0;
}

// ParseFeature: [0] feature number, [1] bit 0 = cross-endian, rest = the section payload.
inline int FuzzFeature(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Loader ld{(data[1] & 1) != 0};
  std::vector<uint8_t> payload(data + 2, data + size);
  HeaderEnv env;
  Status s = ParseFeature(data[0], payload, ld, &env);
  Sink(s.ok() + env.build_ids.size() + env.event_desc.size() + env.cmdline.size());
  return 0;
}

inline int FuzzPerfMap(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t bad = 0;
  SymbolTable t = ParsePerfMap(text, &bad);
  for (uint64_t addr : {uint64_t{0}, uint64_t{0x1000}, uint64_t{0x7f0000001000}, ~uint64_t{0}})
    if (const Symbol* sym = t.Find(addr)) Sink(sym->name.size());
  Sink(bad);
  return 0;
}

inline int FuzzKallsyms(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (int64_t delta : {int64_t{0}, int64_t{0x1000}}) {
    auto t = ParseKallsyms(text, "_text", delta);
    if (!t.ok()) continue;
    if (const Symbol* sym = t->kernel.Find(0xffffffff81000000ULL)) Sink(sym->name.size());
    Sink(t->modules.size() + t->ref_addr);
  }
  return 0;
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

// The perf report pipeline on in-memory data, symbolizing against an empty --symfs.
inline int FuzzReport(const uint8_t* data, size_t size) {
  ReaderOptions ro;
  ro.max_decompressed_bytes = kFuzzDecompressCap;
  auto f = PerfFile::FromBytes(MappedFile::FromBuffer(std::vector<uint8_t>(data, data + size)), ro);
  if (!f.ok()) return 0;
  ReportOptions o;
  const std::string& symfs = EmptySymfs();
  o.symbolize.symfs = symfs;
  o.symbolize.buildid_dir = symfs + "/buildid";
  o.symbolize.kallsyms = symfs + "/kallsyms";
  o.symbolize.vdso_image = symfs + "/vdso";
  o.show_nr_samples = true;
  if (size & 1) o.sort = "pid,dso,sym";
  auto report = Report::Create(f->get(), o);
  if (!report.ok()) return 0;
  Status st = (*report)->Process();
  if (!st.ok()) return 0;
  std::string out;
  Status p = PrintReportStdio(**report, &out);
  Sink(p.ok() + out.size() + (*report)->SummaryLines().size());
  return 0;
}

}  // namespace perflens::fuzz
