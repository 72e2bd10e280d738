#include "base/progress_line.h"

#include <fmt/format.h>

#include <cmath>

namespace perflens {
namespace {

// 1234 → "1234", 12345 → "12.3K", 1234567 → "1.2M".
std::string Count(double n) {
  if (n < 10000) return fmt::format("{:.0f}", n);
  if (n < 1e6) return fmt::format("{:.1f}K", n / 1e3);
  if (n < 1e9) return fmt::format("{:.1f}M", n / 1e6);
  return fmt::format("{:.1f}G", n / 1e9);
}

}  // namespace

std::string FormatProgress(uint64_t bytes_done, uint64_t bytes_total, uint64_t nr_samples, double elapsed_s) {
  std::string line = fmt::format("perflens: {:.1f} MB", static_cast<double>(bytes_done) / 1e6);
  if (bytes_total)
    line += fmt::format(" of {:.1f} MB ({:.0f}%)", static_cast<double>(bytes_total) / 1e6,
                        std::floor(100.0 * static_cast<double>(bytes_done) / static_cast<double>(bytes_total)));
  line += fmt::format(", {} samples", Count(static_cast<double>(nr_samples)));
  if (elapsed_s > 0) {
    line += fmt::format(", {} samples/s", Count(static_cast<double>(nr_samples) / elapsed_s));
    if (bytes_total && bytes_done > 0 && bytes_done < bytes_total) {
      const double rate = static_cast<double>(bytes_done) / elapsed_s;
      line += fmt::format(", ETA {:.0f} s", std::ceil(static_cast<double>(bytes_total - bytes_done) / rate));
    }
  }
  return line;
}

void ProgressLine::Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t nr_samples, double now_s) {
  if (now_s < delay_s_) return;
  if (last_s_ >= 0 && now_s - last_s_ < interval_s_) return;
  last_s_ = now_s;
  shown_ = true;
  write_("\r" + FormatProgress(bytes_done, bytes_total, nr_samples, now_s) + "\x1b[K");
}

void ProgressLine::Finish() {
  if (!shown_) return;
  shown_ = false;
  write_("\r\x1b[K");
}

}  // namespace perflens
