// The vdso image: its bytes are in no file (spec part C). Sources, in order:
//   1. --vdso FILE (user supplied),
//   2. the build-id cache: <buildid_dir>/[vdso]/<build-id>/vdso (perf record writes it),
//   3. this process's own vdso (the r-xp [vdso] line of /proc/self/maps) for [vdso],
//      or the one printed by the -m32/-mx32 helper programs for [vdso32]/[vdsox32],
//      copied to an anonymous memory file (memfd_create; nothing is written to disk).
// A candidate is used only when its build-id equals the recorded one; when nothing was
// recorded, the local image is used only if the recorded kernel release and arch equal
// the local ones.
#pragma once

#include <string>

#include "base/build_id.h"
#include <mutex>
#include <optional>

#include "base/result.h"
#include "model/dso.h"

namespace perflens {

struct LocalVdso {
  std::string path;  // "/proc/self/fd/N": a memfd holding the image, open while its LocalVdsos lives
  BuildId build_id;  // from the image's NT_GNU_BUILD_ID note; empty if it has none
};

// This machine's vdso images, extracted on first use and owned here: each lives in a
// memfd that is closed when the object goes (or on Release), so no file is created and
// no signal or exit handler is needed. The Symbolizer owns one.
class LocalVdsos {
 public:
  LocalVdsos() = default;
  ~LocalVdsos();
  LocalVdsos(const LocalVdsos&) = delete;
  LocalVdsos& operator=(const LocalVdsos&) = delete;

  // Copies this process's vdso (kind kVdso: the r-xp [vdso] line of /proc/self/maps,
  // read from memory) or runs the 32-bit/x32 helper (kVdso32 / kVdsox32) and returns
  // the image as a memory file. Helpers are looked up, in order, as
  // perflens-read-vdso{32,x32} next to /proc/self/exe and in $PERFLENS_LIBEXEC_DIR,
  // then as Debian/Fedora perf's perf-read-vdso{32,x32} in /usr/lib/perf-core and
  // /usr/libexec/perf-core; their stdout is capped at 1 MiB. Results (and errors) are
  // kept per kind until Release. Errors: not a vdso kind, no [vdso] line, helper
  // missing or failing (x32 needs CONFIG_X86_X32_ABI), not an ELF of the expected
  // class, memfd_create failing. Thread-safe.
  Result<LocalVdso> Get(DsoKind kind);
  // Closes the memory files and forgets the results; paths returned before are then
  // invalid.
  void Release();

 private:
  static constexpr int kKinds = 3;  // vdso, vdso32, vdsox32
  std::mutex mu_;
  std::optional<Result<LocalVdso>> cache_[kKinds];
  int fds_[kKinds] = {-1, -1, -1};  // memfds behind the kept paths
};

}  // namespace perflens
