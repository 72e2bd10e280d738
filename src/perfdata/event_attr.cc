#include "perfdata/event_attr.h"

namespace perflens {
namespace {

uint64_t ReverseBits64(uint64_t v) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i) {
    r = (r << 1) | (v & 1);
    v >>= 1;
  }
  return r;
}

}  // namespace

Result<EventAttr> ParseEventAttr(std::span<const uint8_t> bytes, const Loader& ld) {
  if (bytes.size() < 64) return Err("perf_event_attr truncated: {} bytes, need at least 64", bytes.size());
  const uint8_t* p = bytes.data();
  EventAttr a;
  a.type = ld.U32(p + 0);
  a.size = ld.U32(p + 4);
  uint32_t size = AttrDiskSize(a.size);
  if (size < 64) return Err("perf_event_attr size {} is smaller than 64", size);
  if (size > bytes.size()) return Err("perf_event_attr size {} exceeds the {} bytes available", size, bytes.size());
  a.config = ld.U64(p + 8);
  a.sample_period = ld.U64(p + 16);
  a.sample_type = ld.U64(p + 24);
  a.read_format = ld.U64(p + 32);
  a.flags = ld.U64(p + 40);
  if (ld.swap) a.flags = ReverseBits64(a.flags);
  a.wakeup_events = ld.U32(p + 48);
  a.bp_type = ld.U32(p + 52);
  a.config1 = ld.U64(p + 56);
  if (size >= 72) a.config2 = ld.U64(p + 64);
  if (size >= 80) a.branch_sample_type = ld.U64(p + 72);
  if (size >= 96) {
    a.sample_regs_user = ld.U64(p + 80);
    a.sample_stack_user = ld.U32(p + 88);
    a.clockid = ld.S32(p + 92);
  }
  if (size >= 104) a.sample_regs_intr = ld.U64(p + 96);
  if (size >= 112) {
    a.aux_watermark = ld.U32(p + 104);
    a.sample_max_stack = ld.U16(p + 108);
  }
  if (size >= 120) a.aux_sample_size = ld.U32(p + 112);
  if (size >= 128) a.sig_data = ld.U64(p + 120);
  if (size >= 136) a.config3 = ld.U64(p + 128);
  return a;
}

}  // namespace perflens
