// TracingData: the ftrace metadata perf record stores for tracepoint events — the
// HEADER_TRACING_DATA feature section in file mode, the bytes that follow a
// PERF_RECORD_HEADER_TRACING_DATA record in pipe mode (tools/perf/util/trace-event-info.c
// writes it, trace-event-read.c reads it). A tracepoint evsel's attr.config is the "ID:"
// of one of its event format files; the format describes the PERF_SAMPLE_RAW payload.
//
// Layout (version "0.5" or "0.6"; numbers after the endian byte in that byte order):
//   "\x17\x08\x44tracing"  version string NUL  u8 big_endian  u8 long_size  u32 page_size
//   "header_page\0"  u64 size  text        "header_event\0"  u64 size  text
//   u32 nr_ftrace  { u64 size  format }*   u32 nr_systems  { "system\0"  u32 nr  { u64 size  format }* }*
//   u32 size  kallsyms   u32 size  printk formats   (0.6:) u64 size  saved cmdlines
// Parsing only splits the container; formatting payloads is report/tracepoint_formatter.h's
// job (libtraceevent). Texts are copies, so a TracingData outlives its input.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace perflens {

struct TracingEventFormat {
  std::string system;  // "sched"; "ftrace" for the ftrace formats
  std::string text;    // the format file as in /sys/kernel/tracing/events/<system>/<name>/format
  std::string name;    // its "name: " line's value, "" when there is none
  std::optional<uint64_t> id;  // its "ID: " line's value (a tracepoint attr's config)
};

struct TracingData {
  std::string version;  // "0.6"
  bool big_endian = false;
  uint8_t long_size = 8;
  uint32_t page_size = 0;
  std::string header_page, header_event;
  std::vector<TracingEventFormat> ftrace_formats;
  std::vector<TracingEventFormat> event_formats;
  std::string kallsyms, printk_formats, saved_cmdlines;
  uint64_t size = 0;  // bytes the container took

  // The event format whose ID is `id` (tracepoint attr.config), or nullptr.
  const TracingEventFormat* FindEvent(uint64_t id) const;
  // perf's evsel name for that event: "system:name"; "" when unknown.
  std::string EventName(uint64_t id) const;
};

// Parses the container in `bytes`, which starts at perf.data offset `file_offset` (used
// in messages only). Sizes are checked against the bytes there, counts bounded by them,
// so nothing is allocated by a claimed size. Trailing bytes after the container are
// ignored (pipe mode pads to 8). Errors name the perf.data offset and the part:
// "tracing data at 0x1234: event format 3 of system 'sched' claims 900 bytes, 12 left".
Result<TracingData> ParseTracingData(std::span<const uint8_t> bytes, uint64_t file_offset);

}  // namespace perflens
