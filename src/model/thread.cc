#include "model/thread.h"

namespace perflens {

void Thread::SetComm(const std::string* name, uint64_t time, bool exec) {
  if (placeholder_) {
    comms_.clear();
    placeholder_ = false;
  }
  comms_.push_back({name, time, exec});
}

const std::string& Thread::CommAt(uint64_t time) const {
  for (auto it = comms_.rbegin(); it != comms_.rend(); ++it)
    if (it->time <= time) return *it->name;
  return *comms_.front().name;
}

}  // namespace perflens
