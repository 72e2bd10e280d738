#include "report/dump_printer.h"

#include "base/text_escape.h"

#include <fmt/format.h>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

void DumpSample(const PerfFile& file, const RecordView& r, std::string* out) {
  Sample s;
  const Evsel* ev = nullptr;
  SampleError err = file.ParseSample(r, &s, &ev);
  if (!ev) {
    out->append(" (unknown sample id)\n");
    return;
  }
  if (err != SampleError::kNone) {
    fmt::format_to(std::back_inserter(*out), " (malformed: {})\n", SampleErrorName(err));
    return;
  }
  // perf: "PERF_RECORD_SAMPLE(IP, 0x2): 1234/1234: 0x401136 period: 250000 addr: 0"
  fmt::format_to(std::back_inserter(*out), "({}, {:#x}): {}/{}: {:#x} period: {} addr: {:#x}",
                 s.cpumode() == kMiscKernel ? "IP" : "IP", r.misc, static_cast<int32_t>(s.pid),
                 static_cast<int32_t>(s.tid), s.ip, s.period, s.addr);
  if (s.cpu != UINT32_MAX) fmt::format_to(std::back_inserter(*out), " cpu: {}", s.cpu);
  fmt::format_to(std::back_inserter(*out), " event: {}\n", ev->name);
  if (!s.callchain.empty()) {
    fmt::format_to(std::back_inserter(*out), "... FP chain: nr:{}\n", s.callchain.size);
    for (uint64_t i = 0; i < s.callchain.size && i < 512; ++i)
      fmt::format_to(std::back_inserter(*out), ".....  {}: {:016x}\n", i, s.callchain[i]);
  }
}

}  // namespace

Status DumpRecords(PerfFile& file, std::string* out, void (*flush)(std::string*)) {
  const Loader& ld = file.loader();
  ReadStats stats;
  Status st = file.ReadRecords(
      [&](const RecordView& r) {
        uint64_t t = file.RecordTime(r);
        if (t == UINT64_MAX) t = 0;
        fmt::format_to(std::back_inserter(*out), "{} {:#x} [{:#x}]: PERF_RECORD_{}", t, r.perf_data_offset, r.size,
                       RecordTypeName(r.type));
        switch (r.type) {
          case kRecordMmap:
          case kRecordMmap2: {
            MmapEvent e;
            bool ok = r.type == kRecordMmap ? DecodeMmap(r, ld, &e) : DecodeMmap2(r, ld, &e);
            if (!ok) { out->append(" (malformed)\n"); break; }
            fmt::format_to(std::back_inserter(*out), " {}/{}: [{:#x}({:#x}) @ {:#x}", static_cast<int32_t>(e.pid),
                           static_cast<int32_t>(e.tid), e.start, e.len, e.pgoff);
            if (r.type == kRecordMmap2) {
              if (!e.build_id.empty()) fmt::format_to(std::back_inserter(*out), " <{}>", e.build_id.ToHex());
              else fmt::format_to(std::back_inserter(*out), " {:02x}:{:02x} {} {}", e.maj, e.min, e.ino, e.ino_generation);
              fmt::format_to(std::back_inserter(*out), " prot {:#x} flags {:#x}", e.prot, e.flags);
            }
            fmt::format_to(std::back_inserter(*out), "]: {}\n", EscapeControl(e.filename));
            break;
          }
          case kRecordComm: {
            CommEvent e;
            if (!DecodeComm(r, ld, &e)) { out->append(" (malformed)\n"); break; }
            fmt::format_to(std::back_inserter(*out), "{}: {}:{}/{}\n", e.exec ? " EXEC" : "", EscapeControl(e.comm),
                           static_cast<int32_t>(e.pid), static_cast<int32_t>(e.tid));
            break;
          }
          case kRecordFork:
          case kRecordExit: {
            TaskEvent e;
            if (!DecodeTask(r, ld, &e)) { out->append(" (malformed)\n"); break; }
            fmt::format_to(std::back_inserter(*out), "({}:{}):({}:{})\n", static_cast<int32_t>(e.pid),
                           static_cast<int32_t>(e.tid), static_cast<int32_t>(e.ppid), static_cast<int32_t>(e.ptid));
            break;
          }
          case kRecordSample: DumpSample(file, r, out); break;
          case kRecordLost: {
            LostEvent e;
            if (DecodeLost(r, ld, &e)) fmt::format_to(std::back_inserter(*out), ": id:{}: lost:{}\n", e.id, e.lost);
            else out->append(" (malformed)\n");
            break;
          }
          case kRecordKsymbol: {
            KsymbolEvent e;
            if (DecodeKsymbol(r, ld, &e))
              fmt::format_to(std::back_inserter(*out), " addr {:x} len {} type {} flags {:#x} name {}\n", e.addr, e.len,
                             e.ksym_type, e.flags, EscapeControl(e.name));
            else out->append(" (malformed)\n");
            break;
          }
          default:
            if (r.type >= kRecordUserMax && RecordTypeName(r.type) == "UNKNOWN")
              fmt::format_to(std::back_inserter(*out), " (type {})", r.type);
            out->push_back('\n');
        }
        if (out->size() > (1 << 20)) flush(out);
      },
      &stats);
  if (!st) return st;
  if (stats.stopped) fmt::format_to(std::back_inserter(*out), "# stopped: {}\n", stats.stopped->message);
  for (const auto& w : stats.warnings) fmt::format_to(std::back_inserter(*out), "# warning: {}\n", w);
  return Status::Ok();
}

Status PrintStats(PerfFile& file, std::string* out) {
  ReadStats stats;
  std::vector<uint64_t> per_evsel(file.evsels().size());
  std::vector<uint64_t> lost_per_evsel(file.evsels().size());
  uint64_t unknown_id = 0;
  Status st = file.ReadRecords(
      [&](const RecordView& r) {
        if (r.type == kRecordLostSamples) {
          // perf counts LOST_SAMPLES in the hists of the evsel its sample_id names.
          if (const Evsel* ev = file.EvselForRecord(r)) ++lost_per_evsel[ev->index];
          return;
        }
        if (r.type != kRecordSample) return;
        const Evsel* ev = file.EvselForSample(r);
        if (ev) ++per_evsel[ev->index];
        else ++unknown_id;
      },
      &stats);
  if (!st) return st;
  out->append("\nAggregated stats:\n");
  fmt::format_to(std::back_inserter(*out), "{:>16} events: {:>10}\n", "TOTAL", stats.nr_records_total);
  for (uint32_t t = 1; t < 128; ++t) {
    uint64_t n = stats.nr_records[t];
    if (!n) continue;
    double pct = 100.0 * static_cast<double>(n) / static_cast<double>(stats.nr_records_total);
    std::string_view name = RecordTypeName(t);
    std::string label = name == "UNKNOWN" ? fmt::format("UNKNOWN({})", t) : std::string(name);
    fmt::format_to(std::back_inserter(*out), "{:>16} events: {:>10}  ({:4.1f}%)\n", label, n, pct);
  }
  if (stats.nr_unknown_type)
    fmt::format_to(std::back_inserter(*out), "{:>16} events: {:>10}\n", "UNKNOWN", stats.nr_unknown_type);
  for (size_t i = 0; i < per_evsel.size(); ++i) {
    if (!per_evsel[i] && !lost_per_evsel[i]) continue;
    fmt::format_to(std::back_inserter(*out), "{} stats:\n", file.evsels()[i].name);
    if (per_evsel[i]) fmt::format_to(std::back_inserter(*out), "{:>16} events: {:>10}\n", "SAMPLE", per_evsel[i]);
    if (lost_per_evsel[i])
      fmt::format_to(std::back_inserter(*out), "{:>16} events: {:>10}\n", "LOST_SAMPLES", lost_per_evsel[i]);
  }
  if (unknown_id) fmt::format_to(std::back_inserter(*out), "{} samples with an unknown id\n", unknown_id);
  if (stats.stopped) fmt::format_to(std::back_inserter(*out), "# stopped: {}\n", stats.stopped->message);
  if (stats.nr_bad_records) fmt::format_to(std::back_inserter(*out), "# {} malformed records skipped\n", stats.nr_bad_records);
  for (const auto& w : stats.warnings) fmt::format_to(std::back_inserter(*out), "# warning: {}\n", w);
  return Status::Ok();
}

}  // namespace perflens
