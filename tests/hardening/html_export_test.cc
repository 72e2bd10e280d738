// Hostile names in the HTML export (export/html.h): a symbol, comm, dso or path holding
// "</script>", quotes, backslashes or control bytes must stay data — JSON-escaped inside
// the data <script> (no '<', '>' or '&' left in it) and HTML-escaped in the title — and
// the samples aggregate per stack, not per sample. The fuzz target's HTML check
// (fuzz_export.h CheckHtml) holds on every report seed and rejects broken pages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_export.h"

#include "export/html.h"
#include "model/dso.h"
#include "symbolize/symbol_table.h"

namespace perflens {
namespace {

constexpr std::string_view kEvil = "</script><img src=x onerror=alert(1)>\"\\\x01&amp;";

class HtmlExportTest : public ::testing::Test {
 protected:
  static std::vector<Evsel> Evsels() {
    Evsel ev;
    ev.name = "cycles<b>";
    return {ev};
  }
  HtmlExportTest() : dso_(1, "/tmp/</script>.so", DsoKind::kUser) {
    evil_.name = kEvil;
    main_.name = "main";
  }
  // A sample main → evil (leaf first in the chain, as perf gives it).
  void AddSample(uint32_t tid) {
    ResolvedSample s;
    s.comm = &comm_;
    s.pid = 7;
    s.tid = tid;
    s.has_callchain = true;
    std::vector<CallchainFrame> chain(2);
    chain[0].al.dso = &dso_;
    chain[0].al.sym = &evil_;
    chain[1].al.dso = &dso_;
    chain[1].al.sym = &main_;
    s.callchain = chain;
    consumer_.OnSample(s);
  }

  Dso dso_;
  Symbol evil_, main_;
  std::string comm_ = "comm</script>";
  HtmlConsumer consumer_{Evsels()};
};

TEST_F(HtmlExportTest, NamesStayData) {
  for (int i = 0; i < 1000; ++i) AddSample(7 + i % 2);
  EXPECT_EQ(consumer_.total_samples(), 1000u);
  EXPECT_EQ(consumer_.nr_stacks(), 2u);  // main, main → evil: aggregated
  EXPECT_EQ(consumer_.nr_frames(), 2u);
  std::string json;
  consumer_.AppendJson("/data/<evil>.data", &json);
  EXPECT_EQ(json.find('<'), std::string::npos) << json;
  EXPECT_EQ(json.find('>'), std::string::npos) << json;
  EXPECT_EQ(json.find('&'), std::string::npos) << json;
  EXPECT_NE(json.find(R"("\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e\"\\\u0001\u0026amp;")"),
            std::string::npos)
      << json;
  // Two threads of one process, each with its one leaf stack (1, delta-coded from 0).
  EXPECT_NE(json.find(R"("counts":[)" "\n" R"([0,0,[1,500]],)" "\n" R"([1,0,[1,500]]])"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("stacks":"AAAB")"), std::string::npos) << json;  // main (root; frame 0), evil (frame 1) under it
  EXPECT_NE(json.find(R"("totals":[1000])"), std::string::npos) << json;

  const std::string page = RenderHtmlReport(json, "perflens: </title><script>alert(1)</script>");
  EXPECT_NE(page.find("<title>perflens: &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>"), std::string::npos);
  // The data element ends where the page puts its end: nothing in the data closes it.
  // The data is base64 (html.h): nothing in it can close the element or open a tag.
  constexpr std::string_view kOpen = "<script type=\"text/plain\" id=\"perflens-data\" data-encoding=\"gzip+base64\">";
  const size_t data = page.find(kOpen);
  ASSERT_NE(data, std::string::npos);
  const size_t end = page.find("</script>", data);
  ASSERT_NE(end, std::string::npos);
  const std::string_view b64(page.data() + data + kOpen.size(), end - data - kOpen.size());
  EXPECT_EQ(b64.find_first_not_of(std::string(kStackDigits) + "="), std::string_view::npos);
  Result<std::string> back = ReadHtmlReportData(page);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, json);
}

// FuzzExport exports HTML too for sizes 3 mod 4: each report seed, padded to such a
// size (the bytes after the data section are not read), exports a page CheckHtml accepts.
// The stack string's numbers (export/html.h's examples).
TEST(HtmlStackNumberTest, Digits) {
  std::string s;
  for (uint64_t v : {0, 1, 31, 32, 908}) AppendStackNumber(v, &s);
  EXPECT_EQ(s, "ABfgBsc");
  s.clear();
  AppendStackNumber(UINT64_MAX, &s);
  EXPECT_EQ(s.size(), 13u);  // 64 bits in 5-bit digits
}

TEST_F(HtmlExportTest, FuzzCheckOnSeeds) {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(PERFLENS_SOURCE_DIR) / "tests/fuzz/corpus/report/seeds")) {
    if (!e.is_regular_file()) continue;
    SCOPED_TRACE(e.path().string());
    std::ifstream in(e.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    while (bytes.size() % 4 != 3) bytes.push_back(0);
    fuzz::LastFailure().clear();
    EXPECT_EQ(fuzz::FuzzExport(bytes.data(), bytes.size()), 0) << fuzz::LastFailure();
    ++n;
  }
  EXPECT_GT(n, 0);
}

TEST_F(HtmlExportTest, FuzzCheckRejectsBrokenPages) {
  AddSample(7);
  std::string json;
  consumer_.AppendJson("p", &json);
  const std::string page = RenderHtmlReport(json, "t");
  auto fails = [&](const std::string& p) {
    fuzz::Invariants inv;
    fuzz::CheckHtml(p, consumer_, 1, &inv);
    return !inv.ok() && inv.Finish() == 1;
  };
  EXPECT_FALSE(fails(page)) << fuzz::LastFailure();
  // A change to the data: the page of the changed JSON.
  auto broken = [&](std::string_view from, std::string_view to) {
    std::string j = json;
    const size_t at = j.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) j.replace(at, from.size(), to);
    return RenderHtmlReport(j, "t");
  };
  // The encoding broken: not base64, or a gzip stream cut short.
  auto page_broken = [&](std::string_view from, std::string_view to) {
    std::string p = page;
    const size_t at = p.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) p.replace(at, from.size(), to);
    return p;
  };
  EXPECT_TRUE(fails(page_broken("\">H4sI", "\">H4s*")));
  EXPECT_TRUE(fails(page_broken("\">H4sI", "\">AAAA")));
  EXPECT_FALSE(ReadHtmlReportData(page_broken("\">H4sI", "\">H4s*")).ok());
  EXPECT_TRUE(fails(broken("\"totals\":[1]", "\"totals\":[2]")));    // totals != counts
  EXPECT_TRUE(fails(broken("\"stacks\":\"AAAB\"", "\"stacks\":\"AACB\"")));  // climbs above a root
  EXPECT_TRUE(fails(broken("\"stacks\":\"AAAB\"", "\"stacks\":\"AAAg\"")));  // ends inside a number
  EXPECT_TRUE(fails(broken("\"stacks\":\"AAAB\"", "\"stacks\":\"AAA*\"")));  // not a digit
  EXPECT_TRUE(fails(broken("\"source\":\"p\"", "\"source\":\"<b>\"")));  // '<' in the data
  EXPECT_TRUE(fails(broken("[0,0,[1,1]]", "[0,0,[5,1]]")));              // leaf out of range
}

}  // namespace
}  // namespace perflens
