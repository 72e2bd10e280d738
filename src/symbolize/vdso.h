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
#include "base/result.h"
#include "model/dso.h"

namespace perflens {

struct LocalVdso {
  std::string path;  // "/proc/self/fd/N": a memfd holding the image, open until ReleaseLocalVdsos
  BuildId build_id;  // from the image's NT_GNU_BUILD_ID note; empty if it has none
};

// Copies this process's vdso (kind kVdso: the r-xp [vdso] line of /proc/self/maps, read
// from memory) or runs the 32-bit/x32 helper (kVdso32 / kVdsox32) and returns the
// image as a memory file. Helpers are looked up, in order, as perflens-read-vdso{32,x32} next to
// /proc/self/exe and in $PERFLENS_LIBEXEC_DIR, then as Debian/Fedora perf's
// perf-read-vdso{32,x32} in /usr/lib/perf-core and /usr/libexec/perf-core; their stdout
// is capped at 1 MiB. Results (and errors) are cached per kind until ReleaseLocalVdsos.
// No file is created, so no signal or exit handler is needed (the memfd goes with the
// process however it ends). Errors: no [vdso] line, helper missing or failing (x32
// needs CONFIG_X86_X32_ABI), not an ELF of the expected class, memfd_create failing.
// Thread-safe.
Result<LocalVdso> GetLocalVdso(DsoKind kind);

// Closes the memory files and forgets the cached results; paths returned before are
// then invalid.
void ReleaseLocalVdsos();

}  // namespace perflens
