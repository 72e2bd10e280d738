// The name `perf script` prints for a Dso (perf's dso->name), shared by every printer
// and export that names DSOs as perf script does (script lines, folded stacks).
#pragma once

#include <string>
#include <string_view>

#include "model/dso.h"

namespace perflens {

// "[unknown]" without a Dso; else the recorded path (control bytes escaped), but
// "[name]" for a kernel module first seen in an MMAP (kmod_path__parse_name: basename
// without ".ko[.gz|.xz|.zst]", '-' → '_'), e.g.
// /lib/modules/3.8.11/kernel/drivers/net/usb/usbnet.ko → [usbnet]. A module listed in
// the recorded build-id table keeps its path (perf creates its dso from the table, by
// path, before the MMAP). The result views the Dso's name or `*scratch`. Reads only
// what a Dso never changes after it is shared: safe on a consumer thread.
inline std::string_view ScriptDsoName(const Dso* dso, std::string* scratch) {
  if (!dso) return "[unknown]";
  std::string_view name = dso->printable_long_name();
  if (dso->kind() != DsoKind::kKernelModule || dso->from_build_id_table() || name.empty() || name[0] == '[')
    return name;
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  size_t ko = name.find(".ko");
  if (ko != std::string_view::npos) name = name.substr(0, ko);
  scratch->assign(1, '[');
  for (char c : name) scratch->push_back(c == '-' ? '_' : c);
  scratch->push_back(']');
  return *scratch;
}

}  // namespace perflens
