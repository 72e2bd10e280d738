// Compiled into every test binary: perflens runs started by tests (the CLI's
// DefaultCacheDir) keep their cache in the build tree, not in the user's home. The
// first run on a fixture writes its kallsyms index there and later ones map it, so the
// tests cover both paths, which must print the same. A value set by the caller wins.
#include <cstdlib>

namespace {
const bool kCacheDirSet = [] {
  setenv("PERFLENS_CACHE_DIR", PERFLENS_BINARY_DIR "/test-cache", 0);
  return true;
}();
}  // namespace
