// TracepointFormatter: a tracepoint sample's PERF_SAMPLE_RAW payload as text, the way
// perf 6.1 prints it (event_format__fprintf: libtraceevent's tep_print_event with
// TEP_PRINT_INFO, e.g. "prev_comm=sleep prev_pid=12 prev_prio=120 prev_state=S ==>
// next_comm=swapper/0 next_pid=0 next_prio=120"). Used by script's trace field and
// report's trace sort key.
//
// Built from a TracingData (perfdata/tracing_data.h): the header page, ftrace and event
// formats, printk formats and saved cmdlines go to one libtraceevent handle, owned here.
// No plugins are loaded (perf 6.1 loads none either); kernel addresses in %pS/%ps
// arguments are named through set_kernel_symbols, as perf's machine__resolve_kernel_addr
// does. Not thread-safe: one caller at a time.
//
// Hostile payloads: before libtraceevent reads one, its size is checked against the
// event's fixed fields and every __data_loc/__rel_loc field's (offset, length); a payload
// that fails prints nothing, as perf prints nothing for a sample without raw data.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/tracing_data.h"
#include "session/resolver.h"

struct tep_handle;
struct tep_event;

namespace perflens {

class TracepointFormatter {
 public:
  // Never fails: formats libtraceevent cannot parse are counted in nr_bad_formats()
  // and their events print nothing.
  explicit TracepointFormatter(const TracingData& td);
  ~TracepointFormatter();
  TracepointFormatter(const TracepointFormatter&) = delete;
  TracepointFormatter& operator=(const TracepointFormatter&) = delete;

  // Appends the text of payload `raw` of the event whose format ID is `id` (the evsel's
  // attr.config), sampled on `cpu`. False (nothing appended) when the ID has no format
  // or the payload is too short for it.
  bool Format(uint64_t id, uint32_t cpu, std::span<const uint8_t> raw, std::string* out);

  // The kernel symbol holding a runtime address: its name (kept alive by the caller)
  // and start address; a null name when none.
  struct KernelSymbol {
    const char* name = nullptr;
    uint64_t start = 0;
  };
  using KernelSymbolFn = std::function<KernelSymbol(uint64_t addr)>;
  // Names %pS ("sym+0xoff") and %ps ("sym") arguments; without it they print as addresses.
  void set_kernel_symbols(KernelSymbolFn fn);

  size_t nr_bad_formats() const { return nr_bad_formats_; }
  size_t nr_bad_payloads() const { return nr_bad_payloads_; }

 private:
  struct DynamicField {
    uint32_t offset = 0, size = 0;  // where the u32 (len << 16 | offset) word is
    bool relative = false;          // __rel_loc: offset counts from the field's end
  };
  struct EventInfo {
    tep_event* event = nullptr;
    uint64_t min_size = 0;  // end of the last fixed field
    std::vector<DynamicField> dynamic;
  };
  const EventInfo* Find(uint64_t id);
  bool PayloadFits(const EventInfo& info, std::span<const uint8_t> raw) const;

  static char* ResolveFunction(void* self, unsigned long long* addr, char** module);

  tep_handle* tep_ = nullptr;
  KernelSymbolFn kernel_symbols_;
  bool swap_ = false;  // the file's byte order differs from ours
  std::unordered_map<uint64_t, EventInfo> events_;
  size_t nr_bad_formats_ = 0, nr_bad_payloads_ = 0;
  // Format's copy of the payload with kPayloadPadding zero bytes after it, reused.
  static constexpr size_t kPayloadPadding = 8;
  std::vector<uint8_t> payload_;
};

// Kernel symbols for set_kernel_symbols from `resolver`'s kernel maps (call it on the
// thread that owns the resolver).
TracepointFormatter::KernelSymbolFn KernelSymbolsOf(Resolver* resolver);

}  // namespace perflens
