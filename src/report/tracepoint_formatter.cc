#include "report/tracepoint_formatter.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "perfdata/perf_event.h"

namespace perflens {
namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    if (eol > at) lines.push_back(text.substr(at, eol - at));
    at = eol + 1;
  }
  return lines;
}

// perf's parse_ftrace_printk: "<hex address> : \"format\"" per line.
void RegisterPrintkFormats(tep_handle* tep, std::string_view text) {
  for (std::string_view line : Lines(text)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string addr(line.substr(0, colon));
    std::string fmt(line.substr(colon + 1));
    if (!fmt.empty() && fmt[0] == ' ') fmt.erase(0, 1);  // perf skips the space after ':'
    tep_register_print_string(tep, fmt.c_str(), std::strtoull(addr.c_str(), nullptr, 16));
  }
}

// perf's parse_saved_cmdline: "<pid> <comm>" per line.
void RegisterComms(tep_handle* tep, std::string_view text) {
  for (std::string_view line : Lines(text)) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) continue;
    const std::string pid(line.substr(0, space)), comm(line.substr(space + 1));
    char* end = nullptr;
    const long v = std::strtol(pid.c_str(), &end, 10);
    if (*end != '\0') continue;
    tep_register_comm(tep, comm.c_str(), static_cast<int>(v));
  }
}

}  // namespace

TracepointFormatter::TracepointFormatter(const TracingData& td) {
  // libtraceevent's warnings go to stderr; a malformed format is counted instead.
  static std::once_flag quiet;
  std::call_once(quiet, [] { tep_set_loglevel(TEP_LOG_NONE); });
  tep_ = tep_alloc();
  if (!tep_) return;
  const bool host_big = std::endian::native == std::endian::big;
  swap_ = td.big_endian != host_big;
  tep_set_file_bigendian(tep_, td.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_local_bigendian(tep_, host_big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
  tep_set_long_size(tep_, td.long_size);
  tep_set_page_size(tep_, static_cast<int>(td.page_size));
  std::string header_page = td.header_page;  // libtraceevent takes a mutable buffer
  if (!header_page.empty()) tep_parse_header_page(tep_, header_page.data(), header_page.size(), td.long_size);
  for (const auto* list : {&td.ftrace_formats, &td.event_formats})
    for (const TracingEventFormat& f : *list)
      if (tep_parse_event(tep_, f.text.data(), f.text.size(), f.system.c_str()) != 0) ++nr_bad_formats_;
  RegisterPrintkFormats(tep_, td.printk_formats);
  RegisterComms(tep_, td.saved_cmdlines);
}

TracepointFormatter::~TracepointFormatter() {
  if (tep_) tep_free(tep_);
}

TracepointFormatter::KernelSymbolFn KernelSymbolsOf(Resolver* resolver) {
  // Symbol names are views: libtraceevent gets NUL-terminated copies, one per symbol.
  auto names = std::make_shared<std::unordered_map<const Symbol*, std::string>>();
  return [resolver, names](uint64_t addr) {
    const AddrLocation al = resolver->Resolve(nullptr, kMiscKernel, addr);
    if (!al.sym) return TracepointFormatter::KernelSymbol{};
    auto it = names->try_emplace(al.sym, al.sym->name).first;
    return TracepointFormatter::KernelSymbol{it->second.c_str(), addr - (al.dso_addr - al.sym->start)};
  };
}

char* TracepointFormatter::ResolveFunction(void* self, unsigned long long* addr, char** module) {
  *module = nullptr;
  const KernelSymbol k = static_cast<TracepointFormatter*>(self)->kernel_symbols_(*addr);
  if (!k.name) return nullptr;
  *addr = k.start;
  return const_cast<char*>(k.name);  // libtraceevent only reads it
}

void TracepointFormatter::set_kernel_symbols(KernelSymbolFn fn) {
  kernel_symbols_ = std::move(fn);
  if (tep_ && kernel_symbols_) tep_set_function_resolver(tep_, &TracepointFormatter::ResolveFunction, this);
}

const TracepointFormatter::EventInfo* TracepointFormatter::Find(uint64_t id) {
  auto it = events_.find(id);
  if (it != events_.end()) return it->second.event ? &it->second : nullptr;
  EventInfo& info = events_[id];
  if (!tep_ || id > INT32_MAX) return nullptr;
  info.event = tep_find_event(tep_, static_cast<int>(id));
  if (!info.event) return nullptr;
  for (auto fields_of : {tep_event_common_fields, tep_event_fields}) {
    tep_format_field** fields = fields_of(info.event);
    if (!fields) continue;
    for (tep_format_field** f = fields; *f; ++f) {
      const tep_format_field& field = **f;
      if (field.offset < 0 || field.size < 0) continue;
      const uint64_t end = static_cast<uint64_t>(field.offset) + static_cast<uint64_t>(field.size);
      info.min_size = std::max(info.min_size, end);
      if (field.flags & TEP_FIELD_IS_DYNAMIC)
        info.dynamic.push_back({static_cast<uint32_t>(field.offset), static_cast<uint32_t>(field.size),
                                (field.flags & TEP_FIELD_IS_RELATIVE) != 0});
    }
    std::free(fields);
  }
  return &info;
}

bool TracepointFormatter::PayloadFits(const EventInfo& info, std::span<const uint8_t> raw) const {
  if (raw.size() < info.min_size) return false;
  for (const DynamicField& d : info.dynamic) {
    if (d.size < 4) continue;  // not the u32 word libtraceevent reads
    uint32_t word;
    std::memcpy(&word, raw.data() + d.offset, 4);
    if (swap_) word = __builtin_bswap32(word);
    uint64_t offset = word & 0xffff, len = word >> 16;
    if (d.relative) offset += d.offset + d.size;
    if (offset + len > raw.size()) return false;
  }
  return true;
}

bool TracepointFormatter::Format(uint64_t id, uint32_t cpu, std::span<const uint8_t> raw, std::string* out) {
  const EventInfo* info = Find(id);
  if (!info) return false;
  if (!PayloadFits(*info, raw)) {
    ++nr_bad_payloads_;
    return false;
  }
  // libtraceevent prints a string field up to its NUL, wherever that is: a payload
  // whose __data_loc string is not terminated inside it would be read past its end.
  // Formatting a copy followed by zeros bounds every such read (well-formed payloads
  // print the same).
  payload_.assign(raw.begin(), raw.end());
  payload_.resize(raw.size() + kPayloadPadding, 0);
  tep_record record{};
  record.cpu = static_cast<int>(cpu);
  record.size = static_cast<int>(raw.size());
  record.data = payload_.data();
  trace_seq s;
  trace_seq_init(&s);
  tep_print_event(tep_, &s, &record, "%s", TEP_PRINT_INFO);
  trace_seq_terminate(&s);
  out->append(s.buffer, s.len);
  trace_seq_destroy(&s);
  return true;
}

}  // namespace perflens
