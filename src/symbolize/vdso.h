// The vdso image: its bytes are in no file (spec part C). Sources, in order:
//   1. --vdso FILE (user supplied),
//   2. the build-id cache: <buildid_dir>/[vdso]/<build-id>/vdso (perf record writes it),
//   3. this process's own vdso (the r-xp [vdso] line of /proc/self/maps) for [vdso],
//      or the one printed by the -m32/-mx32 helper programs for [vdso32]/[vdsox32],
//      copied to a private temp file (mkstemp in $TMPDIR, 0600, removed at exit).
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
  std::string path;  // temp file holding the image
  BuildId build_id;
};

// Copies this process's vdso (kind kVdso) or runs the 32-bit/x32 helper (kVdso32 /
// kVdsox32; looked up next to the perflens binary and in PERFLENS_LIBEXEC_DIR) and returns
// the temp file. Cached per kind for the process lifetime; temp files are removed at
// exit and on SIGINT/SIGTERM. Errors: no [vdso] line, helper missing or failing, I/O.
Result<LocalVdso> GetLocalVdso(DsoKind kind);

// Removes the temp files now (also registered with atexit).
void RemoveVdsoTempFiles();

}  // namespace perflens
