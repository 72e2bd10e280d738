// EventAttr: one decoded perf_event_attr (include/uapi/linux/perf_event.h), in host
// byte order, for any on-disk size from PERF_ATTR_SIZE_VER0 (64 bytes) up; bytes past
// the fields we know are ignored, fields past a short attr's size are zero.
#pragma once

#include <cstdint>
#include <span>

#include "base/byte_order.h"
#include "base/result.h"

namespace perflens {

struct EventAttr {
  uint32_t type = 0;
  uint32_t size = 0;  // on-disk size (0 in the file means 64)
  uint64_t config = 0;
  uint64_t sample_period = 0;  // sample_freq when freq() is set
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  uint64_t flags = 0;  // the bitfield at offset 40, normalized so flag n is bit n
  uint32_t wakeup_events = 0;
  uint32_t bp_type = 0;
  uint64_t config1 = 0;
  uint64_t config2 = 0;
  uint64_t branch_sample_type = 0;
  uint64_t sample_regs_user = 0;
  uint32_t sample_stack_user = 0;
  int32_t clockid = 0;
  uint64_t sample_regs_intr = 0;
  uint32_t aux_watermark = 0;
  uint16_t sample_max_stack = 0;
  uint32_t aux_sample_size = 0;
  uint64_t sig_data = 0;
  uint64_t config3 = 0;

  bool Flag(int bit) const { return (flags >> bit) & 1; }
  bool disabled() const { return Flag(0); }
  bool inherit() const { return Flag(1); }
  bool exclude_user() const { return Flag(4); }
  bool exclude_kernel() const { return Flag(5); }
  bool exclude_hv() const { return Flag(6); }
  bool exclude_idle() const { return Flag(7); }
  bool mmap() const { return Flag(8); }
  bool comm() const { return Flag(9); }
  bool freq() const { return Flag(10); }
  bool task() const { return Flag(13); }
  int precise_ip() const { return static_cast<int>((flags >> 15) & 3); }
  bool mmap_data() const { return Flag(17); }
  bool sample_id_all() const { return Flag(18); }
  bool exclude_host() const { return Flag(19); }
  bool exclude_guest() const { return Flag(20); }
  bool exclude_callchain_kernel() const { return Flag(21); }
  bool exclude_callchain_user() const { return Flag(22); }
  bool mmap2() const { return Flag(23); }
  bool comm_exec() const { return Flag(24); }
  bool use_clockid() const { return Flag(25); }
  bool context_switch() const { return Flag(26); }
  bool build_id() const { return Flag(34); }
};

// Decodes an attr from `bytes` (at least 64 bytes; the attr's own `size` field, or
// 64 when 0, bounds what is read). `swap` is true for opposite-endian files; the flag
// bitfield is then bit-reversed as perf_event__attr_swap does.
// Errors: fewer than 64 bytes, or a `size` field larger than `bytes`.
Result<EventAttr> ParseEventAttr(std::span<const uint8_t> bytes, const Loader& loader);

// On-disk size of an attr whose size field is `size_field` (0 → 64, PERF_ATTR_SIZE_VER0).
inline uint32_t AttrDiskSize(uint32_t size_field) { return size_field == 0 ? 64 : size_field; }

}  // namespace perflens
