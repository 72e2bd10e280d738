// SymbolFrame(s): what DsoModule::FramesAt answers for one address — the function the
// address is in and the functions inlined into it there, each with its source line.
// Symbols and file names point into the DsoModule (its table and its DwarfIndex) and
// live as long as it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "symbolize/source_line.h"
#include "symbolize/symbol_table.h"

namespace perflens {

// One frame at an address. inline_depth 0 is the function the ELF symbol stands for;
// n > 0 is the n-th inlined call inside it (1: inlined into that function directly).
struct SymbolFrame {
  const Symbol* sym = nullptr;  // never nullptr in a FramesAt result; inlined: sym->inlined
  uint32_t inline_depth = 0;
  // Innermost frame: the line-table row at the address. Outer frames: the call site of
  // the next inner inlined call (DW_AT_call_file/line/column), i.e. where in this
  // function the inlined code sits. Unknown without line info.
  SourceLine line;
};

// The frames at one address, innermost first (the highest inline_depth), inline_depth 0
// last. Small: up to kInlineFrames live in the object, more spill to the heap.
class SymbolFrames {
 public:
  static constexpr size_t kInlineFrames = 4;
  void push_back(const SymbolFrame& frame) {
    if (spill_.empty() && size_ < kInlineFrames) {
      inline_[size_++] = frame;
      return;
    }
    if (spill_.empty()) spill_.assign(inline_.begin(), inline_.begin() + size_);
    spill_.push_back(frame);
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const SymbolFrame* begin() const { return spill_.empty() ? inline_.data() : spill_.data(); }
  const SymbolFrame* end() const { return begin() + size_; }
  const SymbolFrame& operator[](size_t i) const { return begin()[i]; }
  const SymbolFrame& back() const { return begin()[size_ - 1]; }

 private:
  std::array<SymbolFrame, kInlineFrames> inline_{};
  uint32_t size_ = 0;
  std::vector<SymbolFrame> spill_;
};

}  // namespace perflens
