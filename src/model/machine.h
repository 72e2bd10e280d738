// Machine: the state perf's `machine` rebuilds from side-band records — threads, their
// process Maps, the kernel Maps and the table of Dsos (spec part B1–B3; simpleperf's
// thread_tree.cpp shape). ProcessRecord applies one MMAP/MMAP2/COMM/FORK/EXIT/KSYMBOL in
// delivery order. No symbol code lives here.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/dso.h"
#include "model/maps.h"
#include "model/thread.h"
#include "perfdata/perf_event.h"
#include "perfdata/record.h"

namespace perflens {

struct MachineStats {
  uint64_t nr_mmap_events = 0;
  uint64_t nr_bad_side_band = 0;  // malformed MMAP/COMM/FORK/EXIT records skipped
  uint64_t nr_guest_records = 0;  // guest cpumode side-band, not modelled
  // Anonymous executable maps inside a file's executable map (text copied onto
  // anonymous memory, e.g. huge pages) that kept the file's identity, and the first.
  uint64_t nr_text_remaps = 0;
  std::string first_text_remap;  // "pid 123: [0x..., 0x...) in /usr/bin/prog"
};

class Machine {
 public:
  // `arch` is the recorded arch (HEADER_ARCH, e.g. "x86_64"); it decides whether a vdso
  // mapped below 4 GiB is the 32-bit one.
  explicit Machine(std::string arch = "");

  // Creates Dsos for the recorded build-id table (feature BUILD_ID / HEADER_BUILD_ID),
  // so that MMAPs of those paths get their recorded build-id.
  void AddBuildIds(const std::vector<BuildIdEntry>& entries);

  // Applies one side-band record, decoded with `ld` (the file's byte order). `time` is
  // the record's timestamp in ns (its sample_id trailer: PerfFile::RecordTime), 0 or
  // UINT64_MAX when it has none; only COMM uses it (comm history). Taking these as
  // values keeps the model independent of the reader. Returns false for record types
  // the model ignores; a malformed record counts in stats().nr_bad_side_band.
  bool ProcessRecord(const RecordView& r, const Loader& ld, uint64_t time);
  // Whether ProcessRecord can change a thread, comm or map for a record of `type`
  // (MMAP, MMAP2, COMM, FORK, EXIT, KSYMBOL): what a sample resolves to may differ on
  // either side of such a record.
  static bool ChangesModel(uint32_t type);

  void ProcessMmap(const MmapEvent& e, uint16_t cpumode);
  void ProcessComm(const CommEvent& e, uint64_t time);
  void ProcessFork(const TaskEvent& e, uint16_t misc);
  void ProcessExit(const TaskEvent& e);
  void ProcessKsymbol(const KsymbolEvent& e);

  // perf's machine__findnew_thread: threads of one process share the leader's Maps.
  Thread* FindOrCreateThread(uint32_t pid, uint32_t tid);
  Thread* FindThread(uint32_t tid) const;
  // FindThread without its cache: nothing written, so any number of threads may call it
  // while no thread changes the model.
  const Thread* LookupThread(uint32_t tid) const {
    auto it = threads_.find(tid);
    return it == threads_.end() ? nullptr : it->second;
  }

  // The map holding `ip` for a sample of `thread` in `cpumode` (kernel maps for kernel
  // cpumode, the process maps for user), or nullptr. Hypervisor/guest → nullptr.
  // No cache: the model holds none (a cached Map* outlived a thread's switch to its
  // leader's Maps once). Callers cache by (Maps::id, Maps::generation).
  const Map* FindMap(const Thread* thread, uint16_t cpumode, uint64_t ip) const;
  // The Maps FindMap searches for `thread` in `cpumode`, or nullptr when none.
  const Maps* MapsFor(const Thread* thread, uint16_t cpumode) const {
    if (cpumode == kMiscKernel) return &kernel_maps_;
    return cpumode == kMiscUser && thread ? &thread->maps() : nullptr;
  }

  Maps& kernel_maps() { return kernel_maps_; }
  const Maps& kernel_maps() const { return kernel_maps_; }
  Dso* kernel_dso() const { return kernel_dso_; }
  // KASLR anchor from the kernel MMAP: name of the reference symbol ("_text") and its
  // runtime address (the MMAP's pgoff). 0 when kptr_restrict hid it.
  const std::string& kernel_ref_symbol() const { return kernel_ref_symbol_; }
  uint64_t kernel_ref_addr() const { return kernel_ref_addr_; }

  const std::vector<std::unique_ptr<Dso>>& dsos() const { return dsos_; }
  Dso* FindDsoByName(std::string_view long_name) const;
  // Creates or finds the Dso for a name and identity.
  Dso* FindOrCreateDso(const std::string& long_name, DsoKind kind, const BuildId& build_id,
                       uint32_t maj = 0, uint32_t min = 0, uint64_t ino = 0, uint64_t ino_gen = 0);

  const MachineStats& stats() const { return stats_; }
  const std::string* Intern(std::string_view s);

 private:
  void ProcessKernelMmap(const MmapEvent& e);
  DsoKind VdsoKindFor(const MmapEvent& e) const;

  std::string arch_;
  // Live threads by tid. Every change goes through SetLiveThread/DropLiveThread so that
  // the direct-mapped cache in front of it (a hash lookup per sample showed in
  // profiles) never returns a thread that has been replaced.
  void SetLiveThread(uint32_t tid, Thread* t);
  void DropLiveThread(uint32_t tid);
  std::unordered_map<uint32_t, Thread*> threads_;
  struct ThreadSlot {
    uint32_t tid = 0;
    Thread* thread = nullptr;  // nullptr: empty
  };
  mutable std::array<ThreadSlot, 256> thread_cache_{};
  std::deque<std::unique_ptr<Thread>> all_threads_;  // owner; exited threads stay valid
  Maps kernel_maps_;
  Dso* kernel_dso_ = nullptr;
  std::string kernel_ref_symbol_;
  uint64_t kernel_ref_addr_ = 0;
  std::vector<std::unique_ptr<Dso>> dsos_;
  std::unordered_multimap<std::string, Dso*> dsos_by_name_;
  std::unordered_set<std::string> strings_;
  MachineStats stats_;
};

}  // namespace perflens
