// Thread: one task of one machine (pid = thread-group id, tid), its comm history and the
// Maps of its process (shared with the other threads of the process).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/maps.h"

namespace perflens {

struct CommEntry {
  const std::string* name;  // interned in the Machine
  uint64_t time;            // ns; 0 for synthesized comms
  bool exec;                // set by PERF_RECORD_MISC_COMM_EXEC
};

class Thread {
 public:
  Thread(uint32_t pid, uint32_t tid, std::shared_ptr<Maps> maps)
      : pid_(pid), tid_(tid), maps_(std::move(maps)) {}

  uint32_t pid() const { return pid_; }
  void set_pid(uint32_t pid) { pid_ = pid; }
  uint32_t tid() const { return tid_; }
  Maps& maps() { return *maps_; }
  const Maps& maps() const { return *maps_; }
  const std::shared_ptr<Maps>& shared_maps() const { return maps_; }
  void set_maps(std::shared_ptr<Maps> maps) { maps_ = std::move(maps); }

  // The current comm (the latest one set, as perf's thread__comm_str). perf names a
  // thread without COMM ":<tid>"; the Machine sets that at creation.
  const std::string& comm() const { return *comms_.back().name; }
  // The interned current comm (stable pointer; equal strings share one pointer).
  const std::string* comm_ptr() const { return comms_.back().name; }
  // The comm the thread had at `time` (ns).
  const std::string& CommAt(uint64_t time) const;
  const std::vector<CommEntry>& comms() const { return comms_; }
  void SetComm(const std::string* name, uint64_t time, bool exec);
  // perf replaces the ":<tid>" placeholder rather than keeping it in the history.
  bool comm_is_placeholder() const { return placeholder_; }
  void SetPlaceholderComm(const std::string* name) {
    comms_.assign(1, {name, 0, false});
    placeholder_ = true;
    placeholder_name_ = name;
  }
  // The ":<tid>" name this thread started with, and the comm that replaced it (perf's
  // comm__override rewrites that first comm in place, so rows recorded under the
  // placeholder show the first real comm). nullptr when there is none.
  const std::string* placeholder_name() const { return placeholder_name_; }
  const std::string* first_real_comm() const { return placeholder_ ? nullptr : comms_.front().name; }

 private:
  uint32_t pid_, tid_;
  std::shared_ptr<Maps> maps_;
  std::vector<CommEntry> comms_;
  bool placeholder_ = false;
  const std::string* placeholder_name_ = nullptr;
};

}  // namespace perflens
