#include "report/archive.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "base/mapped_file.h"
#include "base/tar_writer.h"
#include "base/text_escape.h"
#include "perfdata/perf_event.h"
#include "symbolize/elf_symbols.h"

namespace perflens {
namespace {

constexpr uint64_t kMaxUnsizedFile = 1ull << 30;  // a /proc file (size 0 in stat): kallsyms

// The DSOs of every sample's ip and callchain frames, in first-hit order.
class DsoHits : public SampleConsumer {
 public:
  void OnSample(const ResolvedSample& s) override {
    Add(s.location.dso);
    for (const CallchainFrame& f : s.callchain) Add(f.al.dso);
  }
  const std::vector<const Dso*>& dsos() const { return order_; }

 private:
  void Add(const Dso* dso) {
    if (dso && seen_.insert(dso).second) order_.push_back(dso);
  }
  std::unordered_set<const Dso*> seen_;
  std::vector<const Dso*> order_;
};

// A descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      if (fd >= 0) close(fd);
      fd = o.fd;
      o.fd = -1;
    }
    return *this;
  }
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

std::vector<std::string> Components(const std::string& rel) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= rel.size()) {
    size_t j = rel.find('/', i);
    if (j == std::string::npos) j = rel.size();
    if (j > i) out.push_back(rel.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// Opens (creating as needed) the directory `rel` under `root`, one component at a time
// without following symlinks. `rel` has no "." or ".." parts (BuildIdCacheEntryFor).
Result<Fd> OpenDirUnder(int root, const std::string& root_name, const std::string& rel) {
  Fd cur(dup(root));
  if (cur.fd < 0) return Err("{}: {}", root_name, std::strerror(errno));
  for (const std::string& part : Components(rel)) {
    if (part == "." || part == "..") return Err("{}: bad path {}", root_name, rel);
    if (mkdirat(cur.fd, part.c_str(), 0755) != 0 && errno != EEXIST)
      return Err("{}/{}: {}", root_name, rel, std::strerror(errno));
    Fd next(openat(cur.fd, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.fd < 0)
      return Err("{}/{}: {} (a symlink or a file where a directory belongs)", root_name, rel, std::strerror(errno));
    cur = std::move(next);
  }
  return cur;
}

std::string DirName(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? std::string() : rel.substr(0, slash);
}
std::string BaseName(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

// The source opened for copying, with its size (0: a /proc file, read to the end).
struct Source {
  Fd fd;
  uint64_t size = 0;
};
Result<Source> OpenSource(const std::string& path) {
  auto opened = OpenRegularFile(path);
  if (!opened.ok()) return opened.error();
  Source s;
  s.fd = Fd(*opened);
  struct stat st;
  if (fstat(s.fd.fd, &st) != 0) return Err("{}: {}", path, std::strerror(errno));
  s.size = static_cast<uint64_t>(st.st_size);
  return s;
}

// Reads what is left of `fd` (a /proc file) up to kMaxUnsizedFile.
Result<std::string> ReadAll(int fd, const std::string& path) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Err("{}: {}", path, std::strerror(errno));
    if (n == 0) return out;
    if (out.size() + static_cast<size_t>(n) > kMaxUnsizedFile) return Err("{}: larger than {} bytes", path, kMaxUnsizedFile);
    out.append(buf, static_cast<size_t>(n));
  }
}

Status WriteAll(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Err("{}: {}", path, std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

// Copies `source` to the new file `out` (named `out_name` in errors); returns the bytes.
Result<uint64_t> CopyInto(Source& source, const std::string& source_name, int out, const std::string& out_name) {
  if (source.size == 0) {
    auto text = ReadAll(source.fd.fd, source_name);
    if (!text.ok()) return text.error();
    PERFLENS_RETURN_IF_ERROR(WriteAll(out, text->data(), text->size(), out_name));
    return static_cast<uint64_t>(text->size());
  }
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  for (;;) {
    ssize_t n = read(source.fd.fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Err("{}: {}", source_name, std::strerror(errno));
    if (n == 0) break;
    PERFLENS_RETURN_IF_ERROR(WriteAll(out, buf.data(), static_cast<size_t>(n), out_name));
    total += static_cast<uint64_t>(n);
  }
  if (total != source.size) return Err("{}: {} bytes read, {} expected (changed while archived?)", source_name, total, source.size);
  return total;
}

// DIR must be missing (created), empty, or a build-id cache (merged into).
Result<Fd> OpenArchiveRoot(const std::string& dir) {
  if (dir.empty()) return Err("no output directory given");
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return Err("{}: {}", dir, std::strerror(errno));
  Fd root(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.fd < 0) return Err("{}: {}", dir, std::strerror(errno));
  struct stat st;
  if (fstatat(root.fd, ".build-id", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) return root;
  Fd probe(dup(root.fd));
  DIR* d = probe.fd >= 0 ? fdopendir(probe.fd) : nullptr;
  if (!d) return Err("{}: {}", dir, std::strerror(errno));
  probe.fd = -1;  // owned by d
  bool empty = true;
  while (struct dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  closedir(d);
  if (!empty)
    return Err("{}: not empty and not a build-id cache (no .build-id directory); refusing to write into it", dir);
  return root;
}

std::string HumanSize(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (1u << 20)) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  if (bytes < (1u << 30)) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

}  // namespace

Archive::~Archive() = default;

Result<std::unique_ptr<Archive>> Archive::Create(PerfFile* file, const ArchiveOptions& options) {
  std::unique_ptr<Archive> a(new Archive());
  a->file_ = file;
  a->options_ = options;
  SessionOptions so;
  so.symbolize = options.symbolize;
  so.progress = options.progress;
  so.needs.clear();
  for (const auto& ev : file->evsels())
    so.needs.push_back(SampleNeeds{true, (ev.attr.sample_type & kSampleCallchain) != 0});
  so.inline_frames = false;  // frames' DSOs only
  so.use_threads = options.use_threads;
  a->session_ = Session::Open(file, std::move(so));
  a->consumer_ = std::make_unique<DsoHits>();
  a->session_->AddConsumer(a->consumer_.get());
  return a;
}

Status Archive::Process() {
  PERFLENS_RETURN_IF_ERROR(session_->Run());
  const auto& hits = static_cast<const DsoHits&>(*consumer_).dsos();
  Symbolizer& symbolizer = session_->symbolizer();
  const Dso* kernel = session_->machine().kernel_dso();
  plan_ = ArchivePlan{};
  plan_.nr_dsos_hit = hits.size();
  std::set<std::string> planned;  // relative paths
  std::set<std::string> skipped_names;
  auto skip = [&](const Dso& dso, std::string reason) {
    // The Symbolizer's messages start with the DSO's name already.
    const std::string prefix = dso.long_name() + ": ";
    if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
    if (skipped_names.insert(dso.long_name()).second) plan_.skipped.push_back({dso.printable_long_name(), std::move(reason)});
  };
  auto add = [&](const Dso& dso, const std::string& cache_name, const std::string& basename,
                 const std::string& source) {
    auto entry = BuildIdCacheEntryFor(cache_name, dso.build_id());
    if (!entry) {
      skip(dso, "its recorded name cannot be stored safely in a build-id cache");
      return;
    }
    ArchiveFile f{dso.printable_long_name(), dso.build_id().ToHex(), basename, source, *entry};
    if (planned.insert(f.RelativePath()).second) plan_.files.push_back(std::move(f));
  };
  for (const Dso* dso : hits) {
    switch (dso->kind()) {
      case DsoKind::kAnon:
      case DsoKind::kUnknown:
      case DsoKind::kKsymbol:  // symbols come from the recording itself
        break;
      case DsoKind::kJitMap:
        skip(*dso, "JIT map: perflens reads /tmp/perf-PID.map only at that path, not from a build-id cache; "
                   "copy it to the other machine's /tmp");
        break;
      case DsoKind::kUser: {
        if (dso->build_id().empty()) {
          skip(*dso, "no build-id recorded (perf record writes them for DSOs with samples; --buildid-all for every DSO): cannot be archived by build-id");
          break;
        }
        const DsoModule* m = symbolizer.Module(*dso);
        if (m->info().status != LoadStatus::kLoaded || m->runtime_path().empty()) {
          skip(*dso, m->info().message.empty() ? "no file loaded" : m->info().message);
          break;
        }
        add(*dso, dso->long_name(), "elf", m->runtime_path());
        if (m->symbols_path() != m->runtime_path()) {
          add(*dso, dso->long_name(), "debug", m->symbols_path());
          // The finder takes a cache entry's elf before its debug file: a binary with
          // its own .symtab then stands for the debug file when read back.
          auto info = ReadElfInfo(m->runtime_path());
          if (info.ok() && info->has_symtab)
            plan_.notes.push_back(fmt::format(
                "{}: its binary has .symtab: from the archive, symbols and line info come from the binary, not "
                "from the debug file {} (the build-id cache's elf is read before its debug)",
                dso->printable_long_name(), EscapeControl(m->symbols_path())));
        }
        break;
      }
      case DsoKind::kVdso:
      case DsoKind::kVdso32:
      case DsoKind::kVdsox32: {
        if (dso->build_id().empty()) {
          skip(*dso, "no build-id recorded (perf record writes them for DSOs with samples; --buildid-all for every DSO): cannot be archived by build-id");
          break;
        }
        const DsoModule* m = symbolizer.Module(*dso);
        if (m->info().status != LoadStatus::kLoaded || m->runtime_path().empty()) {
          skip(*dso, m->info().message.empty() ? "no image loaded" : m->info().message);
          break;
        }
        add(*dso, "[vdso]", "vdso", m->runtime_path());  // perf keys every vdso kind as [vdso]
        break;
      }
      case DsoKind::kKernel:
      case DsoKind::kKernelModule: {
        // Modules' symbols come from the kernel's kallsyms: archive that, once.
        if (!kernel || (dso->kind() == DsoKind::kKernel && dso != kernel)) {
          skip(*dso, "not the host kernel: not archived");
          break;
        }
        if (kernel->build_id().empty()) {
          skip(*kernel, "no kernel build-id recorded: its kallsyms cannot be archived by build-id");
          break;
        }
        const DsoModule* m = symbolizer.Module(*kernel);
        if (m->info().status != LoadStatus::kLoaded) {
          skip(*kernel, m->info().message);
          break;
        }
        if (!m->runtime_path().empty()) {
          skip(*kernel, fmt::format("kernel symbols come from --vmlinux {}; only kallsyms are archived", m->runtime_path()));
          break;
        }
        add(*kernel, "[kernel.kallsyms]", "kallsyms", m->symbols_path());
        break;
      }
    }
  }
  return Status::Ok();
}

Result<std::vector<ArchiveWritten>> Archive::WriteTree(const std::string& dir) const {
  auto root = OpenArchiveRoot(dir);
  if (!root.ok()) return root.error();
  std::vector<ArchiveWritten> out;
  for (const ArchiveFile& f : plan_.files) {
    ArchiveWritten w;
    const std::string rel = f.RelativePath();
    auto entry_dir = OpenDirUnder(root->fd, dir, f.entry.entry_dir);
    if (!entry_dir.ok()) return entry_dir.error();
    const std::string out_name = dir + "/" + rel;
    Fd dst(openat(entry_dir->fd, f.basename.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (dst.fd < 0 && errno == EEXIST) {
      struct stat st;
      if (fstatat(entry_dir->fd, f.basename.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return Err("{}: exists and is not a regular file", out_name);
      w.bytes = static_cast<uint64_t>(st.st_size);
      w.already_present = true;
    } else if (dst.fd < 0) {
      return Err("{}: {}", out_name, std::strerror(errno));
    } else {
      auto source = OpenSource(f.source);
      Result<uint64_t> copied = source.ok() ? CopyInto(*source, f.source, dst.fd, out_name) : Result<uint64_t>(source.error());
      if (!copied.ok()) {
        unlinkat(entry_dir->fd, f.basename.c_str(), 0);
        return copied.error();
      }
      w.bytes = *copied;
    }
    // The .build-id link to the entry directory (kept when present).
    auto link_dir = OpenDirUnder(root->fd, dir, DirName(f.entry.link));
    if (!link_dir.ok()) return link_dir.error();
    const std::string link_base = BaseName(f.entry.link);
    if (symlinkat(f.entry.link_target.c_str(), link_dir->fd, link_base.c_str()) != 0 && errno != EEXIST)
      return Err("{}/{}: {}", dir, f.entry.link, std::strerror(errno));
    out.push_back(w);
  }
  return out;
}

Result<std::vector<ArchiveWritten>> Archive::WriteTar(const std::string& tar_path) const {
  auto tar = TarWriter::Create(tar_path);
  if (!tar.ok()) return tar.error();
  std::vector<ArchiveWritten> out;
  std::set<std::string> dirs, links;
  auto add_dirs = [&](const std::string& rel) -> Status {
    std::string prefix;
    for (const std::string& part : Components(rel)) {
      prefix += (prefix.empty() ? "" : "/") + part;
      if (dirs.insert(prefix).second) PERFLENS_RETURN_IF_ERROR(tar->AddDirectory(prefix));
    }
    return Status::Ok();
  };
  auto write_all = [&]() -> Status {
    for (const ArchiveFile& f : plan_.files) {
      PERFLENS_RETURN_IF_ERROR(add_dirs(f.entry.entry_dir));
      auto source = OpenSource(f.source);
      if (!source.ok()) return source.error();
      ArchiveWritten w;
      if (source->size == 0) {
        auto text = ReadAll(source->fd.fd, f.source);
        if (!text.ok()) return text.error();
        PERFLENS_RETURN_IF_ERROR(tar->AddFileData(f.RelativePath(), *text));
        w.bytes = text->size();
      } else {
        PERFLENS_RETURN_IF_ERROR(tar->AddFileFrom(f.RelativePath(), source->fd.fd, source->size, f.source));
        w.bytes = source->size;
      }
      if (links.insert(f.entry.link).second) {
        PERFLENS_RETURN_IF_ERROR(add_dirs(DirName(f.entry.link)));
        PERFLENS_RETURN_IF_ERROR(tar->AddSymlink(f.entry.link, f.entry.link_target));
      }
      out.push_back(w);
    }
    return tar->Finish();
  };
  Status st = write_all();
  if (!st.ok()) {
    unlink(tar_path.c_str());
    return st.error();
  }
  return out;
}

std::string FormatArchiveSummary(const ArchivePlan& plan, const std::vector<ArchiveWritten>& written,
                                 const std::string& destination, bool tar, const std::string& input) {
  std::string out;
  uint64_t total = 0;
  size_t present = 0;
  for (size_t i = 0; i < plan.files.size(); ++i) {
    const ArchiveFile& f = plan.files[i];
    const ArchiveWritten w = i < written.size() ? written[i] : ArchiveWritten{};
    total += w.bytes;
    present += w.already_present;
    out += fmt::format("  {:>10}  {}{}\n      from {}\n", HumanSize(w.bytes), EscapeControl(f.RelativePath()),
                       w.already_present ? "  (already there, kept)" : "",
                       f.source.rfind("/proc/self/fd/", 0) == 0 ? "this machine's vdso" : EscapeControl(f.source));
  }
  std::string head = fmt::format("perflens archive: {} file{} ({}) for the {} DSO{} hit by samples {} {}\n",
                                 plan.files.size(), plan.files.size() == 1 ? "" : "s", HumanSize(total),
                                 plan.nr_dsos_hit, plan.nr_dsos_hit == 1 ? "" : "s",
                                 tar ? "in the tarball" : "in the build-id cache", destination);
  if (present) head += fmt::format("  ({} of them already in {})\n", present, destination);
  out = head + out;
  if (!plan.skipped.empty()) {
    out += fmt::format("{} DSO{} hit by samples not archived:\n", plan.skipped.size(), plan.skipped.size() == 1 ? "" : "s");
    for (const ArchiveSkip& s : plan.skipped) out += fmt::format("  {}: {}\n", s.dso, EscapeControl(s.reason));
  }
  for (const std::string& note : plan.notes) out += fmt::format("note: {}\n", note);
  if (tar)
    out += fmt::format("On the other machine: mkdir DIR && tar xf {} -C DIR && perflens report -i {} --buildid-dir DIR\n",
                       destination, input);
  else
    out += fmt::format("On the other machine: perflens report -i {} --buildid-dir {}\n", input, destination);
  return out;
}

}  // namespace perflens
