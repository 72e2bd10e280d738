#include "symbolize/dso_module.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace perflens {

DsoModule::DsoModule(Parts parts)
    : info_(std::move(parts.info)),
      owned_(std::move(parts.owned)),
      segments_(std::move(parts.segments)),
      runtime_path_(std::move(parts.runtime_path)),
      dwarf_path_(std::move(parts.dwarf_path)) {
  if (info_.status == LoadStatus::kLoaded) table_ = parts.shared ? parts.shared : &owned_;
}

DsoModule::~DsoModule() {
  if (dwarf_) dwarf_end(dwarf_);
  if (dwarf_fd_ >= 0) close(dwarf_fd_);
}

SymbolFrames DsoModule::FramesAt(uint64_t dso_addr) const {
  SymbolFrames frames;
  if (const Symbol* sym = FindSymbol(dso_addr)) frames.push_back({sym, 0});
  return frames;
}

Dwarf* DsoModule::dwarf() const {
  std::call_once(dwarf_once_, [this] { OpenDwarf(); });
  return dwarf_;
}

void DsoModule::OpenDwarf() const {
  if (dwarf_path_.empty()) {
    dwarf_error_ = "no ELF file";
    return;
  }
  // O_NONBLOCK and the regular-file check as for symbol loading: never hang on a FIFO.
  int fd = open(dwarf_path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    dwarf_error_ = dwarf_path_ + ": " + std::strerror(errno);
    return;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    dwarf_error_ = dwarf_path_ + ": not a regular file";
    return;
  }
  Dwarf* dw = dwarf_begin(fd, DWARF_C_READ);
  if (!dw) {
    close(fd);
    dwarf_error_ = dwarf_path_ + ": " + dwarf_errmsg(-1);
    return;
  }
  dwarf_ = dw;
  dwarf_fd_ = fd;
}

}  // namespace perflens
