// Helpers for symbolize tests: a temp dir, running the system toolchain, and reading
// independent answers from nm/readelf output.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace perflens::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "perflens-sym-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs a shell command; returns its stdout, or nullopt-like "" with ok=false.
inline bool Run(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return false;
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) s.append(buf, n);
  int rc = pclose(p);
  if (out) *out = s;
  return rc == 0;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// st_value of defined symbols by (raw) name, from `nm`.
inline std::map<std::string, uint64_t> NmValues(const std::string& path) {
  std::map<std::string, uint64_t> out;
  std::string text;
  Run("nm --defined-only " + path, &text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string addr, type, name;
    if (l >> addr >> type >> name) out.emplace(name, std::stoull(addr, nullptr, 16));
  }
  return out;
}

struct Load {
  uint64_t offset, vaddr, filesz, memsz;
};

// PT_LOAD headers, from `readelf -lW`.
inline std::vector<Load> ReadelfLoads(const std::string& path) {
  std::vector<Load> out;
  std::string text;
  Run("readelf -lW " + path, &text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string type, off, va, pa, fs, ms;
    if (l >> type >> off >> va >> pa >> fs >> ms && type == "LOAD")
      out.push_back({std::stoull(off, nullptr, 16), std::stoull(va, nullptr, 16), std::stoull(fs, nullptr, 16),
                     std::stoull(ms, nullptr, 16)});
  }
  return out;
}

inline uint64_t VaddrToOffset(const std::vector<Load>& loads, uint64_t vaddr) {
  for (const Load& l : loads) {
    if (vaddr >= l.vaddr && vaddr < l.vaddr + std::max(l.filesz, l.memsz)) return vaddr - l.vaddr + l.offset;
  }
  ADD_FAILURE() << "no PT_LOAD for " << std::hex << vaddr;
  return 0;
}

// Section file offset and size by name, from `readelf -SW`.
inline bool ReadelfSection(const std::string& path, const std::string& name, uint64_t* offset, uint64_t* size) {
  std::string text;
  Run("readelf -SW " + path + " | sed 's/^ *\\[ *[0-9]*\\]//'", &text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string n, type, addr, off, sz;
    if (l >> n >> type >> addr >> off >> sz && n == name) {
      *offset = std::stoull(off, nullptr, 16);
      *size = std::stoull(sz, nullptr, 16);
      return true;
    }
  }
  return false;
}

// The GNU build-id as hex, from `readelf -n`.
inline std::string ReadelfBuildId(const std::string& path) {
  std::string text;
  Run("readelf -n " + path, &text);
  auto pos = text.find("Build ID: ");
  if (pos == std::string::npos) return "";
  std::istringstream l(text.substr(pos + 10));
  std::string hex;
  l >> hex;
  return hex;
}

constexpr const char* kCProgram = R"(
#include <stdlib.h>
int global_counter;
__attribute__((noipa)) int spin_leaf(int n) { int s = 0; for (int i = 0; i < n; ++i) s += abs(i - 3); return s; }
__attribute__((noipa)) static long local_helper(long x) { return labs(x) + spin_leaf((int)x); }
__attribute__((weak)) int weak_fn(int x) { return x + 1; }
int main(int argc, char** argv) { global_counter = spin_leaf(argc) + (int)local_helper(argc) + weak_fn(argc); return global_counter & 1; }
)";

constexpr const char* kCxxProgram = R"(
#include <vector>
namespace ns { template <typename T> struct Box { T v; __attribute__((noipa)) T Spin(int n) { T s{}; for (int i = 0; i < n; ++i) s += v * i; return s; } }; }
int main(int argc, char**) { std::vector<int> v; for (int i = 0; i < argc; ++i) v.push_back(i); ns::Box<long> b{3}; return (int)b.Spin(argc) + (int)v.size(); }
)";

// Compiles `source` (C or C++ by `lang`) with `flags` into `out`; false if the toolchain
// cannot (e.g. no -static-pie support).
inline bool Compile(const TempDir& dir, const std::string& source, const std::string& lang, const std::string& flags,
                    const std::string& out) {
  std::string src = dir / (lang == "c++" ? "src.cc" : "src.c");
  WriteFile(src, source);
  std::string compiler = lang == "c++" ? "c++" : "cc";
  return Run(compiler + " -O1 -g -Wl,--build-id " + flags + " " + src + " -o " + out);
}

}  // namespace perflens::testing
