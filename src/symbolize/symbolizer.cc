#include "symbolize/symbolizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "base/mapped_file.h"
#include "base/result.h"
#include "symbolize/debug_file_finder.h"
#include "symbolize/elf_symbols.h"
#include "symbolize/kallsyms.h"
#include "symbolize/kallsyms_index.h"
#include "symbolize/jitdump.h"
#include "symbolize/perf_map.h"
#include "symbolize/vdso.h"

namespace perflens {
namespace {

constexpr uint64_t kMaxTextFile = 512ull << 20;  // kallsyms, perf-PID.map

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Reads a regular text file (also /proc files, whose size reads as 0) up to the limit.
Result<std::string> ReadTextFile(const std::string& path) {
  auto opened = OpenRegularFile(path);
  if (!opened.ok()) return opened.error();
  const int fd = *opened;
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return Err("{}: {}", path, std::strerror(e));
    }
    if (n == 0) break;
    if (text.size() + n > kMaxTextFile) {
      close(fd);
      return Err("{}: larger than {} bytes", path, kMaxTextFile);
    }
    text.append(buf, n);
  }
  close(fd);
  return text;
}

std::string Join(const std::vector<std::string>& v, size_t max_items = 6) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < max_items; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max_items) out += fmt::format(", … ({} more)", v.size() - max_items);
  return out;
}

// "[xfs]" for "[xfs]" or "/lib/modules/…/xfs.ko.xz"; '-' becomes '_' as the kernel does.
std::string ModuleKey(const Dso& dso) {
  const std::string& n = dso.long_name();
  if (!n.empty() && n[0] == '[') return n;
  std::string base = n.substr(n.rfind('/') + 1);
  base = base.substr(0, base.find('.'));
  for (char& c : base) {
    if (c == '-') c = '_';
  }
  return "[" + base + "]";
}

// The kallsyms candidates for the kernel with build-id `bid` (hex, may be empty), the
// first usable one parsed without a KASLR shift. Touches no shared state: it runs on a
// helper thread while the data is read (Symbolizer::PrefetchKernelSymbols).
struct KallsymsLoad {
  std::string bid;  // what it was looked up for
  std::string ref;  // the KASLR anchor symbol looked for
  std::optional<KallsymsTables> tables;
  // The file's text (the tables' names point into it), kept to parse again when a KASLR
  // shift cannot be applied in place.
  std::shared_ptr<const KallsymsText> text;
  std::string path;
  std::vector<std::string> tried;
};

// A kallsyms file's text, and for a mapped regular file its index key taken from the
// very descriptor that was mapped (a file replaced meanwhile cannot lend its key to
// this text's tables). Errors: the file cannot be read, or is larger than kMaxTextFile.
struct LoadedKallsymsText {
  std::shared_ptr<const KallsymsText> text;
  std::optional<KallsymsIndexKey> key;
};
Result<LoadedKallsymsText> LoadKallsymsText(const std::string& path, const std::string& ref) {
  auto t = std::make_shared<KallsymsText>();
  LoadedKallsymsText out;
  if (auto fd = OpenRegularFile(path); fd.ok()) {
    auto key = KallsymsIndexKeyOfFd(*fd, path, ref);
    // /proc/kallsyms reads as size 0: read below.
    auto m = key.ok() && key->size > 0 ? MappedFile::MapFd(*fd, path, kMaxTextFile) : Result<MappedFile>(Err(""));
    close(*fd);
    if (m.ok()) {
      t->mapped = std::move(*m);
      out.key = std::move(*key);
      out.text = std::move(t);
      return out;
    }
  }
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.error();
  t->read = std::move(*text);
  out.text = std::move(t);
  return out;
}

// A recording whose header names no kernel (no build-id table, OSRELEASE or ARCH): a
// file cut short before its header features were written, or one without them. Not
// "foreign": nothing says which kernel it is.
constexpr const char* kUnidentifiedKernel =
    "the recording does not say which kernel it ran on (no kernel build-id, release or arch in its header: "
    "a truncated file?); if it ran on this machine's running kernel, pass --kallsyms /proc/kallsyms";

// Why this machine's /proc/kallsyms cannot describe the recording's kernel with build-id
// `bid` (hex, may be empty), "" when it can: under --symfs nothing of this machine is
// read; a recorded build-id must be the running kernel's; without one, the recorded
// release and arch (HEADER_OSRELEASE/ARCH) must be the running ones.
std::string LocalKallsymsRefusal(const SymbolizeOptions& options, const std::string& bid) {
  if (!options.symfs.empty()) return "--symfs: this machine's kernel symbols are not read";
  if (!bid.empty()) {
    const std::string running = RunningKernelBuildIdHex();
    if (running == bid) return "";
    return fmt::format("the recording's kernel is not the running one (build-id {} here)",
                       running.empty() ? "unknown" : running);
  }
  if (options.recorded_osrelease.empty() && options.recorded_arch.empty())
    return kUnidentifiedKernel;
  struct utsname u;
  if (uname(&u) != 0) return "the running kernel's release is unknown";
  if (options.recorded_osrelease == u.release && options.recorded_arch == u.machine) return "";
  return fmt::format("the recording's kernel ({} {}) is not the running one ({} {})",
                     options.recorded_osrelease.empty() ? "unknown release" : options.recorded_osrelease,
                     options.recorded_arch.empty() ? "unknown arch" : options.recorded_arch, u.release, u.machine);
}

// The tables of a kallsyms text, parsed without a KASLR shift: from its index in
// `cache_dir` when `key` (a mapped file's) has a valid one, else parsed and, with a
// key, indexed there for the next run (a cache: failing to write it changes nothing).
Result<KallsymsTables> KallsymsTablesOf(const LoadedKallsymsText& loaded, const std::string& ref,
                                        const std::string& cache_dir) {
  const bool cached = !cache_dir.empty() && loaded.key && loaded.key->size == loaded.text->text().size();
  const std::string index_path = cached ? KallsymsIndexPath(cache_dir, *loaded.key) : "";
  if (cached)
    if (auto indexed = OpenKallsymsIndex(index_path, loaded.text, *loaded.key); indexed.ok()) return indexed;
  auto parsed = ParseKallsyms(loaded.text, ref, 0);
  if (parsed.ok() && cached && !parsed->all_zero) {
    if (auto bytes = SerializeKallsymsIndex(*parsed, loaded.text->text(), *loaded.key); bytes.ok())
      (void)WriteKallsymsIndex(index_path, *bytes);
  }
  return parsed;
}

// `local_refusal`: LocalKallsymsRefusal's answer ("" lets /proc/kallsyms be a candidate).
KallsymsLoad FindKallsyms(const std::string& kallsyms_option, const std::string& buildid_dir, std::string bid,
                          std::string ref, const std::string& local_refusal, const std::string& cache_dir) {
  KallsymsLoad out;
  out.bid = std::move(bid);
  out.ref = std::move(ref);
  DebugFileQuery query;
  query.build_id = BuildId::FromHex(out.bid).value_or(BuildId{});
  query.user_file = kallsyms_option;
  std::span<const DebugSource> sources = UserFileSource();
  if (kallsyms_option.empty()) {
    sources = KallsymsDebugSources();
    // /proc/kallsyms only describes the running kernel.
    if (local_refusal.empty()) query.local_image = "/proc/kallsyms";
    else out.tried.push_back("/proc/kallsyms: not used: " + local_refusal);
  }
  std::vector<std::string> paths;
  for (Candidate& c : DebugFileCandidates(sources, query, {"", buildid_dir, "kallsyms"}))
    paths.push_back(std::move(c.path));
  for (const std::string& p : paths) {
    if (!IsRegularFile(p)) {
      out.tried.push_back(p);
      continue;
    }
    auto loaded = LoadKallsymsText(p, out.ref);
    if (!loaded.ok()) {
      out.tried.push_back(loaded.error().message);
      continue;
    }
    out.text = loaded->text;
    auto t = KallsymsTablesOf(*loaded, out.ref, cache_dir);
    if (!t.ok()) {
      out.tried.push_back(fmt::format("{}: {}", p, t.error().message));
      continue;
    }
    if (t->all_zero) {
      out.tried.push_back(p + ": all addresses are zero (kptr_restrict)");
      continue;
    }
    out.tables = std::move(*t);
    out.path = p;
    break;
  }
  return out;
}

// The symbol whose recorded address anchors KASLR (from the kernel MMAP's name).
std::string KernelRefSymbol(const Machine* machine) {
  return machine && !machine->kernel_ref_symbol().empty() ? machine->kernel_ref_symbol() : "_text";
}

using Parts = DsoModule::Parts;

// The DSOs noted under one reason. Listed by Dso id (the order the model made them),
// not by when each was loaded: loads run on several threads (kallsyms beside the read),
// and the summary must not change from run to run.
struct ProblemClass {
  struct Item {
    int dso_id = 0;
    std::string name;     // "" for a note
    std::string message;
  };
  std::vector<Item> items;  // by dso_id, then in the order noted; at most one per Dso and reason
  bool unresolved = false;  // a DSO whose symbols are missing (Fail), not a note
  static constexpr size_t kMaxNames = 4;
};

// Published modules by Dso id: chunks of atomic pointers that never move, so a lookup
// is two acquire loads and no lock. Ids are dense per Machine (its Dso count); an id
// outside kMaxIds is still served, through the loading map under its mutex.
class ModuleSlots {
 public:
  static constexpr size_t kChunkBits = 10, kChunks = 1024, kMaxIds = kChunks << kChunkBits;
  using Slot = std::atomic<const DsoModule*>;

  const DsoModule* Find(int id) const {
    if (id < 0 || static_cast<size_t>(id) >= kMaxIds) return nullptr;
    const Slot* chunk = chunks_[static_cast<size_t>(id) >> kChunkBits].load(std::memory_order_acquire);
    return chunk ? chunk[id & ((1 << kChunkBits) - 1)].load(std::memory_order_acquire) : nullptr;
  }
  // Called once per id, with the module fully built.
  void Publish(int id, const DsoModule* module) {
    if (id < 0 || static_cast<size_t>(id) >= kMaxIds) return;
    std::lock_guard<std::mutex> lock(mu_);
    std::atomic<Slot*>& c = chunks_[static_cast<size_t>(id) >> kChunkBits];
    Slot* chunk = c.load(std::memory_order_relaxed);
    if (!chunk) {
      owned_.push_back(std::make_unique<Slot[]>(size_t{1} << kChunkBits));  // value-initialized: nullptr
      chunk = owned_.back().get();
      c.store(chunk, std::memory_order_release);
    }
    chunk[id & ((1 << kChunkBits) - 1)].store(module, std::memory_order_release);
  }

 private:
  std::array<std::atomic<Slot*>, kChunks> chunks_{};
  std::mutex mu_;  // guards owned_ and chunk creation
  std::vector<std::unique_ptr<Slot[]>> owned_;
};

}  // namespace

struct Symbolizer::Impl {
  // First, so that it goes last: modules may keep the vdso's /proc/self/fd path.
  LocalVdsos local_vdsos;
  // Set in the constructor, read-only after.
  SymbolizeOptions options;
  const Machine* machine = nullptr;
  std::string buildid_dir;

  // One per Dso id: the once that builds its module, and the module.
  struct Loading {
    std::once_flag once;
    std::unique_ptr<DsoModule> module;
  };
  std::mutex loading_mu;  // guards the map, not the loads
  std::unordered_map<int, std::unique_ptr<Loading>> loading;
  ModuleSlots published;

  // Kernel symbols: looked up once (kallsyms_mu), by the first kernel or module load.
  std::mutex kallsyms_mu;
  std::atomic<bool> kallsyms_tried{false};
  std::atomic<bool> kallsyms_prefetch_started{false};
  // Declared before the future, so it outlives the prefetch (the future's destructor
  // waits for the task, which sets it as it returns).
  std::atomic<bool> kallsyms_prefetch_done{false};
  std::future<KallsymsLoad> kallsyms_prefetch;  // guarded by kallsyms_mu
  std::optional<KallsymsTables> kallsyms;       // written once under kallsyms_mu, then read-only
  DsoLoadInfo kallsyms_info;                    // likewise

  // Set in the constructor when options.debuginfod_urls is not empty.
  std::unique_ptr<DebuginfodFetcher> debuginfod;

  // The file to open for candidate `c`: its path, or for a debuginfod row the file
  // fetched for `bid` into the client cache (nullopt when it could not be fetched;
  // the fetcher's summary says why).
  std::optional<std::string> LocalPath(const Candidate& c, const BuildId& bid) {
    if (!IsRemoteCandidate(c.kind)) return c.path;
    if (!debuginfod) return std::nullopt;
    auto fetched = debuginfod->Fetch(bid, c.kind == CandidateKind::kDebuginfodExecutable
                                              ? DebuginfodFileKind::kExecutable
                                              : DebuginfodFileKind::kDebuginfo);
    if (!fetched.ok()) return std::nullopt;
    return std::move(*fetched);
  }

  mutable std::mutex problems_mu;
  std::map<std::string, ProblemClass> problems;  // guarded by problems_mu

  // SymbolizeOptions::prefetch_line_info: modules whose DwarfIndex a helper opens, one
  // at a time, in load order. Stopped and joined first thing in ~Impl.
  std::mutex prefetch_mu;
  std::condition_variable prefetch_cv;
  std::deque<const DsoModule*> prefetch_queue;  // guarded by prefetch_mu
  bool prefetch_stop = false;                   // likewise
  std::thread prefetch_thread;
  void PrefetchLineInfo(const DsoModule* m) {
    std::lock_guard<std::mutex> lock(prefetch_mu);
    if (!prefetch_thread.joinable()) {
      try {
        prefetch_thread = std::thread([this] {
          std::unique_lock<std::mutex> lk(prefetch_mu);
          while (true) {
            prefetch_cv.wait(lk, [this] { return prefetch_stop || !prefetch_queue.empty(); });
            if (prefetch_stop) return;
            const DsoModule* next = prefetch_queue.front();
            prefetch_queue.pop_front();
            lk.unlock();
            next->dwarf_index();  // call_once inside: a caller that needs it waits for this
            lk.lock();
          }
        });
      } catch (const std::system_error&) {
        return;  // no thread: opened on first use instead
      }
    }
    prefetch_queue.push_back(m);
    prefetch_cv.notify_one();
  }
  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(prefetch_mu);
      prefetch_stop = true;
    }
    prefetch_cv.notify_one();
    if (prefetch_thread.joinable()) prefetch_thread.join();
  }

  const DsoModule* LoadModule(const Dso& dso);
  Parts Load(const Dso& dso);
  void LoadUser(const Dso& dso, Parts* e);
  void LoadKallsymsOnce(const Dso& kernel);
  void LoadKernel(const Dso& dso, Parts* e);
  bool LoadVmlinux(const Dso& dso, Parts* e);
  void LoadJit(const Dso& dso, Parts* e);
  // True when the jitdump named by the marker gave the symbols; else noted, false.
  bool LoadJitdump(const Dso& dso, Parts* e);
  void LoadKsymbol(const Dso& dso, Parts* e);
  void LoadVdso(const Dso& dso, Parts* e);
  // Counts `dso` under `cls`. `name`: the name listed for a DSO whose symbols are
  // missing ("" for a note).
  void Note(const Dso& dso, const std::string& cls, std::string message, const std::string& name = "") {
    std::lock_guard<std::mutex> lock(problems_mu);
    ProblemClass& p = problems[cls];
    auto at = std::upper_bound(p.items.begin(), p.items.end(), dso.id(),
                               [](int id, const ProblemClass::Item& item) { return id < item.dso_id; });
    p.items.insert(at, {dso.id(), name, std::move(message)});
    p.unresolved |= !name.empty();
  }
  // `cls` says why in the words of the summary: "no file", "build-id mismatch",
  // "stripped", "foreign kernel", "vdso image unavailable", ...
  void Fail(Parts* e, const Dso& dso, LoadStatus status, const std::string& cls, const std::string& name,
            std::string message) {
    e->info.status = status;
    e->info.message = message;
    e->info.symtab_origin = '!';
    Note(dso, cls, std::move(message), name);
  }
  void Loaded(Parts* e, SymbolTable table, std::string path) {
    e->owned = std::move(table);
    e->info.status = LoadStatus::kLoaded;
    e->info.path = std::move(path);
  }
  // An ELF module: its symbols and segments; DWARF comes from the symbols file.
  void LoadedElf(Parts* e, ElfImage image, std::string syms_path, std::string runtime_path) {
    e->segments = std::move(image.segments);
    e->runtime_path = std::move(runtime_path);
    e->dwarf_path = syms_path;
    e->demangle = options.demangle;
    e->demangle_params = options.demangle_params;
    Loaded(e, std::move(image.symbols), std::move(syms_path));
  }
};

void Symbolizer::PrefetchKernelSymbols() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.kallsyms_mu);
  if (m.kallsyms_tried.load() || m.kallsyms_prefetch.valid() || !m.options.vmlinux.empty()) return;
  const Dso* kernel = m.machine ? m.machine->kernel_dso() : nullptr;
  std::string bid = kernel ? kernel->build_id().ToHex() : "";
  try {
    m.kallsyms_prefetch = std::async(
        std::launch::async,
        [done = &m.kallsyms_prefetch_done](std::string option, std::string dir, std::string b, std::string ref,
                                           std::string refusal, std::string cache) {
          KallsymsLoad load = FindKallsyms(option, dir, std::move(b), std::move(ref), refusal, cache);
          done->store(true, std::memory_order_release);
          return load;
        },
        m.options.kallsyms, m.buildid_dir, bid, KernelRefSymbol(m.machine), LocalKallsymsRefusal(m.options, bid),
        m.options.cache_dir);
    m.kallsyms_prefetch_started.store(true, std::memory_order_release);
  } catch (const std::system_error&) {
    // No thread to spare: the kernel is loaded on first use instead.
  }
}

bool Symbolizer::KernelSymbolsPending() const {
  const Impl& m = *impl_;
  // Atomic flags, not future::wait_for: a zero-timeout wait may be a futex call, and
  // this is asked per kernel sample.
  return !m.kallsyms_tried.load(std::memory_order_acquire) &&
         m.kallsyms_prefetch_started.load(std::memory_order_acquire) &&
         !m.kallsyms_prefetch_done.load(std::memory_order_acquire);
}

Symbolizer::Symbolizer(SymbolizeOptions options, const Machine* machine) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->machine = machine;
  impl_->buildid_dir = impl_->options.buildid_dir.empty() ? DefaultBuildIdDir() : impl_->options.buildid_dir;
  if (!impl_->options.debuginfod_urls.empty())
    impl_->debuginfod =
        std::make_unique<DebuginfodFetcher>(impl_->options.debuginfod_urls, impl_->options.debuginfod_progress);
}

Symbolizer::~Symbolizer() = default;

const DsoModule* Symbolizer::Module(const Dso& dso) {
  if (const DsoModule* m = impl_->published.Find(dso.id())) return m;
  return impl_->LoadModule(dso);
}

const DsoModule* Symbolizer::FindLoaded(const Dso& dso) const {
  return impl_->published.Find(dso.id());  // (ids past ModuleSlots::kMaxIds: never)
}

std::vector<std::string> Symbolizer::Problems() const {
  std::lock_guard<std::mutex> lock(impl_->problems_mu);
  std::vector<std::string> out;
  for (const auto& [cls, p] : impl_->problems) {
    const std::vector<ProblemClass::Item>& items = p.items;
    const std::string& first = items.front().message;  // the summary line's example
    if (items.size() == 1) {
      out.push_back(p.unresolved && first.find(cls) == std::string::npos ? cls + ": " + first : first);
    } else {
      std::string names;
      size_t listed = 0;
      for (const ProblemClass::Item& item : items) {
        if (item.name.empty() || listed == ProblemClass::kMaxNames) continue;
        names += (names.empty() ? ": " : ", ") + item.name;
        ++listed;
      }
      if (listed < items.size() && !names.empty()) names += ", …";
      out.push_back(fmt::format("{} ({} DSOs{}), e.g. {}", cls, items.size(), names, first));
    }
  }
  if (impl_->debuginfod)
    if (auto line = impl_->debuginfod->Summary()) out.push_back(std::move(*line));
  return out;
}

std::vector<std::string> Symbolizer::FixHints() const {
  std::lock_guard<std::mutex> lock(impl_->problems_mu);
  bool files_missing = false, stripped = false;
  for (const auto& [cls, p] : impl_->problems) {
    // A JIT map or an unreadable file is not fixed by copying files from elsewhere.
    if (p.unresolved && cls == "stripped") stripped = true;
    // An unidentified kernel's message says what to pass instead.
    else if (p.unresolved && cls != "jit map" && cls != "unreadable" && cls != "unidentified kernel")
      files_missing = true;
  }
  std::vector<std::string> out;
  if (files_missing)
    out.push_back(
        "to resolve them: run `perflens archive -i perf.data -o DIR` on the recording machine and pass "
        "`--buildid-dir DIR` here; or set DEBUGINFOD_URLS (or --debuginfod URL) to a debuginfod server that has these "
        "build-ids; or pass `--symfs DIR` with a copy of the recording machine's files");
  if (stripped)
    out.push_back("stripped DSOs: install their debug files (/usr/lib/debug, a -dbg or -dbgsym package) or serve "
                  "them by build-id through debuginfod");
  return out;
}

std::vector<std::string> Symbolizer::LineInfoProblems() const {
  std::vector<std::pair<int, std::string>> failed, damaged;
  {
    std::lock_guard<std::mutex> lock(impl_->loading_mu);
    for (const auto& [id, l] : impl_->loading) {
      const DsoModule* m = impl_->published.Find(id);
      if (!m) continue;
      if (m->line_info_failed()) failed.emplace_back(id, m->line_info_error());
      else if (std::string p = m->line_info_problem(); !p.empty()) damaged.emplace_back(id, std::move(p));
    }
  }
  std::vector<std::string> out;
  auto summarize = [&](std::vector<std::pair<int, std::string>>& dsos, std::string_view what) {
    if (dsos.empty()) return;
    std::sort(dsos.begin(), dsos.end());
    std::string text = fmt::format("{} DSO{} {}: ", dsos.size(), dsos.size() == 1 ? "" : "s", what);
    for (size_t i = 0; i < dsos.size(); ++i) text += (i ? "; " : "") + dsos[i].second;
    out.push_back(std::move(text));
  };
  summarize(failed, "without line info (srclines print as ??:0)");
  summarize(damaged, "with unreadable DWARF skipped (srclines there print as ??:0)");
  return out;
}

const DsoModule* Symbolizer::Impl::LoadModule(const Dso& dso) {
  Loading* l;
  {
    std::lock_guard<std::mutex> lock(loading_mu);
    std::unique_ptr<Loading>& slot = loading[dso.id()];
    if (!slot) slot = std::make_unique<Loading>();
    l = slot.get();
  }
  // Outside loading_mu: a slow load (a big debug file) holds up only its own Dso.
  std::call_once(l->once, [&] {
    l->module = std::make_unique<DsoModule>(Load(dso));
    published.Publish(dso.id(), l->module.get());
    if (options.prefetch_line_info && dso.kind() == DsoKind::kUser && l->module->info().status == LoadStatus::kLoaded)
      PrefetchLineInfo(l->module.get());
  });
  return l->module.get();
}

DsoModule::Parts Symbolizer::Impl::Load(const Dso& dso) {
  Parts parts;
  Parts* e = &parts;
  switch (dso.kind()) {
    case DsoKind::kUser: LoadUser(dso, e); break;
    case DsoKind::kKernel:
    case DsoKind::kKernelModule: LoadKernel(dso, e); break;
    case DsoKind::kJitMap: LoadJit(dso, e); break;
    case DsoKind::kKsymbol: LoadKsymbol(dso, e); break;
    case DsoKind::kVdso:
    case DsoKind::kVdso32:
    case DsoKind::kVdsox32: LoadVdso(dso, e); break;
    case DsoKind::kAnon:
    case DsoKind::kUnknown: e->info.status = LoadStatus::kNoSymbols; break;
  }
  return parts;
}

// perf's dso__load for ELF files: walk the candidates, gate on the build-id, keep the
// first with .symtab (syms) and the first with .dynsym (runtime image). The debuginfod
// rows come last and are fetched only for what is still missing: the executable when
// no runtime image was found, the debug file when no .symtab was.
void Symbolizer::Impl::LoadUser(const Dso& dso, Parts* e) {
  const std::string& name = dso.long_name();
  FinderOptions fo{options.symfs, buildid_dir, "elf", debuginfod != nullptr && !dso.build_id().empty()};
  DebugFileQuery query{name, dso.build_id(), "", "", ""};
  BuildId& bid = query.build_id;
  // The binary at its recorded path: its debuglink, and (no build-id recorded) its
  // build-id so that debug files must match it, as perf does.
  for (const Candidate& c : DebugFileCandidates(SystemPathSource(), {name, {}, "", "", ""}, fo)) {
    if (!IsRegularFile(c.path)) continue;
    if (auto info = ReadElfInfo(c.path); info.ok()) {
      if (bid.empty() || bid.MatchesNote(info->build_id)) query.debuglink = info->debuglink;
      if (bid.empty()) bid = info->build_id;
    }
  }
  std::string syms, runtime;
  CandidateKind syms_kind = CandidateKind::kSystemPath, runtime_kind = CandidateKind::kSystemPath;
  std::vector<std::string> looked, mismatches, errors;
  for (const Candidate& c : DebugFileCandidates(ElfDebugSources(), query, fo)) {
    looked.push_back(c.path);
    if (c.kind == CandidateKind::kDebuginfodExecutable && !runtime.empty()) continue;
    if (c.kind == CandidateKind::kDebuginfodDebuginfo && !syms.empty()) continue;
    std::optional<std::string> path = LocalPath(c, bid);
    if (!path || !IsRegularFile(*path)) continue;
    auto info = ReadElfInfo(*path);
    if (!info.ok()) {
      errors.push_back(info.error().message);
      continue;
    }
    if (!bid.empty() && !bid.MatchesNote(info->build_id)) {
      std::string has = info->build_id.empty() ? "no build-id" : info->build_id.ToHex();
      mismatches.push_back(fmt::format("{} has {}", *path, has));
      continue;
    }
    if (syms.empty() && info->has_symtab) {
      syms = *path;
      syms_kind = c.kind;
    }
    if (runtime.empty() && info->has_dynsym) {
      runtime = *path;
      runtime_kind = c.kind;
    }
    if (!syms.empty() && !runtime.empty()) break;
  }
  if (syms.empty() && runtime.empty()) {
    if (!mismatches.empty()) {
      Fail(e, dso, LoadStatus::kBuildIdMismatch, "build-id mismatch", name,
           fmt::format("{}: no file with build-id {} ({})", name, bid.ToHex(), Join(mismatches)));
    } else if (!errors.empty()) {
      Fail(e, dso, LoadStatus::kError, "unreadable", name, fmt::format("{}: {}", name, Join(errors, 2)));
    } else if (std::find_if(looked.begin(), looked.end(), IsRegularFile) != looked.end()) {
      Fail(e, dso, LoadStatus::kNoSymbols, "stripped", name, fmt::format("{}: no .symtab or .dynsym", name));
    } else {
      std::string want = bid.empty() ? "" : fmt::format(" with build-id {}", bid.ToHex());
      Fail(e, dso, LoadStatus::kNotFound, "no file", name, fmt::format("{}: no file{} (looked in: {})", name, want, Join(looked)));
    }
    return;
  }
  if (syms.empty()) {
    syms = runtime;
    syms_kind = runtime_kind;  // perf's symtab_type is the type of the file read
  }
  if (runtime.empty()) runtime = syms;
  ElfSymbolOptions eo;
  eo.demangle = options.demangle;
  eo.demangle_params = options.demangle_params;
  auto image = LoadElfImage(syms, runtime, eo);
  if (!image.ok()) {
    Fail(e, dso, LoadStatus::kError, "unreadable", name, fmt::format("{}: {}", name, image.error().message));
    return;
  }
  LoadedElf(e, std::move(*image), syms, runtime);
  e->info.symtab_origin = SymtabOrigin(syms_kind, false);
  // A symbols file without DWARF: source lines and inline frames from debuginfod's
  // debug file, fetched only when first asked for (DsoModule::DwarfOpenPath).
  if (debuginfod && !dso.build_id().empty()) {
    e->fetch_debug_file = [this, want = bid]() -> std::string {
      auto fetched = debuginfod->Fetch(want, DebuginfodFileKind::kDebuginfo);
      if (!fetched.ok()) return "";
      auto info = ReadElfInfo(*fetched);
      if (!info.ok() || !(info->build_id == want) || !info->has_debug_info) return "";
      return *fetched;
    };
  }
}

void Symbolizer::Impl::LoadKallsymsOnce(const Dso& kernel) {
  std::lock_guard<std::mutex> lock(kallsyms_mu);
  if (kallsyms_tried.load(std::memory_order_relaxed)) return;
  // Set when done (release), so that KernelSymbolsPending stays true until then.
  struct MarkTried {
    std::atomic<bool>* tried;
    ~MarkTried() { tried->store(true, std::memory_order_release); }
  } mark{&kallsyms_tried};
  const std::string bid = kernel.build_id().ToHex(), ref = KernelRefSymbol(machine);
  std::optional<KallsymsLoad> found;
  if (kallsyms_prefetch.valid()) {
    KallsymsLoad early = kallsyms_prefetch.get();
    if (early.bid == bid && early.ref == ref) found = std::move(early);  // else looked up the wrong one
  }
  if (!found)
    found = FindKallsyms(options.kallsyms, buildid_dir, bid, ref, LocalKallsymsRefusal(options, bid), options.cache_dir);
  if (found->tables) {
    // KASLR: shift by recorded anchor − this file's anchor.
    uint64_t recorded = machine ? machine->kernel_ref_addr() : 0;
    int64_t delta = recorded && found->tables->ref_addr ? static_cast<int64_t>(recorded - found->tables->ref_addr) : 0;
    // In place unless an address would wrap; then as parsed with the shift.
    if (delta != 0 && !found->tables->kernel.Shift(delta)) {
      auto shifted = ParseKallsyms(found->text, ref, delta);
      if (shifted.ok()) found->tables = std::move(*shifted);
      else found->tables.reset();
    }
  }
  if (found->tables) {
    kallsyms = std::move(*found->tables);
    kallsyms_info.status = LoadStatus::kLoaded;
    kallsyms_info.path = found->path;
    kallsyms_info.symtab_origin = 'k';
    return;
  }
  std::string want = bid.empty() ? "" : fmt::format(" with build-id {}", bid);
  kallsyms_info.status = LoadStatus::kNotFound;
  kallsyms_info.message = fmt::format("[kernel.kallsyms]: no kallsyms{} (tried: {})", want, Join(found->tried));
}

// --vmlinux FILE: the kernel's ELF symbols (absolute st_value), build-id gated and
// relocated by the KASLR anchor: reloc = recorded _text − vmlinux _text (perf's
// dso__load_vmlinux + map relocation). Returns false (with e filled) on failure.
bool Symbolizer::Impl::LoadVmlinux(const Dso& dso, Parts* e) {
  const std::string& path = options.vmlinux;
  auto info = ReadElfInfo(path);
  if (!info.ok()) {
    Fail(e, dso, LoadStatus::kError, "kernel", dso.long_name(), info.error().message);
    return false;
  }
  if (!dso.build_id().empty() && !info->build_id.empty() && !dso.build_id().MatchesNote(info->build_id)) {
    Fail(e, dso, LoadStatus::kBuildIdMismatch, "kernel", dso.long_name(),
         fmt::format("[kernel.kallsyms]: {} has build-id {}, the recording needs {}", path, info->build_id.ToHex(),
                     dso.build_id().ToHex()));
    return false;
  }
  ElfSymbolOptions eo;
  eo.demangle = options.demangle;
  eo.demangle_params = options.demangle_params;
  eo.kernel = true;
  eo.synthesize_plt = false;
  auto table = LoadElfSymbols(path, path, eo);
  if (!table.ok()) {
    Fail(e, dso, LoadStatus::kError, "kernel", dso.long_name(), table.error().message);
    return false;
  }
  std::string ref = KernelRefSymbol(machine);
  uint64_t recorded = machine ? machine->kernel_ref_addr() : 0;
  uint64_t anchor = 0;
  for (const Symbol& sym : table->symbols())
    if (sym.name == ref) {
      anchor = sym.start;
      break;
    }
  if (recorded && anchor && recorded != anchor) {
    uint64_t reloc = recorded - anchor;  // wraps correctly for negative shifts
    SymbolTable moved;
    moved.set_demangle_params(options.demangle_params);
    for (const Symbol& sym : table->symbols()) {
      if (sym.demangle_pending) moved.AddMangled(sym.start + reloc, sym.end - sym.start, sym.name, sym.binding, sym.type);
      else moved.Add(sym.start + reloc, sym.end - sym.start, sym.name, sym.binding, sym.type);
    }
    moved.Finish();
    Loaded(e, std::move(moved), path);
  } else {
    Loaded(e, std::move(*table), path);
  }
  e->info.symtab_origin = 'v';
  // DWARF of the image, in its unrelocated addresses; no segments: kernel lookups
  // take absolute addresses, not file offsets.
  e->runtime_path = path;
  e->dwarf_path = path;
  e->demangle = options.demangle;
  e->demangle_params = options.demangle_params;
  return true;
}

void Symbolizer::Impl::LoadKernel(const Dso& dso, Parts* e) {
  const Dso* kernel = machine && machine->kernel_dso() ? machine->kernel_dso() : &dso;
  if (dso.kind() == DsoKind::kKernel && !options.vmlinux.empty() && options.kallsyms.empty()) {
    LoadVmlinux(dso, e);
    return;
  }
  LoadKallsymsOnce(*kernel);
  if (!kallsyms) {
    // Why this machine's kallsyms was no answer names the class.
    const std::string refusal = LocalKallsymsRefusal(options, kernel->build_id().ToHex());
    const char* cls = refusal.empty()                 ? "kernel symbols unavailable"
                      : !options.symfs.empty()        ? "kernel symbols not under --symfs"
                      : refusal == kUnidentifiedKernel ? "unidentified kernel"
                                                      : "foreign kernel";
    Fail(e, dso, kallsyms_info.status, cls, dso.long_name(), kallsyms_info.message);
    return;
  }
  e->info = kallsyms_info;
  if (dso.kind() == DsoKind::kKernel) {
    e->shared = &kallsyms->kernel;
    return;
  }
  auto it = kallsyms->modules.find(ModuleKey(dso));
  if (it == kallsyms->modules.end()) {
    Fail(e, dso, LoadStatus::kNotFound, "kernel module", dso.long_name(),
         fmt::format("{}: module {} not in {}", dso.long_name(), ModuleKey(dso), kallsyms_info.path));
    return;
  }
  // Module maps translate ip → module_offset = ip − (start − pgoff) (perf's map__map_ip
  // for a module DSO map), so the module's absolute kallsyms addresses are rebased on
  // its load base: xfs_bar at 0xffffffffc0001100, base 0xffffffffc0000000 → 0x1100.
  uint64_t base = 0;
  if (machine) {
    for (const Map& m : machine->kernel_maps().maps())
      if (m.dso == &dso) {
        base = m.start - m.pgoff;
        break;
      }
  }
  SymbolTable rel;
  for (const Symbol& sym : it->second.symbols())
    if (sym.start >= base) rel.Add(sym.start - base, sym.end - sym.start, sym.name, sym.binding, sym.type);
  rel.Finish();
  std::string path = kallsyms_info.path;
  Loaded(e, std::move(rel), path);
}

// A process with a jitdump marker resolves through its jitdump (sizes, moves, written
// by the runtime itself); the perf map only when there is none or it cannot be used.
void Symbolizer::Impl::LoadJit(const Dso& dso, Parts* e) {
  e->info.symtab_origin = 'j';  // perf's DSO_BINARY_TYPE__JAVA_JIT (a jitdump's too)
  if (dso.jit_pid && LoadJitdump(dso, e)) return;
  std::string path = dso.jit_pid ? fmt::format("/tmp/perf-{}.map", dso.jit_pid) : dso.long_name();
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    Fail(e, dso, LoadStatus::kNotFound, "jit map", dso.long_name(), text.error().message);
    return;
  }
  size_t bad = 0;
  SymbolTable t = ParsePerfMap(*text, &bad);
  if (bad) {
    Note(dso, "jit map lines", fmt::format("{}: {} malformed lines skipped", path, bad));
  }
  Loaded(e, std::move(t), path);
}

bool Symbolizer::Impl::LoadJitdump(const Dso& dso, Parts* e) {
  // The marker is the process's map of its own dump; the model keeps it as an ordinary
  // file Dso (no sample lands in it), first seen first.
  const Dso* marker = nullptr;
  if (machine) {
    for (const auto& d : machine->dsos()) {
      if (d->kind() == DsoKind::kUser && IsJitdumpMarker(d->long_name(), dso.jit_pid)) {
        marker = d.get();
        break;
      }
    }
  }
  if (!marker) return false;
  auto path = PathUnderSymfs(options.symfs, marker->long_name());
  if (!path) {
    Note(dso, "jitdump", fmt::format("{}: outside --symfs {}, using the perf map", marker->printable_long_name(),
                                options.symfs));
    return false;
  }
  auto dump = ReadJitdump(*path);
  if (!dump.ok()) {
    Note(dso, "jitdump", fmt::format("{}, using the perf map", dump.error().message));
    return false;
  }
  if (dump->pid != dso.jit_pid) {
    Note(dso, "jitdump", fmt::format("{}: written by pid {}, mapped by pid {}; using the perf map", *path, dump->pid,
                                dso.jit_pid));
    return false;
  }
  if (dump->bad_records) {
    Note(dso, "jitdump records", fmt::format("{}: {} damaged records skipped", *path, dump->bad_records));
  }
  Loaded(e, std::move(dump->symbols), *path);
  return true;
}

void Symbolizer::Impl::LoadKsymbol(const Dso& dso, Parts* e) {
  SymbolTable t;
  for (const Dso::KsymbolSymbol& s : dso.ksymbol_symbols) {
    t.Add(s.start, s.end > s.start ? s.end - s.start : 0, s.name);
  }
  t.Finish();
  Loaded(e, std::move(t), "");
}

// Part C: an image is used only when its build-id equals the recorded one; with none
// recorded, the local vdso only when the recorded kernel release and arch are ours.
void Symbolizer::Impl::LoadVdso(const Dso& dso, Parts* e) {
  const std::string& name = dso.short_name();
  const BuildId& bid = dso.build_id();
  auto local = local_vdsos.Get(dso.kind());
  std::string local_desc = local.ok() ? local->build_id.ToHex() : local.error().message;
  // Build-id cache rows are looked up under "[vdso]" for every vdso kind, as perf.
  DebugFileQuery query{"[vdso]", bid, "", options.vdso_image, local.ok() ? local->path : ""};
  std::vector<std::string> looked;
  // A --vdso image the user named but that cannot be used is said so once.
  auto refuse_user_image = [&](const Candidate& c, const std::string& why) {
    if (c.kind == CandidateKind::kUserFile) Note(dso, "--vdso", fmt::format("--vdso {}: {}; ignored", c.path, why));
  };
  FinderOptions fo{options.symfs, buildid_dir, "vdso", debuginfod != nullptr && !bid.empty()};
  for (const Candidate& s : DebugFileCandidates(VdsoDebugSources(), query, fo)) {
    bool is_local = s.kind == CandidateKind::kLocalImage;
    if (!is_local) looked.push_back(s.path);
    std::optional<std::string> local_path = LocalPath(s, bid);
    if (!local_path || !IsRegularFile(*local_path)) {
      refuse_user_image(s, "not a regular file");
      continue;
    }
    const std::string& path = *local_path;
    auto info = ReadElfInfo(path);
    if (!info.ok()) {
      refuse_user_image(s, "not an ELF image");
      continue;
    }
    if (!bid.empty() && !bid.MatchesNote(info->build_id)) {
      refuse_user_image(s, fmt::format("build-id {} but the recording needs {}",
                                       info->build_id.empty() ? "(none)" : info->build_id.ToHex(), bid.ToHex()));
      continue;
    }
    if (bid.empty() && is_local) {
      struct utsname u;
      bool same = uname(&u) == 0 && !options.recorded_osrelease.empty() && options.recorded_osrelease == u.release &&
                  !options.recorded_arch.empty() && options.recorded_arch == u.machine;
      if (!same) {
        Fail(e, dso, LoadStatus::kNotFound, "vdso image unavailable", name,
             fmt::format("{}: no build-id recorded and the recording's kernel ({} {}) is not this one ({} {}); not "
                         "using the local vdso. Pass --vdso FILE with the recording kernel's vdso image, or "
                         "report on the recording machine",
                         name, options.recorded_osrelease.empty() ? "unknown" : options.recorded_osrelease,
                         options.recorded_arch.empty() ? "unknown arch" : options.recorded_arch, u.release,
                         u.machine));
        return;
      }
      Note(dso, name + " unverified",
           fmt::format("{}: no build-id recorded; using the local vdso ({}) of the same kernel release {}", name,
                       local_desc, u.release));
    }
    ElfSymbolOptions eo;
    eo.demangle = options.demangle;
    eo.demangle_params = options.demangle_params;
    auto image = LoadElfImage(path, path, eo);
    if (!image.ok()) continue;
    LoadedElf(e, std::move(*image), path, path);
    e->info.symtab_origin = SymtabOrigin(s.kind, false);
    return;
  }
  if (bid.empty()) {
    Fail(e, dso, LoadStatus::kNotFound, "vdso image unavailable", name,
         fmt::format("{}: no build-id recorded and no usable image", name));
    return;
  }
  Fail(e, dso, LoadStatus::kBuildIdMismatch, "vdso image unavailable", name,
       fmt::format("{}: no image with build-id {} (looked in: {}); local vdso is {}", name, bid.ToHex(),
                   Join(looked), local_desc));
}

}  // namespace perflens
