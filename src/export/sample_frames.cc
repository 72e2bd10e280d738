#include "export/sample_frames.h"

#include "base/text_escape.h"
#include "session/dso_name.h"

namespace perflens {

void SampleFrames(const ResolvedSample& s, std::vector<AddrLocation>* frames) {
  frames->clear();
  const bool chain = s.has_callchain && !s.callchain.empty();
  if (!chain || s.callchain[0].ip != s.ip) frames->push_back(s.location);
  if (chain)
    for (const CallchainFrame& f : s.callchain) frames->push_back(f.al);
}

std::string FrameName(const AddrLocation& al) {
  if (al.sym) return std::string(al.sym->name);
  if (!al.dso) return "[unknown]";
  std::string scratch;
  std::string_view name = ScriptDsoName(al.dso, &scratch);
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return "[" + std::string(name) + "]";
}

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string valid = ValidUtf8(s);
  out->push_back('"');
  for (const char ch : valid) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(ch);
    } else if (c < 0x20) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back('"');
}

}  // namespace perflens
