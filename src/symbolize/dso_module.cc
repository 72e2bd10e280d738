#include "symbolize/dso_module.h"

#include "base/mapped_file.h"
#include "symbolize/dwarf_index.h"
#include "symbolize/elf_symbols.h"

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
      dwarf_path_(std::move(parts.dwarf_path)),
      fetch_debug_file_(std::move(parts.fetch_debug_file)),
      demangle_(parts.demangle),
      demangle_params_(parts.demangle_params) {
  if (info_.status == LoadStatus::kLoaded) table_ = parts.shared ? parts.shared : &owned_;
}

DsoModule::~DsoModule() {
  if (dwarf_) dwarf_end(dwarf_);
  if (dwarf_fd_ >= 0) close(dwarf_fd_);
}

SymbolFrames DsoModule::FramesAt(uint64_t dso_addr) const {
  SymbolFrames frames;
  const Symbol* sym = FindSymbol(dso_addr);
  if (!sym) return frames;
  if (!dwarf_path_.empty()) {
    if (const DwarfIndex* index = dwarf_index()) {
      if (std::optional<uint64_t> dso_vaddr = ToDsoVaddr(dso_addr)) {
        index->AppendFrames(*dso_vaddr, sym, &frames);
        return frames;
      }
    }
  }
  frames.push_back({sym, 0, {}});
  return frames;
}

SourceLine DsoModule::FindSourceLine(uint64_t dso_addr) const {
  if (dwarf_path_.empty()) return {};
  const DwarfIndex* index = dwarf_index();
  std::optional<uint64_t> dso_vaddr = index ? ToDsoVaddr(dso_addr) : std::nullopt;
  return dso_vaddr ? index->FindLine(*dso_vaddr) : SourceLine{};
}

const std::string& DsoModule::DwarfOpenPath() const {
  std::call_once(dwarf_open_path_once_, [this] {
    dwarf_open_path_ = dwarf_path_;
    if (!fetch_debug_file_ || dwarf_path_.empty()) return;
    if (auto info = ReadElfInfo(dwarf_path_); info.ok() && info->has_debug_info) return;
    if (std::string other = fetch_debug_file_(); !other.empty()) dwarf_open_path_ = std::move(other);
  });
  return dwarf_open_path_;
}

const DwarfIndex* DsoModule::dwarf_index() const {
  // The acquire load is the fast path once opened or failed; call_once only until then.
  uint8_t state = line_state_.load(std::memory_order_acquire);
  if (state == kLineNotAsked) {
    std::call_once(index_once_, [this] { OpenIndex(); });
    state = line_state_.load(std::memory_order_acquire);
  }
  return state == kLineOk ? index_.get() : nullptr;
}

const std::string& DsoModule::line_info_error() const {
  static const std::string kNone;
  return line_state_.load(std::memory_order_acquire) == kLineFailed ? index_error_ : kNone;
}

std::string DsoModule::line_info_problem() const {
  return line_state_.load(std::memory_order_acquire) == kLineOk ? index_->problem() : std::string();
}

void DsoModule::OpenIndex() const {
  if (dwarf_path_.empty() || !table_) {
    index_error_ = dwarf_path_.empty() ? "no ELF file" : dwarf_path_ + ": no symbols";
    line_state_.store(kLineFailed, std::memory_order_release);
    return;
  }
  DwarfIndex::Options options{.demangle = demangle_,
                               .demangle_params = demangle_params_,
                               .first_symbol_index = static_cast<uint32_t>(table_->size())};
  auto symbol_at = [this](uint64_t dso_vaddr) -> const Symbol* {
    std::optional<uint64_t> file_offset = ToFileOffset(dso_vaddr);
    return file_offset ? FindSymbol(*file_offset) : nullptr;
  };
  auto index = DwarfIndex::Open(DwarfOpenPath(), symbol_at, options);
  if (!index) {
    index_error_ = index.error().message;
    line_state_.store(kLineFailed, std::memory_order_release);
    return;
  }
  index_ = std::move(*index);
  line_state_.store(kLineOk, std::memory_order_release);
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
  const std::string& path = DwarfOpenPath();
  auto opened = OpenRegularFile(path);
  if (!opened.ok()) {
    dwarf_error_ = opened.error().message;
    return;
  }
  const int fd = *opened;
  Dwarf* dw = dwarf_begin(fd, DWARF_C_READ);
  if (!dw) {
    close(fd);
    dwarf_error_ = path + ": " + dwarf_errmsg(-1);
    return;
  }
  dwarf_ = dw;
  dwarf_fd_ = fd;
}

}  // namespace perflens
