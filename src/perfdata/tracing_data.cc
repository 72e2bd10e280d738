#include "perfdata/tracing_data.h"

#include <bit>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "base/byte_order.h"

namespace perflens {
namespace {

constexpr std::string_view kMagic = "\x17\x08\x44tracing";
constexpr size_t kMaxVersionLength = 16;

// A cursor over the container; every read checks the bytes left and fails with a
// message naming the perf.data offset of what it tried to read.
class TracingReader {
 public:
  TracingReader(std::span<const uint8_t> bytes, uint64_t file_offset) : bytes_(bytes), base_(file_offset) {}

  uint64_t offset() const { return base_ + pos_; }
  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }
  void set_swap(bool swap) { ld_.swap = swap; }

  Error Fail(std::string_view what, uint64_t need) const {
    return Err("tracing data at {:#x}: {} needs {} bytes, {} left", offset(), what, need, left());
  }
  Result<uint8_t> U8(std::string_view what) {
    if (left() < 1) return Fail(what, 1);
    return bytes_[pos_++];
  }
  Result<uint32_t> U32(std::string_view what) {
    if (left() < 4) return Fail(what, 4);
    uint32_t v = ld_.U32(bytes_.data() + pos_);
    pos_ += 4;
    return v;
  }
  Result<uint64_t> U64(std::string_view what) {
    if (left() < 8) return Fail(what, 8);
    uint64_t v = ld_.U64(bytes_.data() + pos_);
    pos_ += 8;
    return v;
  }
  // A NUL-terminated string of at most `max` bytes before the NUL.
  Result<std::string> CString(std::string_view what, size_t max) {
    const uint8_t* start = bytes_.data() + pos_;
    const size_t limit = std::min(left(), max + 1);
    const void* nul = std::memchr(start, 0, limit);
    if (!nul)
      return Err("tracing data at {:#x}: {} has no NUL within {} bytes", offset(), what, limit);
    const size_t n = static_cast<size_t>(static_cast<const uint8_t*>(nul) - start);
    pos_ += n + 1;
    return std::string(reinterpret_cast<const char*>(start), n);
  }
  // `size` bytes, checked against what is left before anything is copied.
  Result<std::string> Bytes(std::string_view what, uint64_t size) {
    if (size > left())
      return Err("tracing data at {:#x}: {} claims {} bytes, {} left", offset(), what, size, left());
    std::string s(reinterpret_cast<const char*>(bytes_.data() + pos_), static_cast<size_t>(size));
    pos_ += static_cast<size_t>(size);
    return s;
  }
  Status Expect(std::string_view literal, std::string_view what) {
    if (left() < literal.size() || std::memcmp(bytes_.data() + pos_, literal.data(), literal.size()) != 0)
      return Err("tracing data at {:#x}: expected {}", offset(), what);
    pos_ += literal.size();
    return Status::Ok();
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t base_;
  size_t pos_ = 0;
  Loader ld_;
};

// The value after "<key>: " on a line of a format file, "" when there is none.
std::string_view FormatLine(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(at, eol - at);
    if (line.size() > key.size() + 1 && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      line.remove_prefix(key.size() + 1);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
      return line;
    }
    at = eol + 1;
  }
  return {};
}

TracingEventFormat MakeFormat(std::string system, std::string text) {
  TracingEventFormat f;
  f.system = std::move(system);
  f.text = std::move(text);
  f.name = std::string(FormatLine(f.text, "name"));
  std::string_view id = FormatLine(f.text, "ID");
  uint64_t v = 0;
  if (!id.empty()) {
    auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
    if (ec == std::errc() && end == id.data() + id.size()) f.id = v;
  }
  return f;
}

// u64 size + text, as the header files and the format files are stored.
Result<std::string> Sized64(TracingReader* r, std::string_view what) {
  auto size = r->U64(what);
  if (!size) return size.error();
  return r->Bytes(what, *size);
}

Result<std::string> Sized32(TracingReader* r, std::string_view what) {
  auto size = r->U32(what);
  if (!size) return size.error();
  return r->Bytes(what, *size);
}

}  // namespace

const TracingEventFormat* TracingData::FindEvent(uint64_t id) const {
  for (const TracingEventFormat& f : event_formats)
    if (f.id == id) return &f;
  for (const TracingEventFormat& f : ftrace_formats)
    if (f.id == id) return &f;
  return nullptr;
}

std::string TracingData::EventName(uint64_t id) const {
  const TracingEventFormat* f = FindEvent(id);
  if (!f || f->name.empty()) return {};
  return f->system + ":" + f->name;
}

Result<TracingData> ParseTracingData(std::span<const uint8_t> bytes, uint64_t file_offset) {
  TracingReader r(bytes, file_offset);
  TracingData td;
  PERFLENS_RETURN_IF_ERROR(r.Expect(kMagic, "the magic \"\\027\\bDtracing\""));
  auto version = r.CString("the version string", kMaxVersionLength);
  if (!version) return version.error();
  td.version = std::move(*version);
  auto endian = r.U8("the endian byte");
  if (!endian) return endian.error();
  td.big_endian = *endian != 0;
  r.set_swap(td.big_endian != (std::endian::native == std::endian::big));
  auto long_size = r.U8("the long size");
  if (!long_size) return long_size.error();
  td.long_size = *long_size;
  auto page_size = r.U32("the page size");
  if (!page_size) return page_size.error();
  td.page_size = *page_size;

  PERFLENS_RETURN_IF_ERROR(r.Expect(std::string_view("header_page", 12), "\"header_page\""));
  auto header_page = Sized64(&r, "header_page");
  if (!header_page) return header_page.error();
  td.header_page = std::move(*header_page);
  PERFLENS_RETURN_IF_ERROR(r.Expect(std::string_view("header_event", 13), "\"header_event\""));
  auto header_event = Sized64(&r, "header_event");
  if (!header_event) return header_event.error();
  td.header_event = std::move(*header_event);

  auto nr_ftrace = r.U32("the ftrace format count");
  if (!nr_ftrace) return nr_ftrace.error();
  for (uint32_t i = 0; i < *nr_ftrace; ++i) {
    auto text = Sized64(&r, fmt::format("ftrace format {}", i));
    if (!text) return text.error();
    td.ftrace_formats.push_back(MakeFormat("ftrace", std::move(*text)));
  }
  auto nr_systems = r.U32("the event system count");
  if (!nr_systems) return nr_systems.error();
  for (uint32_t i = 0; i < *nr_systems; ++i) {
    auto system = r.CString(fmt::format("event system {}'s name", i), 4096);
    if (!system) return system.error();
    auto nr_events = r.U32(fmt::format("system '{}''s event count", *system));
    if (!nr_events) return nr_events.error();
    for (uint32_t j = 0; j < *nr_events; ++j) {
      auto text = Sized64(&r, fmt::format("event format {} of system '{}'", j, *system));
      if (!text) return text.error();
      td.event_formats.push_back(MakeFormat(*system, std::move(*text)));
    }
  }
  auto kallsyms = Sized32(&r, "kallsyms");
  if (!kallsyms) return kallsyms.error();
  td.kallsyms = std::move(*kallsyms);
  auto printk = Sized32(&r, "printk formats");
  if (!printk) return printk.error();
  td.printk_formats = std::move(*printk);
  // Saved cmdlines came with version 0.6 (perf's trace_report: atof(version) >= 0.6).
  if (std::strtod(td.version.c_str(), nullptr) >= 0.6) {
    auto cmdlines = Sized64(&r, "saved cmdlines");
    if (!cmdlines) return cmdlines.error();
    td.saved_cmdlines = std::move(*cmdlines);
  }
  td.size = r.pos();
  return td;
}

}  // namespace perflens
