// SrcLines::ChainText: the source line after a call-graph frame's name with
// `-g ...,address`, on the committed inline_c binary of tests/symbolize/data/inline
// (source and build.sh beside it): at 0x1193, leaf and middle are inlined into outer.
#include "report/srcline.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "model/dso.h"
#include "symbolize/symbolizer.h"

namespace perflens {
namespace {

struct Inline {
  Dso dso{1, std::string(PERFLENS_SOURCE_DIR) + "/tests/symbolize/data/inline/inline_c_dwarf5", DsoKind::kUser};
  Symbolizer symbolizer{SymbolizeOptions{.buildid_dir = "/nonexistent/perflens-test-cache"}, nullptr};
  const DsoModule* module = symbolizer.Module(dso);
  uint64_t FileOffset(uint64_t dso_vaddr) const { return *module->ToFileOffset(dso_vaddr); }
};

// perf 6.1 expands only DWARF-unwound entries into inline frames: an entry of a
// frame-pointer chain is the function alone, with the innermost line (addr2line
// without -i); in an expansion each frame has its own line, the function's frame the
// call site of the first inlined call.
TEST(SrcLinesTest, ChainTextIsTheInnermostLineUnlessTheEntryIsExpanded) {
  Inline in;
  ASSERT_EQ(in.module->info().status, LoadStatus::kLoaded) << in.module->info().message;
  const uint64_t off = in.FileOffset(0x1193);
  const SymbolFrames frames = in.module->FramesAt(off);
  ASSERT_EQ(frames.size(), 3u);
  const Symbol* outer = in.module->FindSymbol(off);
  ASSERT_NE(outer, nullptr);
  ASSERT_EQ(frames[2].sym, outer);
  SrcLines lines(&in.symbolizer, false);
  EXPECT_EQ(*lines.ChainText(&in.dso, off, outer, false), "inline_c.c:5");
  EXPECT_EQ(*lines.ChainText(&in.dso, off, outer, true), "inline_c.c:13");
  EXPECT_EQ(*lines.ChainText(&in.dso, off, frames[1].sym, true), "inline_c.c:8");
  EXPECT_EQ(*lines.ChainText(&in.dso, off, frames[0].sym, true), "inline_c.c:5");
  EXPECT_EQ(lines.ChainText(&in.dso, off, nullptr, false), nullptr) << "no symbol: the bare ip";
  // --no-inline: no expansion to take lines from.
  SrcLines no_inline(&in.symbolizer, false, /*inline_frames=*/false);
  EXPECT_EQ(*no_inline.ChainText(&in.dso, off, outer, true), "inline_c.c:5");
}

}  // namespace
}  // namespace perflens
