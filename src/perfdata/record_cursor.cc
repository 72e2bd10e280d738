#include "perfdata/record_cursor.h"

#include <fmt/format.h>

namespace perflens {

std::string RecordTypeLabel(uint32_t type) { return fmt::format("{} (type {})", RecordTypeName(type), type); }

bool RecordCursor::Stop(const RecordView* r, uint64_t extra) {
  if (!r) {
    error_ = Err("{} trailing bytes at offset {:#x} do not hold a record header", end_ - pos_, pos_);
  } else if (r->size < 8) {
    // Framing is lost: say how much of the range is left unread (perf fails here).
    error_ = Err("bad record size {} at offset {:#x} ({}); stopped reading: the last {} bytes ({:.1f}% of the data) "
                 "were not read",
                 r->size, pos_, RecordTypeLabel(r->type), end_ - pos_,
                 100.0 * static_cast<double>(end_ - pos_) / static_cast<double>(end_ - begin_));
  } else if (r->size > end_ - pos_) {
    // A cut file and a corrupt size field look alike from here: say both, and how much
    // of the data is lost either way.
    error_ = Err("{} at offset {:#x} has size {} but only {} bytes of the data remain: the file is truncated or the "
                 "record's size is corrupt; stopped reading: the last {} bytes ({:.1f}% of the data) were not read",
                 RecordTypeLabel(r->type), pos_, r->size, end_ - pos_, end_ - pos_,
                 100.0 * static_cast<double>(end_ - pos_) / static_cast<double>(end_ - begin_));
  } else {
    error_ = Err("{} at offset {:#x} announces {} bytes of trailing data past the end of the file",
                 RecordTypeLabel(r->type), pos_, extra);
  }
  pos_ = end_;
  return false;
}

}  // namespace perflens
