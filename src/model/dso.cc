#include "model/dso.h"

#include "base/text_escape.h"

#include <sys/mman.h>

#include <cstdio>

namespace perflens {

std::string_view DsoKindName(DsoKind kind) {
  switch (kind) {
    case DsoKind::kUser: return "user";
    case DsoKind::kKernel: return "kernel";
    case DsoKind::kKernelModule: return "kernel module";
    case DsoKind::kVdso: return "vdso";
    case DsoKind::kVdso32: return "vdso32";
    case DsoKind::kVdsox32: return "vdsox32";
    case DsoKind::kJitMap: return "jit map";
    case DsoKind::kKsymbol: return "ksymbol";
    case DsoKind::kAnon: return "anon";
    case DsoKind::kUnknown: return "unknown";
  }
  return "?";
}

bool IsVdsoKind(DsoKind k) { return k == DsoKind::kVdso || k == DsoKind::kVdso32 || k == DsoKind::kVdsox32; }

namespace {

std::string ShortName(const std::string& long_name, DsoKind kind) {
  if (kind == DsoKind::kJitMap) {
    // perf's dso__set_basename: "/tmp/perf-1234.map" is shown as "[JIT] tid 1234".
    unsigned pid = 0;
    if (sscanf(long_name.c_str(), "/tmp/perf-%u.map", &pid) == 1) return "[JIT] tid " + std::to_string(pid);
    return long_name;
  }
  if (!long_name.empty() && long_name[0] == '[') return long_name;
  auto slash = long_name.rfind('/');
  return slash == std::string::npos ? long_name : long_name.substr(slash + 1);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

Dso::Dso(int id, std::string long_name, DsoKind kind)
    : id_(id), long_name_(std::move(long_name)), kind_(kind) {
  short_name_ = EscapeControl(ShortName(long_name_, kind_));
  if (HasControlChars(long_name_)) printable_long_name_ = EscapeControl(long_name_);
}

DsoKind ClassifyUserMapName(std::string_view f, uint32_t flags) {
  if (f == "[vdso]") return DsoKind::kVdso;
  if (f == "[vdso32]") return DsoKind::kVdso32;
  if (f == "[vdsox32]") return DsoKind::kVdsox32;
  // perf map.h: is_anon_memory / is_no_dso_memory
  if (StartsWith(f, "//anon") || StartsWith(f, "/dev/zero") || StartsWith(f, "/anon_hugepage") ||
      (flags & MAP_HUGETLB))
    return DsoKind::kAnon;
  if (StartsWith(f, "[stack") || StartsWith(f, "/SYSV") || f == "[heap]") return DsoKind::kAnon;
  if (StartsWith(f, "[") ) return DsoKind::kUnknown;
  return DsoKind::kUser;
}

}  // namespace perflens
