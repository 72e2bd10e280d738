#include "model/machine.h"

#include "base/text_escape.h"

#include <sys/mman.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace perflens {
namespace {

constexpr std::string_view kKernelMmapName = "[kernel.kallsyms]";

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "/lib/modules/6.1.0/kernel/fs/xfs/xfs.ko.xz" → "[xfs]" (perf's kmod_path__parse).
// `perf inject --jit`'s per-function ELF: basename "jitted-<pid>-<code_index>.so".
bool IsInjectedJitName(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return base.size() > 10 && StartsWith(base, "jitted-") && base.substr(base.size() - 3) == ".so";
}

std::string ModuleShortName(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  auto dot = base.find(".ko");
  if (dot != std::string_view::npos) base = base.substr(0, dot);
  std::string name(base);
  for (char& c : name)
    if (c == '-') c = '_';
  return "[" + name + "]";
}

}  // namespace

Machine::Machine(std::string arch) : arch_(std::move(arch)) {
  // perf_session__register_idle_thread: 0/0 is "swapper".
  Thread* idle = FindOrCreateThread(0, 0);
  idle->SetComm(Intern("swapper"), 0, false);
}

const std::string* Machine::Intern(std::string_view s) { return &*strings_.emplace(s).first; }

Dso* Machine::FindDsoByName(std::string_view long_name) const {
  auto it = dsos_by_name_.find(std::string(long_name));
  return it == dsos_by_name_.end() ? nullptr : it->second;
}

Dso* Machine::FindOrCreateDso(const std::string& name, DsoKind kind, const BuildId& build_id,
                              uint32_t maj, uint32_t min, uint64_t ino, uint64_t ino_gen) {
  auto [b, e] = dsos_by_name_.equal_range(name);
  Dso* adopt = nullptr;
  for (auto it = b; it != e; ++it) {
    Dso* d = it->second;
    if (!build_id.empty()) {
      if (d->build_id() == build_id) return d;
      if (d->build_id().empty() && !adopt) adopt = d;
      continue;
    }
    if (ino != 0) {
      if (d->ino == ino && d->maj == maj && d->min == min && d->ino_generation == ino_gen) return d;
      if (d->ino == 0 && !adopt) adopt = d;
      continue;
    }
    return d;  // no identity given: the first Dso of that name, as perf
  }
  if (adopt) {
    if (!build_id.empty()) adopt->set_build_id(build_id);
    if (ino != 0) {
      adopt->maj = maj;
      adopt->min = min;
      adopt->ino = ino;
      adopt->ino_generation = ino_gen;
    }
    return adopt;
  }
  auto dso = std::make_unique<Dso>(static_cast<int>(dsos_.size()), name, kind);
  dso->set_build_id(build_id);
  dso->maj = maj;
  dso->min = min;
  dso->ino = ino;
  dso->ino_generation = ino_gen;
  Dso* raw = dso.get();
  dsos_.push_back(std::move(dso));
  dsos_by_name_.emplace(name, raw);
  return raw;
}

void Machine::AddBuildIds(const std::vector<BuildIdEntry>& entries) {
  for (const auto& e : entries) {
    if (e.pid != -1 && e.pid != 0) continue;  // other guests are not modelled
    uint16_t cpumode = e.misc & kMiscCpumodeMask;
    if (cpumode == kMiscGuestKernel || cpumode == kMiscGuestUser) continue;
    DsoKind kind;
    if (cpumode == kMiscKernel) {
      kind = (e.filename == kKernelMmapName || StartsWith(e.filename, "[kernel.kallsyms]")) ? DsoKind::kKernel
                                                                                          : DsoKind::kKernelModule;
    } else {
      kind = ClassifyUserMapName(e.filename, 0);
    }
    std::string name = e.filename;
    if (kind == DsoKind::kKernel) name = std::string(kKernelMmapName);
    const size_t nr_dsos = dsos_.size();
    Dso* d = FindOrCreateDso(name, kind, e.build_id);
    if (dsos_.size() != nr_dsos) d->set_from_build_id_table();
    if (kind == DsoKind::kKernelModule && !name.empty() && name[0] == '/') d->set_short_name(ModuleShortName(name));
    if (kind == DsoKind::kKernel && !kernel_dso_) kernel_dso_ = d;
  }
}

Thread* Machine::FindThread(uint32_t tid) const {
  ThreadSlot& slot = thread_cache_[tid & (thread_cache_.size() - 1)];
  if (slot.thread && slot.tid == tid) return slot.thread;
  auto it = threads_.find(tid);
  if (it == threads_.end()) return nullptr;
  slot = {tid, it->second};
  return it->second;
}

void Machine::SetLiveThread(uint32_t tid, Thread* t) {
  threads_[tid] = t;
  thread_cache_[tid & (thread_cache_.size() - 1)] = {tid, t};
}

void Machine::DropLiveThread(uint32_t tid) {
  threads_.erase(tid);
  ThreadSlot& slot = thread_cache_[tid & (thread_cache_.size() - 1)];
  if (slot.tid == tid) slot = {};
}

Thread* Machine::FindOrCreateThread(uint32_t pid, uint32_t tid) {
  if (Thread* t = FindThread(tid)) {
    // perf's machine__update_thread_pid: an existing thread is returned as is; only a
    // thread whose pid was unknown (-1) learns it and joins the leader's maps.
    if (t->pid() == UINT32_MAX && pid != UINT32_MAX && pid != tid) {
      t->set_pid(pid);
      t->set_maps(FindOrCreateThread(pid, pid)->shared_maps());
    } else if (t->pid() == UINT32_MAX && pid != UINT32_MAX) {
      t->set_pid(pid);
    }
    return t;
  }
  std::shared_ptr<Maps> maps;
  if (pid != tid && pid != UINT32_MAX) {
    Thread* leader = FindOrCreateThread(pid, pid);
    maps = leader->shared_maps();
  } else {
    maps = std::make_shared<Maps>();
  }
  all_threads_.push_back(std::make_unique<Thread>(pid, tid, std::move(maps)));
  Thread* t = all_threads_.back().get();
  t->SetPlaceholderComm(Intern(fmt::format(":{}", static_cast<int32_t>(tid))));  // perf: ":-1"
  SetLiveThread(tid, t);
  return t;
}

bool Machine::ChangesModel(uint32_t type) {
  switch (type) {
    case kRecordMmap:
    case kRecordMmap2:
    case kRecordComm:
    case kRecordFork:
    case kRecordExit:
    case kRecordKsymbol:
      return true;
    default:
      return false;
  }
}

bool Machine::ProcessRecord(const RecordView& r, const Loader& ld, uint64_t time) {
  const uint16_t cpumode = r.cpumode();
  switch (r.type) {
    case kRecordMmap:
    case kRecordMmap2: {
      MmapEvent e;
      bool ok = r.type == kRecordMmap ? DecodeMmap(r, ld, &e) : DecodeMmap2(r, ld, &e);
      if (!ok) {
        ++stats_.nr_bad_side_band;
        return true;
      }
      if (r.type == kRecordMmap) e.prot = (r.misc & kMiscMmapData) ? PROT_READ : PROT_EXEC | PROT_READ;
      ProcessMmap(e, cpumode);
      return true;
    }
    case kRecordComm: {
      CommEvent e;
      if (!DecodeComm(r, ld, &e)) {
        ++stats_.nr_bad_side_band;
        return true;
      }
      ProcessComm(e, time == UINT64_MAX ? 0 : time);
      return true;
    }
    case kRecordFork:
    case kRecordExit: {
      TaskEvent e;
      if (!DecodeTask(r, ld, &e)) {
        ++stats_.nr_bad_side_band;
        return true;
      }
      if (r.type == kRecordFork) ProcessFork(e, r.misc);
      else ProcessExit(e);
      return true;
    }
    case kRecordKsymbol: {
      KsymbolEvent e;
      if (!DecodeKsymbol(r, ld, &e)) {
        ++stats_.nr_bad_side_band;
        return true;
      }
      ProcessKsymbol(e);
      return true;
    }
    default:
      return false;
  }
}

DsoKind Machine::VdsoKindFor(const MmapEvent& e) const {
  // A 32-bit task's vdso lives below 4 GiB on a 64-bit kernel: decided from the recorded
  // address, not from the task's binary on this disk (which may be absent).
  bool is64 = arch_.empty() || arch_ == "x86_64" || arch_ == "aarch64" || arch_ == "ppc64le" ||
              arch_ == "s390x" || arch_ == "riscv64";
  if (is64 && e.start + e.len <= (1ULL << 32) && e.start != 0) {
    // x32 tasks also map below 4 GiB; prefer [vdsox32] only when that is what was recorded.
    if (FindDsoByName("[vdsox32]") && !FindDsoByName("[vdso32]")) return DsoKind::kVdsox32;
    return DsoKind::kVdso32;
  }
  return DsoKind::kVdso;
}

void Machine::ProcessMmap(const MmapEvent& e, uint16_t cpumode) {
  ++stats_.nr_mmap_events;
  if (cpumode == kMiscGuestKernel || cpumode == kMiscGuestUser) {
    ++stats_.nr_guest_records;
    return;
  }
  if (cpumode == kMiscKernel) {
    ProcessKernelMmap(e);
    return;
  }
  Thread* thread = FindOrCreateThread(e.pid, e.tid);
  Map m;
  m.start = e.start;
  m.end = e.start + e.len;
  if (m.end < m.start) m.end = UINT64_MAX;  // hostile len
  m.pgoff = e.pgoff;
  m.prot = e.prot;
  m.flags = e.flags;
  DsoKind kind = ClassifyUserMapName(e.filename, e.flags);
  std::string name(e.filename);
  if (kind == DsoKind::kVdso) {
    kind = VdsoKindFor(e);
    name = kind == DsoKind::kVdso32 ? "[vdso32]" : kind == DsoKind::kVdsox32 ? "[vdsox32]" : "[vdso]";
    m.pgoff = 0;  // perf forces pgoff 0 for the vdso (map__new)
    m.dso = FindOrCreateDso(name, kind, e.build_id);
  } else if (kind == DsoKind::kAnon || (kind == DsoKind::kUnknown && StartsWith(e.filename, "["))) {
    m.identity = true;
    const bool exec = (e.prot & PROT_EXEC) || !e.is_mmap2;
    // Text copied onto anonymous memory at the same addresses (tools that back .text
    // with huge pages): the code is still the file's, so the map keeps its identity.
    const Map* under = exec && kind == DsoKind::kAnon ? thread->maps().Find(m.start) : nullptr;
    if (under && under->dso && !under->identity && under->end >= m.end && m.end > m.start &&
        ((under->prot & PROT_EXEC) || !e.is_mmap2) && !under->dso->long_name().empty() &&
        under->dso->long_name()[0] == '/') {
      m.identity = false;
      m.dso = under->dso;
      m.pgoff = under->pgoff + (m.start - under->start);
      if (stats_.nr_text_remaps++ == 0)
        stats_.first_text_remap = fmt::format("pid {}: [{:#x}, {:#x}) in {}", e.pid, m.start, m.end,
                                              under->dso->long_name());
      thread->maps().Insert(m);
      return;
    }
    if (exec) {
      // Anonymous executable memory: JIT code described by /tmp/perf-PID.map.
      m.dso = FindOrCreateDso(fmt::format("/tmp/perf-{}.map", e.pid), DsoKind::kJitMap, BuildId{});
      m.dso->jit_pid = e.pid;
    } else {
      m.dso = FindOrCreateDso(name, DsoKind::kAnon, BuildId{});
    }
  } else {
    m.dso = FindOrCreateDso(name, kind, e.build_id, e.maj, e.min, e.ino, e.ino_generation);
  }
  // After `perf inject --jit`, an executable file map of a runtime's code heap that
  // covers injected jitted-*.so maps does not replace them: they name the functions
  // there, the heap file only offsets (perf 6.1 prints the heap; README "differs on
  // purpose"). The injected maps are put back over the new one as they were.
  std::vector<Map> injected;
  if (kind == DsoKind::kUser && ((e.prot & PROT_EXEC) || !e.is_mmap2) && !IsInjectedJitName(e.filename)) {
    const std::vector<Map>& all = thread->maps().maps();
    auto it = std::lower_bound(all.begin(), all.end(), m.start, [](const Map& a, uint64_t s) { return a.end <= s; });
    for (; it != all.end() && it->start < m.end; ++it)
      if (it->dso && IsInjectedJitName(it->dso->long_name())) injected.push_back(*it);
  }
  thread->maps().Insert(m);
  for (const Map& old : injected) thread->maps().Insert(old);
}

void Machine::ProcessKernelMmap(const MmapEvent& e) {
  std::string_view f = e.filename;
  Map m;
  m.start = e.start;
  m.end = e.start + e.len;
  if (m.end < m.start || e.len == 0) m.end = UINT64_MAX;
  m.identity = true;
  if (StartsWith(f, "[kernel.kallsyms]") || StartsWith(f, "[guest.kernel.kallsyms")) {
    // "[kernel.kallsyms]_text": the suffix is the reference symbol, pgoff its address.
    kernel_ref_symbol_ = std::string(f.substr(kKernelMmapName.size()));
    kernel_ref_addr_ = e.pgoff;
    if (!kernel_dso_) kernel_dso_ = FindOrCreateDso(std::string(kKernelMmapName), DsoKind::kKernel, e.build_id);
    else if (!e.build_id.empty()) kernel_dso_->set_build_id(e.build_id);
    m.dso = kernel_dso_;
    kernel_maps_.Insert(m);
    return;
  }
  if (!f.empty() && (f[0] == '/' || f[0] == '[')) {
    // A module: long name is the .ko path, short name "[xfs]" (machine__addnew_module_map).
    // Its map is a DSO map with pgoff 0, so addresses inside it are module-relative.
    std::string short_name = f[0] == '/' ? ModuleShortName(f) : std::string(f);
    Dso* d = FindOrCreateDso(std::string(f), DsoKind::kKernelModule, e.build_id);
    d->set_short_name(short_name);
    m.dso = d;
    m.identity = false;
    m.pgoff = 0;
    kernel_maps_.Insert(m);
    return;
  }
  // x86 PTI entry trampolines and other extra kernel maps: part of the kernel image.
  if (kernel_dso_) {
    m.dso = kernel_dso_;
    kernel_maps_.Insert(m);
  }
}

void Machine::ProcessComm(const CommEvent& e, uint64_t time) {
  Thread* t = FindOrCreateThread(e.pid, e.tid);
  // A comm is only printed and matched against --comms as printed: escaped once here.
  t->SetComm(HasControlChars(e.comm) ? Intern(EscapeControl(e.comm)) : Intern(e.comm), time, e.exec);
}

void Machine::ProcessFork(const TaskEvent& e, uint16_t misc) {
  // A parent found under ptid with another pid is a stale (recycled) thread: drop it and
  // start the parent afresh, as machine__process_fork_event does.
  if (Thread* stale = FindThread(e.ptid);
      stale && e.ppid != UINT32_MAX && stale->pid() != UINT32_MAX && stale->pid() != e.ppid)
    DropLiveThread(e.ptid);
  Thread* parent = FindOrCreateThread(e.ppid, e.ptid);
  const std::string* parent_comm = Intern(parent->comm());
  bool parent_placeholder = parent->comm_is_placeholder();
  std::shared_ptr<Maps> parent_maps = parent->shared_maps();
  uint32_t parent_pid = parent->pid();
  DropLiveThread(e.tid);
  std::shared_ptr<Maps> maps;
  if (e.pid == parent_pid && e.pid != e.tid) {
    maps = parent_maps;  // a new thread shares the process's maps
  } else if (e.pid != e.tid) {
    Thread* leader = FindOrCreateThread(e.pid, e.pid);
    maps = leader->shared_maps();
  } else if (misc & kMiscForkExec) {
    maps = std::make_shared<Maps>();  // synthesized: the MMAPs follow
  } else {
    maps = std::make_shared<Maps>(*parent_maps);  // fork copies the address space
  }
  all_threads_.push_back(std::make_unique<Thread>(e.pid, e.tid, std::move(maps)));
  Thread* child = all_threads_.back().get();
  if (parent_placeholder) child->SetPlaceholderComm(Intern(fmt::format(":{}", static_cast<int32_t>(e.tid))));
  else child->SetComm(parent_comm, e.time, false);
  SetLiveThread(e.tid, child);
}

void Machine::ProcessExit(const TaskEvent& e) {
  // perf 6.1 only marks the thread dead (thread__exited): samples that arrive after the
  // EXIT (the sampling interrupt of the exit path) still get its comm and maps. A later
  // FORK of the same tid replaces it.
  (void)e;
}

void Machine::ProcessKsymbol(const KsymbolEvent& e) {
  constexpr uint16_t kUnregister = 1;
  if (e.flags & kUnregister) {
    const Map* m = kernel_maps_.Find(e.addr);
    if (m && m->dso && m->dso->kind() == DsoKind::kKsymbol) kernel_maps_.RemoveAt(m->start);
    return;
  }
  const Map* existing = kernel_maps_.Find(e.addr);
  if (existing && existing->dso && existing->dso != kernel_dso_ && existing->dso->kind() != DsoKind::kKsymbol) return;
  Map m;
  m.start = e.addr;
  m.end = e.addr + e.len;
  m.identity = true;
  m.dso = FindOrCreateDso(std::string(e.name), DsoKind::kKsymbol, BuildId{});
  m.dso->ksymbol_symbols.push_back({m.start, m.end, std::string(e.name)});
  kernel_maps_.Insert(m);
}

const Map* Machine::FindMap(const Thread* thread, uint16_t cpumode, uint64_t ip) const {
  const Maps* maps = MapsFor(thread, cpumode);
  return maps ? maps->Find(ip) : nullptr;
}

}  // namespace perflens
